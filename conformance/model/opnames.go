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

const (
	ArgsExact           = op.ArgsExact
	ArgsMatch           = op.ArgsMatch
	ArgsNull            = op.ArgsNull
	FnConcurrentPrepare = op.FnConcurrentPrepare
	FnFree              = op.FnFree
	FnMalloc            = op.FnMalloc
	FnPollRun           = op.FnPollRun
	FnRegister          = op.FnRegister
	FnUnregister        = op.FnUnregister
	FnRun               = op.FnRun
	FnPrepareRun        = op.FnPrepareRun
	FnLaunchRun         = op.FnLaunchRun
	FnWaitRun           = op.FnWaitRun
	FnFinalizeRun       = op.FnFinalizeRun
	FnMemInfo           = op.FnMemInfo
	FnCopyTo            = op.FnCopyTo
	FnCopyFrom          = op.FnCopyFrom
	FnAicpuDlopen       = op.FnAicpuDlopen
	ImgProgram          = op.ImgProgram
	ImgWrap             = op.ImgWrap
	KindACL             = op.KindACL
	KindClobber         = op.KindClobber
	KindCommitted       = op.KindCommitted
	KindContract        = op.KindContract
	KindCreate          = op.KindCreate
	KindDevAlloc        = op.KindDevAlloc
	KindDevFree         = op.KindDevFree
	KindDevRead         = op.KindDevRead
	KindDevWrite        = op.KindDevWrite
	KindDestroy         = op.KindDestroy
	KindFinalize        = op.KindFinalize
	KindFinalizeRun     = op.KindFinalizeRun
	KindGetDev          = op.KindGetDev
	KindHoldLaunch      = op.KindHoldLaunch
	KindHoldPrepare     = op.KindHoldPrepare
	KindHostLog         = op.KindHostLog
	KindInject          = op.KindInject
	KindInvalid         = op.KindInvalid
	KindKInit           = op.KindKInit
	KindLaunch          = op.KindLaunch
	KindLaunchRun       = op.KindLaunchRun
	KindPInit           = op.KindPInit
	KindPollRun         = op.KindPollRun
	KindPrepare         = op.KindPrepare
	KindPrepareRun      = op.KindPrepareRun
	KindProg            = op.KindProg
	KindRaceKInit       = op.KindRaceKInit
	KindRegister        = op.KindRegister
	KindRun             = op.KindRun
	KindSetDev          = op.KindSetDev
	KindSupported       = op.KindSupported
	KindSync            = op.KindSync
	KindUnload          = op.KindUnload
	KindUnregister      = op.KindUnregister
	KindWaitRun         = op.KindWaitRun
	MaxAllocs           = op.MaxAllocs
	MaxSlots            = op.MaxSlots
	MaxStorages         = op.MaxStorages
	MaxStreams          = op.MaxStreams
	NullRef             = op.NullRef
	NumKinds            = op.NumKinds
	SpanAicore          = op.SpanAicore
	SpanAicpu           = op.SpanAicpu
	SpanBytes           = op.SpanBytes
	SpanDispatcher      = op.SpanDispatcher
	SpanNone            = op.SpanNone
	SpanSDMA            = op.SpanSDMA
	PtrBase             = op.PtrBase
	PtrInterior         = op.PtrInterior
	PtrUnknown          = op.PtrUnknown
	PtrFreed            = op.PtrFreed
	PtrForeign          = op.PtrForeign
)

var (
	AcceptedValue = op.AcceptedValue
	DevHolds      = op.DevHolds
	DevHoldsText  = op.DevHoldsText
	SpanKey       = op.SpanKey
)
