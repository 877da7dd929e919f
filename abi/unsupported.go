package abi

import "unsafe"

// UnsupportedRuntime is a Runtime of which every entry answers as one that
// is not bound: UNSUPPORTED for a status, 0 or NULL otherwise, doing
// nothing. A test double embeds it and overrides only the entries it
// models. It implements none of the optional hooks (SimHooks, SimControl,
// SimCommTimeout), so embedding it never makes a double claim them.
type UnsupportedRuntime struct{}

var _ Runtime = UnsupportedRuntime{}

func (UnsupportedRuntime) CreateDeviceContext() Ctx { return 0 }
func (UnsupportedRuntime) DestroyDeviceContext(Ctx) {}
func (UnsupportedRuntime) SimplerInit(Ctx, int32, unsafe.Pointer, uintptr, unsafe.Pointer, uintptr, unsafe.Pointer, uintptr, unsafe.Pointer, int32, unsafe.Pointer, uint64) Status {
	return Unsupported
}
func (UnsupportedRuntime) FinalizeDevice(Ctx) Status                   { return Unsupported }
func (UnsupportedRuntime) GetRuntimeSize() uintptr                     { return 0 }
func (UnsupportedRuntime) GetRuntimeAlignment() uintptr                { return 0 }
func (UnsupportedRuntime) DeviceMalloc(Ctx, uintptr) DevicePtr         { return 0 }
func (UnsupportedRuntime) DeviceFree(Ctx, DevicePtr)                   {}
func (UnsupportedRuntime) CommittedDeviceMemory(Ctx) uintptr           { return 0 }
func (UnsupportedRuntime) DeviceMemoryInfo(Ctx, unsafe.Pointer) Status { return Unsupported }
func (UnsupportedRuntime) CopyToDevice(Ctx, DevicePtr, unsafe.Pointer, uintptr) Status {
	return Unsupported
}
func (UnsupportedRuntime) CopyFromDevice(Ctx, unsafe.Pointer, DevicePtr, uintptr) Status {
	return Unsupported
}
func (UnsupportedRuntime) RegisterCallable(Ctx, int32, unsafe.Pointer) Status { return Unsupported }
func (UnsupportedRuntime) UnregisterCallable(Ctx, int32) Status               { return Unsupported }
func (UnsupportedRuntime) Run(Ctx, RunHandle, int32, unsafe.Pointer, unsafe.Pointer, unsafe.Pointer) Status {
	return Unsupported
}
func (UnsupportedRuntime) PrepareRun(Ctx, RunHandle, int32, unsafe.Pointer, unsafe.Pointer, unsafe.Pointer) Status {
	return Unsupported
}
func (UnsupportedRuntime) LaunchRun(Ctx, RunHandle) Status     { return Unsupported }
func (UnsupportedRuntime) PollRun(Ctx, RunHandle) Status       { return Unsupported }
func (UnsupportedRuntime) WaitRun(Ctx, RunHandle) Status       { return Unsupported }
func (UnsupportedRuntime) FinalizeRun(Ctx, RunHandle) Status   { return Unsupported }
func (UnsupportedRuntime) AicpuDlopenCount(Ctx) uintptr        { return 0 }
func (UnsupportedRuntime) HostDlopenCount(Ctx) uintptr         { return 0 }
func (UnsupportedRuntime) RunStreamSetCreateCount(Ctx) uintptr { return 0 }
func (UnsupportedRuntime) KernelModeSupported(Ctx) int32       { return 0 }
func (UnsupportedRuntime) KernelModeInit(Ctx, int32, unsafe.Pointer, uintptr, unsafe.Pointer, uintptr, unsafe.Pointer, uintptr, unsafe.Pointer, uint64) Status {
	return Unsupported
}
func (UnsupportedRuntime) KernelModePrepareCallable(Ctx, unsafe.Pointer, uintptr, *int32) Status {
	return Unsupported
}
func (UnsupportedRuntime) KernelModeLaunch(Ctx, int32, unsafe.Pointer, Stream) Status {
	return Unsupported
}
func (UnsupportedRuntime) SupportsConcurrentNativePrepare(Ctx) int32                { return 0 }
func (UnsupportedRuntime) ArenaBankGMHeapBase(Ctx, uint32) uint64                   { return 0 }
func (UnsupportedRuntime) RetainedTempAddr(Ctx, uint32) uint64                      { return 0 }
func (UnsupportedRuntime) EnsureACLReady(Ctx, int32) Status                         { return Unsupported }
func (UnsupportedRuntime) CreateCommStream(Ctx) Stream                              { return 0 }
func (UnsupportedRuntime) DestroyCommStream(Ctx, Stream) Status                     { return Unsupported }
func (UnsupportedRuntime) CommInit(int32, int32, Stream, unsafe.Pointer) CommHandle { return 0 }
func (UnsupportedRuntime) CommAllocWindows(CommHandle, uintptr, *uint64) Status     { return Unsupported }
func (UnsupportedRuntime) CommGetLocalWindowBase(CommHandle, *uint64) Status        { return Unsupported }
func (UnsupportedRuntime) CommGetWindowSize(CommHandle, *uintptr) Status            { return Unsupported }
func (UnsupportedRuntime) CommBarrier(CommHandle) Status                            { return Unsupported }
func (UnsupportedRuntime) CommDestroy(CommHandle) Status                            { return Unsupported }
func (UnsupportedRuntime) CommDeriveContext(CommHandle, unsafe.Pointer, uintptr, uint32, uintptr, uintptr, *uint64) Status {
	return Unsupported
}
func (UnsupportedRuntime) CommAllocDomainWindows(CommHandle, uint64, unsafe.Pointer, uintptr, uint32, uintptr, *uint64, *uint64) Status {
	return Unsupported
}
func (UnsupportedRuntime) CommReleaseDomainWindows(CommHandle, uint64, uintptr, uint32) Status {
	return Unsupported
}
func (UnsupportedRuntime) CommGlobalDomainPrepare(uint64, uint32, uint32, uintptr, uint32, unsafe.Pointer, *uint64) Status {
	return Unsupported
}
func (UnsupportedRuntime) CommGlobalDomainImport(uint64, unsafe.Pointer, uintptr, *uint64) Status {
	return Unsupported
}
func (UnsupportedRuntime) CommGlobalDomainRelease(uint64) Status  { return Unsupported }
func (UnsupportedRuntime) HostLogBindState(unsafe.Pointer) Status { return Unsupported }
func (UnsupportedRuntime) GetPipelineContract() unsafe.Pointer    { return nil }
