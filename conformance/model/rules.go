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

// rules are each rule's ID and the profiles held to it (contract.md, each
// rule's Profiles paragraph): a refusing build has no kernel context, so
// the phase, capacity and claim rules are tmr's (and L-4, whose latch no
// entry of a refusing build can tell from no latch); a legacy build has no
// kernel entries and is held to the program-mode rules only.
var rules = [NumRules]struct {
	name string
	on   ProfileSet
}{
	RuleNone: {"-", 0}, RS1: {"S-1", OnKernel}, RS2: {"S-2", OnAll}, RS3: {"S-3", OnAll},
	RVSpan: {"V-SPAN", OnKernel}, RVInit: {"V-INIT", OnKernel}, RVPrep1: {"V-PREP-1", OnKernel}, RVPrep2: {"V-PREP-2", OnKernel},
	RVLaunch: {"V-LAUNCH", OnKernel}, RVImg: {"V-IMG", OnTMR}, RVCfg: {"V-CFG", OnKernel}, RVArena: {"V-ARENA", OnTMR},
	RVContract: {"V-CONTRACT", OnAll}, RL1: {"L-1", OnAll}, RL2: {"L-2", OnTMR}, RL3: {"L-3", OnTMR}, RL4: {"L-4", OnTMR},
	RL5: {"L-5", OnKernel}, RK1: {"K-1", OnTMR}, RK2: {"K-2", OnTMR}, RK3: {"K-3", OnTMR}, RK4: {"K-4", OnTMR},
	RK5: {"K-5", OnTMR}, RK6: {"K-6", OnTMR}, RK7: {"K-7", OnTMR}, RESup: {"E-SUP", OnKernel}, REKInit: {"E-KINIT", OnKernel},
	REClaim: {"E-CLAIM", OnTMR}, REPrep: {"E-PREP", OnKernel}, RELaunch: {"E-LAUNCH", OnKernel},
	RELaunchAsync: {"E-LAUNCH-ASYNC", OnTMR}, REFin: {"E-FIN", OnAll}, REDestroy: {"E-DESTROY", OnAll},
	REPInit: {"E-PINIT", OnAll}, REACL: {"E-ACL", OnAll}, REProg: {"E-PROG", OnAll}, REComm: {"E-COMM", OnAll},
	RM1: {"M-1", OnTMR}, RM2: {"M-2", OnTMR}, RM3: {"M-3", OnTMR}, RM4: {"M-4", OnTMR}, RM5: {"M-5", OnTMR},
	RM6: {"M-6", OnTMR}, RM7: {"M-7", OnAll}, RD1: {"D-1", OnKernel}, RD2: {"D-2", OnTMR}, RD3: {"D-3", OnTMR},
	RD4: {"D-4", OnTMR}, RU1: {"U-1", OnAll}, RX1: {"X-1", OnTMR}, RX2: {"X-2", OnTMR}, RX3: {"X-3", OnTMR},
	RHooks: {"HOOKS", OnAll},
}

func (r Rule) String() string {
	if r < NumRules {
		return rules[r].name
	}
	return "?"
}

// RuleByName finds a rule by its ID ("E-PREP").
func RuleByName(s string) (Rule, bool) {
	for i, x := range rules {
		if x.name == s && i != int(RuleNone) {
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
func ProfileBit(p Profile) ProfileSet { return profileBits[p] }

var profileBits = map[Profile]ProfileSet{ProfileTMR: OnTMR, ProfileRefusing: OnRefusing, ProfileLegacy: OnLegacy}

// RuleProfiles are the profiles held to rule r.
func RuleProfiles(r Rule) ProfileSet {
	if r < NumRules {
		return rules[r].on
	}
	return 0
}

// Applies reports whether builds of profile p are held to rule r.
func (r Rule) Applies(p Profile) bool { return r < NumRules && rules[r].on&ProfileBit(p) != 0 }
