package model

import "github.com/simabi/simabi/conformance/op"

// The op language the model judges (conformance/op).

type (
	Trace       = op.Trace
	TraceCall   = op.TraceCall
	CallObs     = op.CallObs
	CfgRecipe   = op.CfgRecipe
	ImageRecipe = op.ImageRecipe
	Kind        = op.Kind
	Observation = op.Observation
	Op          = op.Op
)

// The op language's names the model reads, grouped by kind of name.
const (
	ArgsExact, ArgsMatch, ArgsNull                                             = op.ArgsExact, op.ArgsMatch, op.ArgsNull
	FnConcurrentPrepare, FnFree, FnMalloc, FnPollRun, FnRegister               = op.FnConcurrentPrepare, op.FnFree, op.FnMalloc, op.FnPollRun, op.FnRegister
	FnUnregister, FnRun, FnPrepareRun, FnLaunchRun, FnWaitRun                  = op.FnUnregister, op.FnRun, op.FnPrepareRun, op.FnLaunchRun, op.FnWaitRun
	FnFinalizeRun, FnMemInfo, FnCopyTo, FnCopyFrom, FnAicpuDlopen              = op.FnFinalizeRun, op.FnMemInfo, op.FnCopyTo, op.FnCopyFrom, op.FnAicpuDlopen
	ImgProgram, ImgWrap                                                        = op.ImgProgram, op.ImgWrap
	KindACL, KindClobber, KindCommitted, KindContract, KindCreate              = op.KindACL, op.KindClobber, op.KindCommitted, op.KindContract, op.KindCreate
	KindDevAlloc, KindDevFree, KindDevRead, KindDevWrite, KindDestroy          = op.KindDevAlloc, op.KindDevFree, op.KindDevRead, op.KindDevWrite, op.KindDestroy
	KindFinalize, KindFinalizeRun, KindGetDev, KindHoldLaunch, KindHoldPrepare = op.KindFinalize, op.KindFinalizeRun, op.KindGetDev, op.KindHoldLaunch, op.KindHoldPrepare
	KindHostLog, KindInject, KindInvalid, KindKInit, KindLaunch                = op.KindHostLog, op.KindInject, op.KindInvalid, op.KindKInit, op.KindLaunch
	KindLaunchRun, KindPInit, KindPollRun, KindPrepare, KindPrepareRun         = op.KindLaunchRun, op.KindPInit, op.KindPollRun, op.KindPrepare, op.KindPrepareRun
	KindProg, KindRaceKInit, KindRegister, KindRun, KindSetDev                 = op.KindProg, op.KindRaceKInit, op.KindRegister, op.KindRun, op.KindSetDev
	KindSupported, KindSync, KindUnload, KindUnregister, KindWaitRun           = op.KindSupported, op.KindSync, op.KindUnload, op.KindUnregister, op.KindWaitRun
	MaxAllocs, MaxSlots, MaxStorages, MaxStreams                               = op.MaxAllocs, op.MaxSlots, op.MaxStorages, op.MaxStreams
	NullRef                                                                    = op.NullRef
	NumKinds                                                                   = op.NumKinds
	SpanAicore, SpanAicpu, SpanBytes, SpanDispatcher, SpanNone                 = op.SpanAicore, op.SpanAicpu, op.SpanBytes, op.SpanDispatcher, op.SpanNone
	SpanSDMA                                                                   = op.SpanSDMA
	PtrBase, PtrInterior, PtrUnknown, PtrFreed, PtrForeign                     = op.PtrBase, op.PtrInterior, op.PtrUnknown, op.PtrFreed, op.PtrForeign
)

var (
	AcceptedValue = op.AcceptedValue
	DevHolds      = op.DevHolds
	DevHoldsText  = op.DevHoldsText
	SpanKey       = op.SpanKey
)
