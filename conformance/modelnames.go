package conformance

import (
	"encoding/binary"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
)

// The model lives in conformance/model; these names keep the engine's
// callers reading it where they always have.

type (
	Blame        = model.Blame
	Expectation  = model.Expectation
	Finding      = model.Finding
	MemExpect    = model.MemExpect
	Model        = model.Model
	ModelOptions = model.ModelOptions
	Profile      = model.Profile
	Rule         = model.Rule
	Rules        = model.Rules
	State        = model.State
	StatusSet    = model.StatusSet
	Tally        = model.Tally
	Verdict      = model.Verdict
)

const (
	Crash           = model.Crash
	Fail            = model.Fail
	Hang            = model.Hang
	Known           = model.Known
	MemAny          = model.MemAny
	MemSame         = model.MemSame
	MemUnchecked    = model.MemUnchecked
	MemUp           = model.MemUp
	MemUpOrSame     = model.MemUpOrSame
	MemZero         = model.MemZero
	MemZeroTolUp    = model.MemZeroTolUp
	Pass            = model.Pass
	ProfileLegacy   = model.ProfileLegacy
	ProfileRefusing = model.ProfileRefusing
	ProfileTMR      = model.ProfileTMR
	RD1             = model.RD1
	RD2             = model.RD2
	RD3             = model.RD3
	RD4             = model.RD4
	REACL           = model.REACL
	REClaim         = model.REClaim
	REDestroy       = model.REDestroy
	REFin           = model.REFin
	REKInit         = model.REKInit
	RELaunch        = model.RELaunch
	RELaunchAsync   = model.RELaunchAsync
	REPInit         = model.REPInit
	REPrep          = model.REPrep
	REProg          = model.REProg
	RESup           = model.RESup
	RHooks          = model.RHooks
	RK1             = model.RK1
	RK2             = model.RK2
	RK3             = model.RK3
	RK4             = model.RK4
	RK5             = model.RK5
	RK6             = model.RK6
	RK7             = model.RK7
	RL1             = model.RL1
	RL2             = model.RL2
	RL3             = model.RL3
	RL4             = model.RL4
	RL5             = model.RL5
	RM1             = model.RM1
	RM2             = model.RM2
	RM3             = model.RM3
	RM4             = model.RM4
	RM5             = model.RM5
	RM6             = model.RM6
	RM7             = model.RM7
	RS1             = model.RS1
	RS2             = model.RS2
	RS3             = model.RS3
	RU1             = model.RU1
	RVArena         = model.RVArena
	RVCfg           = model.RVCfg
	RVContract      = model.RVContract
	RVImg           = model.RVImg
	RVInit          = model.RVInit
	RVLaunch        = model.RVLaunch
	RVPrep1         = model.RVPrep1
	RVPrep2         = model.RVPrep2
	RVSpan          = model.RVSpan
	RX1             = model.RX1
	RX2             = model.RX2
	RX3             = model.RX3
	RuleNone        = model.RuleNone
	Skip            = model.Skip
	Warn            = model.Warn
	numRules        = model.NumRules
	numVerdicts     = model.NumVerdicts
)

var (
	ConsumerRules = model.ConsumerRules
	Expect        = model.Expect
	NewModel      = model.NewModel
	NewState      = model.NewState
	RuleByName    = model.RuleByName
	RuntimeRules  = model.RuntimeRules
	Step          = model.Step
)

// The model's words the engine reads it by.
type profileSet = model.ProfileSet

const (
	onTMR           = model.OnTMR
	onRefusing      = model.OnRefusing
	onKernel        = model.OnKernel
	maxIDs          = model.MaxIDs
	unlatched       = model.Unlatched
	latchProgram    = model.LatchProgram
	latchKernel     = model.LatchKernel
	storageFree     = model.StorageFree
	storagePrepared = model.StoragePrepared
)

var le = binary.LittleEndian

func statusName(s abi.Status) string { return StatusName(s) }

var ParseVerdict = model.ParseVerdict
