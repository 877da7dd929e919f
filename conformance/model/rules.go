package model

// Rule is a rule ID of docs/contract.md (plus a few pseudo-rules
// for the simulation hooks of docs/contract.md). Rules are small integers so that the
// model can attach them to every expectation without allocating.
type Rule uint8

// The rules a runtime checker can speak about. C-* (consumer) and F-*
// (emitter) rules describe other programs and are listed by AllRules only so
// that a report can say why they are not checked here.
const (
	RuleNone Rule = iota
	RS1
	RS2
	RS3
	RVSpan
	RVInit
	RVPrep1
	RVPrep2
	RVLaunch
	RVImg
	RVCfg
	RVArena
	RVContract
	RL1
	RL2
	RL3
	RL4
	RL5
	RK1
	RK2
	RK3
	RK4
	RK5
	RK6
	RK7
	RESup
	REKInit
	REClaim
	REPrep
	RELaunch
	RELaunchAsync
	REFin
	REDestroy
	REPInit
	REACL
	REProg
	REComm
	RM1
	RM2
	RM3
	RM4
	RM5
	RM6
	RM7
	RD1
	RD2
	RD3
	RD4
	RU1
	RX1
	RX2
	RX3
	// RHooks is the simulation hooks (docs/contract.md, F-1): the hooks' own statuses.
	RHooks
	NumRules
)

var ruleNames = [NumRules]string{
	RuleNone: "-", RS1: "S-1", RS2: "S-2", RS3: "S-3",
	RVSpan: "V-SPAN", RVInit: "V-INIT", RVPrep1: "V-PREP-1", RVPrep2: "V-PREP-2", RVLaunch: "V-LAUNCH",
	RVImg: "V-IMG", RVCfg: "V-CFG", RVArena: "V-ARENA", RVContract: "V-CONTRACT",
	RL1: "L-1", RL2: "L-2", RL3: "L-3", RL4: "L-4", RL5: "L-5",
	RK1: "K-1", RK2: "K-2", RK3: "K-3", RK4: "K-4", RK5: "K-5", RK6: "K-6", RK7: "K-7",
	RESup: "E-SUP", REKInit: "E-KINIT", REClaim: "E-CLAIM", REPrep: "E-PREP", RELaunch: "E-LAUNCH",
	RELaunchAsync: "E-LAUNCH-ASYNC", REFin: "E-FIN", REDestroy: "E-DESTROY", REPInit: "E-PINIT",
	REACL: "E-ACL", REProg: "E-PROG", REComm: "E-COMM",
	RM1: "M-1", RM2: "M-2", RM3: "M-3", RM4: "M-4", RM5: "M-5", RM6: "M-6", RM7: "M-7",
	RD1: "D-1", RD2: "D-2", RD3: "D-3", RD4: "D-4", RU1: "U-1",
	RX1: "X-1", RX2: "X-2", RX3: "X-3",
	RHooks: "HOOKS",
}

func (r Rule) String() string {
	if r < NumRules {
		return ruleNames[r]
	}
	return "?"
}

// RuleByName finds a rule by its ID ("E-PREP").
func RuleByName(s string) (Rule, bool) {
	for i, n := range ruleNames {
		if n == s && i != int(RuleNone) {
			return Rule(i), true
		}
	}
	return RuleNone, false
}

// notChecked gives, for the runtime rules this engine never drives, the
// reason a report prints.
var notChecked = map[Rule]string{
	RVArena: "V-ARENA: no entry of docs/contract.md exposes arena change requests; nothing to drive from outside",
	RX3:     "X-3: init/finalize racing other calls is the caller's error and no result is asserted",
}

// ConsumerRules are the rule IDs of docs/contract.md that constrain consumers or the
// emitter rather than a runtime; reports list them as not applicable.
var ConsumerRules = []string{
	"C-BIND-1", "C-BIND-2", "C-PROBE", "C-GEN", "C-ERR", "C-KINIT", "C-OWED", "C-FIN", "C-SINGLE",
	"C-SUPPORTED", "C-ID", "C-MODE", "C-GATE", "C-THREAD", "C-LEAK", "C-IMG", "F-1", "F-2", "F-3", "F-4",
}

// RuntimeRules lists every runtime rule in docs/contract.md order.
func RuntimeRules() []Rule {
	rs := make([]Rule, 0, NumRules)
	for r := RS1; r < NumRules; r++ {
		rs = append(rs, r)
	}
	return rs
}

// ProfileSet is a set of build profiles.
type ProfileSet uint8

// Profile sets.
const (
	OnTMR ProfileSet = 1 << iota
	OnRefusing
	OnLegacy
	OnKernel = OnTMR | OnRefusing
	OnAll    = OnTMR | OnRefusing | OnLegacy
)

// ProfileBit is profile p's bit.
func ProfileBit(p Profile) ProfileSet {
	switch p {
	case ProfileTMR:
		return OnTMR
	case ProfileRefusing:
		return OnRefusing
	case ProfileLegacy:
		return OnLegacy
	}
	return 0
}

// ruleProfiles are the profiles held to each runtime rule (contract.md,
// each rule's Profiles paragraph): a refusing build has no kernel context,
// so the phase, capacity and claim rules are tmr's (and L-4, whose latch no
// entry of a refusing build can tell from no latch); a legacy build has no
// kernel entries and is held to the program-mode rules only.
var ruleProfiles = [NumRules]ProfileSet{
	RS1: OnKernel, RS2: OnAll, RS3: OnAll,
	RVSpan: OnKernel, RVInit: OnKernel, RVPrep1: OnKernel, RVPrep2: OnKernel, RVLaunch: OnKernel,
	RVImg: OnTMR, RVCfg: OnKernel, RVArena: OnTMR, RVContract: OnAll,
	RL1: OnAll, RL2: OnTMR, RL3: OnTMR, RL4: OnTMR, RL5: OnKernel,
	RK1: OnTMR, RK2: OnTMR, RK3: OnTMR, RK4: OnTMR, RK5: OnTMR, RK6: OnTMR, RK7: OnTMR,
	RESup: OnKernel, REKInit: OnKernel, REClaim: OnTMR, REPrep: OnKernel, RELaunch: OnKernel,
	RELaunchAsync: OnTMR, REFin: OnAll, REDestroy: OnAll, REPInit: OnAll, REACL: OnAll, REProg: OnAll, REComm: OnAll,
	RM1: OnTMR, RM2: OnTMR, RM3: OnTMR, RM4: OnTMR, RM5: OnTMR, RM6: OnTMR, RM7: OnAll,
	RD1: OnKernel, RD2: OnTMR, RD3: OnTMR, RD4: OnTMR, RU1: OnAll,
	RX1: OnTMR, RX2: OnTMR, RX3: OnTMR,
	RHooks: OnAll,
}

// RuleProfiles are the profiles held to rule r.
func RuleProfiles(r Rule) ProfileSet {
	if r < NumRules {
		return ruleProfiles[r]
	}
	return 0
}

// Applies reports whether builds of profile p are held to rule r.
func (r Rule) Applies(p Profile) bool { return r < NumRules && ruleProfiles[r]&ProfileBit(p) != 0 }
