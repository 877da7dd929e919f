package trace

import (
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/target"
)

// The words the trace checker's tests write their sessions and runs in.
type (
	FactoryExecutor = conformance.FactoryExecutor
	Observation     = op.Observation
	CallObs         = op.CallObs
	Finding         = model.Finding
)

const (
	KindCreate = op.KindCreate
	KindProg   = op.KindProg
	KindRun    = op.KindRun
	Skip       = model.Skip
)

var (
	Parse           = op.Parse
	KindByName      = op.KindByName
	MustParseScript = op.MustParseScript
	ParseTrace      = op.ParseTrace
	ReadTraceFile   = op.ReadTraceFile
	SimFactory      = target.SimFactory
	Step            = model.Step
)
