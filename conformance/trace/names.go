package trace

import (
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/report"
)

// The words a trace is judged in: the op language's (a recorded call is an
// op), the model's (its verdicts) and the engine's (a result, a history, a
// report).
type (
	Trace       = op.Trace
	TraceCall   = op.TraceCall
	Op          = op.Op
	State       = model.State
	Model       = model.Model
	Profile     = model.Profile
	Rule        = model.Rule
	Verdict     = model.Verdict
	Result      = conformance.Result
	History     = conformance.History
	Entry       = conformance.Entry
	Report      = report.Report
	CheckReport = report.CheckReport
)

const (
	KindInvalid     = op.KindInvalid
	KindSupported   = op.KindSupported
	KindSetDev      = op.KindSetDev
	KindSync        = op.KindSync
	KindLaunch      = op.KindLaunch
	Pass            = model.Pass
	Fail            = model.Fail
	Crash           = model.Crash
	Hang            = model.Hang
	RX2             = model.RX2
	ProfileTMR      = model.ProfileTMR
	ProfileRefusing = model.ProfileRefusing
	ProfileLegacy   = model.ProfileLegacy
)

var (
	newReport = report.NewReport
	opAt      = conformance.OpAt
	opLines   = conformance.OpLines
	entryRule = conformance.EntryRule
)
