package conformance

import (
	"strconv"

	"github.com/simabi/simabi/conformance/op"
)

// The op language lives in conformance/op; these names keep the engine's
// callers (the session, the isolate pool, abicheck, the tests) reading it
// where they always have.

type (
	ArgsMode    = op.ArgsMode
	ArgsRecipe  = op.ArgsRecipe
	CallObs     = op.CallObs
	CfgRecipe   = op.CfgRecipe
	Image       = op.Image
	ImageRecipe = op.ImageRecipe
	ImgBase     = op.ImgBase
	ImgDefect   = op.ImgDefect
	Kind        = op.Kind
	Observation = op.Observation
	Op          = op.Op
	PokeKind    = op.PokeKind
	ProgFn      = op.ProgFn
	RingRecipe  = op.RingRecipe
	SpanRecipe  = op.SpanRecipe
	Trace       = op.Trace
	TraceCall   = op.TraceCall
)

const (
	ArgsExact           = op.ArgsExact
	ArgsMatch           = op.ArgsMatch
	ArgsNull            = op.ArgsNull
	DefBinarySize       = op.DefBinarySize
	DefChildBinary      = op.DefChildBinary
	DefChildCount       = op.DefChildCount
	DefChildCountNeg    = op.DefChildCountNeg
	DefChildGap         = op.DefChildGap
	DefChildHeader      = op.DefChildHeader
	DefChildOffset      = op.DefChildOffset
	DefChildSigCount    = op.DefChildSigCount
	DefChildSigCountNeg = op.DefChildSigCountNeg
	DefConfigNameLen    = op.DefConfigNameLen
	DefConfigNameNUL    = op.DefConfigNameNUL
	DefFuncIDDup        = op.DefFuncIDDup
	DefFuncIDNeg        = op.DefFuncIDNeg
	DefFuncIDRange      = op.DefFuncIDRange
	DefFuncNameEarly    = op.DefFuncNameEarly
	DefFuncNameFar      = op.DefFuncNameFar
	DefFuncNameLen      = op.DefFuncNameLen
	DefFuncNameNUL      = op.DefFuncNameNUL
	DefNone             = op.DefNone
	DefOrder            = op.DefOrder
	DefScalarCount      = op.DefScalarCount
	DefScalars          = op.DefScalars
	DefSigCount         = op.DefSigCount
	DefSigCountNeg      = op.DefSigCountNeg
	DefSigValue         = op.DefSigValue
	DefSigValueNeg      = op.DefSigValueNeg
	FnAicpuDlopen       = op.FnAicpuDlopen
	FnArenaBase         = op.FnArenaBase
	FnCommCreate        = op.FnCommCreate
	FnCommDestroy       = op.FnCommDestroy
	FnConcurrentPrepare = op.FnConcurrentPrepare
	FnCopyFrom          = op.FnCopyFrom
	FnCopyTo            = op.FnCopyTo
	FnFinalizeRun       = op.FnFinalizeRun
	FnFree              = op.FnFree
	FnHostDlopen        = op.FnHostDlopen
	FnLaunchRun         = op.FnLaunchRun
	FnMalloc            = op.FnMalloc
	FnMemInfo           = op.FnMemInfo
	FnPollRun           = op.FnPollRun
	FnPrepareRun        = op.FnPrepareRun
	FnRegister          = op.FnRegister
	FnRetainedTemp      = op.FnRetainedTemp
	FnRun               = op.FnRun
	FnStreamSets        = op.FnStreamSets
	FnUnregister        = op.FnUnregister
	FnWaitRun           = op.FnWaitRun
	ImgHuge             = op.ImgHuge
	ImgNull             = op.ImgNull
	ImgProgram          = op.ImgProgram
	ImgRaw              = op.ImgRaw
	ImgRawTrunc         = op.ImgRawTrunc
	ImgValid            = op.ImgValid
	ImgWrap             = op.ImgWrap
	KindACL             = op.KindACL
	KindClobber         = op.KindClobber
	KindCommitted       = op.KindCommitted
	KindContract        = op.KindContract
	KindCreate          = op.KindCreate
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
	MaxSlots            = op.MaxSlots
	MaxStorages         = op.MaxStorages
	MaxStreams          = op.MaxStreams
	NullRef             = op.NullRef
	NumDefects          = op.NumDefects
	NumFns              = op.NumFns
	NumKinds            = op.NumKinds
	NumRings            = op.NumRings
	NumGenRings         = op.NumGenRings
	NumSpans            = op.NumSpans
	OutSentinel         = op.OutSentinel
	PokeByte            = op.PokeByte
	PokeNone            = op.PokeNone
	PokeU32             = op.PokeU32
	RingBadDep          = op.RingBadDep
	RingBadHeap         = op.RingBadHeap
	RingBadHeap3        = op.RingBadHeap3
	RingBadPow2         = op.RingBadPow2
	RingBadTask         = op.RingBadTask
	RingBigDep          = op.RingBigDep
	RingGood            = op.RingGood
	RingNone            = op.RingNone
	RingWinOnly         = op.RingWinOnly
	SpanAicore          = op.SpanAicore
	SpanAicpu           = op.SpanAicpu
	SpanBytes           = op.SpanBytes
	SpanDispatcher      = op.SpanDispatcher
	SpanHalfPtr         = op.SpanHalfPtr
	SpanHalfSize        = op.SpanHalfSize
	SpanNone            = op.SpanNone
	SpanSDMA            = op.SpanSDMA
)

var (
	ErrSyntax       = op.ErrSyntax
	Abbreviate      = op.Abbreviate
	AcceptedValue   = op.AcceptedValue
	CfgBytes        = op.CfgBytes
	FormatOps       = op.FormatOps
	ImageOf         = op.ImageOf
	KindByName      = op.KindByName
	MustParse       = op.MustParse
	MustParseScript = op.MustParseScript
	Parse           = op.Parse
	ParseScript     = op.ParseScript
	ParseTrace      = op.ParseTrace
	RawImage        = op.RawImage
	ReadTraceFile   = op.ReadTraceFile
	SpanKey         = op.SpanKey
	StatusName      = op.StatusName
)

// The language's text forms and sizes the engine writes or maps.
const hugeSize = op.HugeSize

func ctxText(c int8) string { return op.CtxText(c) }
func itoa(n int32) string   { return strconv.Itoa(int(n)) }
