package abi

import "fmt"

func need(what string, n, have int) error {
	if have < n {
		return fmt.Errorf("abi: %s needs %d bytes, have %d", what, n, have)
	}
	return nil
}

// DeviceMemoryInfo is the HBM snapshot of device_memory_info_ctx.
type DeviceMemoryInfo struct {
	FreeBytes  uint64
	TotalBytes uint64
}

// Encode writes m into dst[:16].
func (m DeviceMemoryInfo) Encode(dst []byte) error {
	if err := need("DeviceMemoryInfo", DeviceMemoryInfoSize, len(dst)); err != nil {
		return err
	}
	le.PutUint64(dst[MemInfoFreeBytesOff:], m.FreeBytes)
	le.PutUint64(dst[MemInfoTotalBytesOff:], m.TotalBytes)
	return nil
}

// DecodeDeviceMemoryInfo reads src[:16].
func DecodeDeviceMemoryInfo(src []byte) (DeviceMemoryInfo, error) {
	if err := need("DeviceMemoryInfo", DeviceMemoryInfoSize, len(src)); err != nil {
		return DeviceMemoryInfo{}, err
	}
	return DeviceMemoryInfo{FreeBytes: le.Uint64(src[MemInfoFreeBytesOff:]), TotalBytes: le.Uint64(src[MemInfoTotalBytesOff:])}, nil
}

// PipelineResourceKind values.
const (
	ResourceUnspecified  uint32 = 0
	ResourceGMHeap       uint32 = 1
	ResourceGMSM         uint32 = 2
	ResourceRuntimeImage uint32 = 3
	ResourceTaskArgs     uint32 = 4
	ResourceAicpuStream  uint32 = 5
	ResourceAicoreStream uint32 = 6
)

// PipelineResourceClass values.
const (
	ClassHostPerRun    uint32 = 0
	ClassDeviceScratch uint32 = 1
	ClassExecHandle    uint32 = 2
)

// PipelineResource is one declared resource of a PipelineContract.
type PipelineResource struct {
	Kind         uint32
	Class        uint32
	BytesPerCopy uint64
}

// PipelineContract is what get_pipeline_contract returns.
type PipelineContract struct {
	ABIVersion    uint32
	ResourceCount uint32
	PipelineDepth uint32
	Resources     [PipelineMaxResources]PipelineResource
}

// Encode writes c into dst[:144].
func (c PipelineContract) Encode(dst []byte) error {
	if err := need("PipelineContract", PipelineContractSize, len(dst)); err != nil {
		return err
	}
	clear(dst[:PipelineContractSize])
	le.PutUint32(dst[ContractABIVersionOff:], c.ABIVersion)
	le.PutUint32(dst[ContractResourceCountOff:], c.ResourceCount)
	le.PutUint32(dst[ContractPipelineDepthOff:], c.PipelineDepth)
	for i, r := range c.Resources {
		o := ContractResourcesOff + PipelineResourceSize*i
		le.PutUint32(dst[o+ResourceKindOff:], r.Kind)
		le.PutUint32(dst[o+ResourceClassOff:], r.Class)
		le.PutUint64(dst[o+ResourceBytesPerCopyOff:], r.BytesPerCopy)
	}
	return nil
}

// DecodePipelineContract reads src[:144].
func DecodePipelineContract(src []byte) (PipelineContract, error) {
	var c PipelineContract
	if err := need("PipelineContract", PipelineContractSize, len(src)); err != nil {
		return c, err
	}
	c.ABIVersion = le.Uint32(src[ContractABIVersionOff:])
	c.ResourceCount = le.Uint32(src[ContractResourceCountOff:])
	c.PipelineDepth = le.Uint32(src[ContractPipelineDepthOff:])
	for i := range c.Resources {
		o := ContractResourcesOff + PipelineResourceSize*i
		c.Resources[i] = PipelineResource{
			Kind:         le.Uint32(src[o+ResourceKindOff:]),
			Class:        le.Uint32(src[o+ResourceClassOff:]),
			BytesPerCopy: le.Uint64(src[o+ResourceBytesPerCopyOff:]),
		}
	}
	return c, nil
}

// NativeRunDescriptor is the descriptor of the program run family.
type NativeRunDescriptor struct {
	PipelineSlot  uint32
	ArenaBank     uint32
	RunID         uint64
	Generation    uint64
	DispatchID    uint64
	RunEpoch      uint64
	AcceptedState uintptr // int32_t *; written with AcceptedValue at launch
	AcceptedValue int32
}

// Encode writes d into dst[:56].
func (d NativeRunDescriptor) Encode(dst []byte) error {
	if err := need("NativeRunDescriptor", NativeRunDescSize, len(dst)); err != nil {
		return err
	}
	clear(dst[:NativeRunDescSize])
	le.PutUint32(dst[DescPipelineSlotOff:], d.PipelineSlot)
	le.PutUint32(dst[DescArenaBankOff:], d.ArenaBank)
	le.PutUint64(dst[DescRunIDOff:], d.RunID)
	le.PutUint64(dst[DescGenerationOff:], d.Generation)
	le.PutUint64(dst[DescDispatchIDOff:], d.DispatchID)
	le.PutUint64(dst[DescRunEpochOff:], d.RunEpoch)
	le.PutUint64(dst[DescAcceptedStateOff:], uint64(d.AcceptedState))
	le.PutUint32(dst[DescAcceptedValueOff:], uint32(d.AcceptedValue))
	return nil
}

// DecodeNativeRunDescriptor reads src[:56].
func DecodeNativeRunDescriptor(src []byte) (NativeRunDescriptor, error) {
	if err := need("NativeRunDescriptor", NativeRunDescSize, len(src)); err != nil {
		return NativeRunDescriptor{}, err
	}
	return NativeRunDescriptor{
		PipelineSlot:  le.Uint32(src[DescPipelineSlotOff:]),
		ArenaBank:     le.Uint32(src[DescArenaBankOff:]),
		RunID:         le.Uint64(src[DescRunIDOff:]),
		Generation:    le.Uint64(src[DescGenerationOff:]),
		DispatchID:    le.Uint64(src[DescDispatchIDOff:]),
		RunEpoch:      le.Uint64(src[DescRunEpochOff:]),
		AcceptedState: uintptr(le.Uint64(src[DescAcceptedStateOff:])),
		AcceptedValue: int32(le.Uint32(src[DescAcceptedValueOff:])),
	}, nil
}

// HostLogState is SimplerHostLogState, the process-owned logging state a
// consumer binds into every runtime it loads.
type HostLogState struct {
	ABIVersion     uint32
	StructSize     uint32
	Threshold      int32
	ClockAnchorPID int32
}

// DefaultHostLogState is what a consumer binds when it has no preference:
// abi_version 1, struct_size 16, threshold TIMING (upstream's default).
func DefaultHostLogState() HostLogState {
	return HostLogStateAt(DefaultLogLevel)
}

// HostLogStateAt is the default state with threshold l.
func HostLogStateAt(l LogLevel) HostLogState {
	return HostLogState{ABIVersion: HostLogStateABIVersion, StructSize: HostLogStateSize, Threshold: int32(l)}
}

// Bindable reports whether a runtime's simpler_host_log_bind_state accepts s
// (docs/contract.md "SimplerHostLogState"): abi_version 1, struct_size >= 16 and a
// threshold that is one of the six log levels. Upstream's binder refuses
// anything else with -1, so a consumer must never bind such a state.
func (s HostLogState) Bindable() bool {
	return s.ABIVersion == HostLogStateABIVersion && s.StructSize >= HostLogStateSize && LogLevel(s.Threshold).Valid()
}

// Encode writes s into dst[:16].
func (s HostLogState) Encode(dst []byte) error {
	if err := need("SimplerHostLogState", HostLogStateSize, len(dst)); err != nil {
		return err
	}
	le.PutUint32(dst[LogStateABIVersionOff:], s.ABIVersion)
	le.PutUint32(dst[LogStateStructSizeOff:], s.StructSize)
	le.PutUint32(dst[LogStateThresholdOff:], uint32(s.Threshold))
	le.PutUint32(dst[LogStateClockAnchorPIDOff:], uint32(s.ClockAnchorPID))
	return nil
}

// DecodeHostLogState reads src[:16].
func DecodeHostLogState(src []byte) (HostLogState, error) {
	if err := need("SimplerHostLogState", HostLogStateSize, len(src)); err != nil {
		return HostLogState{}, err
	}
	return HostLogState{
		ABIVersion:     le.Uint32(src[LogStateABIVersionOff:]),
		StructSize:     le.Uint32(src[LogStateStructSizeOff:]),
		Threshold:      int32(le.Uint32(src[LogStateThresholdOff:])),
		ClockAnchorPID: int32(le.Uint32(src[LogStateClockAnchorPIDOff:])),
	}, nil
}
