package catalogue

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/simabi/simabi/conformance/model"
)

// The clause table: every testable clause of docs/contract.md bound to
// what judges it: the checks' "# judges:" headers (checks.go) and the
// notes below. TestClauseTable keeps it equal to the contract.

// ClauseSpec binds one clause to the directed checks that judge it and the
// emitted mutants that break it, or says why no call can drive it.
type ClauseSpec struct {
	ID string // "E-DESTROY.3"
	// Held are the profiles held to the clause (zero: the rule's).
	Held     model.ProfileSet
	Checks   []string // the directed checks judging it, which kill each of Mutants
	Mutants  []string // the emitted mutants that break exactly this clause
	Undriven string   // why no call through the ABI can show the clause
	Gaps     string   // why a held profile has no check driving it there
}

const gapNoInjection = "the fault site is driven through simabi_inject, which a refusing build answers UNSUPPORTED for every site and upstream's builds do not export"

const undrivenCommUnload = "the runner calls nothing of a library after unloading it: TestComm_ECOMM55_unloadReleasesGlobalDomains " +
	"(sim/emit) loads a runtime twice in one process"

// clausesHeld are the clauses held to fewer profiles than their rule.
var clausesHeld = []struct {
	on  model.ProfileSet
	ids []string
}{
	{model.OnRefusing, []string{"E-KINIT.2", "E-PREP.9", "E-LAUNCH.10"}},
	{model.OnTMR, []string{"E-KINIT.3", "E-KINIT.4", "E-KINIT.5", "E-KINIT.6", "E-PREP.3", "E-PREP.4", "E-PREP.5", "E-PREP.6", "E-PREP.7", "E-PREP.8", "E-LAUNCH.1", "E-LAUNCH.2", "E-LAUNCH.3", "E-LAUNCH.4", "E-LAUNCH.5", "E-LAUNCH.6", "E-LAUNCH.7", "E-LAUNCH.8", "E-LAUNCH.9", "E-DESTROY.2", "M-7.1", "M-7.2", "M-7.3"}},
	{model.OnKernel, []string{"E-PINIT.3", "E-PINIT.4", "E-PINIT.5", "E-PINIT.6", "E-PINIT.7", "E-PINIT.8", "E-PINIT.11", "E-ACL.2", "E-ACL.3", "E-ACL.4", "E-PROG.1", "E-PROG.2", "E-PROG.3", "E-PROG.4", "E-PROG.21"}},
	{model.OnLegacy, []string{"E-PROG.22"}},
}

// clausesUndriven are the clauses no call through the ABI can show, by why.
var clausesUndriven = []struct {
	why string
	ids []string
}{
	{"every image this step refuses is refused again, with the same IA, by step 5 or 6 (used starts past the storage), and the step reads nothing a skipped check would read", []string{"V-IMG.11"}},
	{"every image this step refuses is refused again, with the same IA, by the next child's header check or by step 6, and V-IMG reads no byte of a child binary", []string{"V-IMG.18"}},
	{"no entry of the ABI exposes arena change requests, so there is nothing to call from outside", []string{"V-ARENA.1", "V-ARENA.2", "V-ARENA.3"}},
	{"no fault site reaches the AICPU bring-up (abi.md lists sites 1 to 10), so no call can make kernel init fail there", []string{"K-4.3"}},
	{"every poisoning step (device registration, enqueue) lies behind a dispatch check that New, Poisoned, Closing and Closed refuse, or inside init", []string{"K-4.5"}},
	{"two loaded copies of one library in one sequence: the checker's runner loads one private copy per sequence", []string{"E-CLAIM.5"}},
	{"the checker's images are no-op kernels, which read nothing of args when their work runs; a kernel that reads its args needs caller device memory, which the checker does not allocate", []string{"E-LAUNCH-ASYNC.1"}},
	{"a freed handle must not be called again, and what a context holds is private to it or released before destroy, so no call can see that the memory went", []string{"E-DESTROY.5"}},
	{"no fault site reaches simpler_init's attach or prewarm, and a build that checks the prewarm before the latch (as E-PINIT orders) has no other failure after it", []string{"E-PINIT.13"}},
	{"without a live init the context has no device pointer to free, so no call can show what device_free_ctx did", []string{"E-PROG.5"}},
	{undrivenCommUnload, []string{"E-COMM.55"}},
	{"the contract lets a checker assert only which way committed memory moves for a kernel context (C0 may be nonzero, the sizes are the runtime's), so no call tells the sum from another that moves the same way", []string{"M-7.1"}},
	{"an atexit handler a shared library registers is bound to the library (glibc's atexit is __cxa_atexit with the library's __dso_handle) and runs when dlclose unloads it, and a Go checker's own exit runs no atexit handler, so none can outlive an unload in a way a call shows", []string{"U-1.3"}},
	{"only inits latch a mode, and an init racing other calls on the same context is the caller's error (X-3), so no call can show a torn latch", []string{"X-1.1"}},
	{"the phase changes under the submission gate (X-2 checks it) or in init and finalize, whose races X-3 leaves open", []string{"X-1.2"}},
	{"no result is asserted", []string{"X-3.1"}},
}

// clausesGaps are the clauses a held profile cannot drive (gapNoInjection).
var clausesGaps = []string{"S-1.2", "E-FIN.6", "E-FIN.7"}

// clauseTable binds each clause the checks judge or the notes above name,
// in the contract's order.
func clauseTable(judgedBy map[string]*judged) ([]ClauseSpec, error) {
	specs := map[string]*ClauseSpec{}
	spec := func(id string) *ClauseSpec {
		if specs[id] == nil {
			specs[id] = &ClauseSpec{ID: id}
		}
		return specs[id]
	}
	owner := map[string]string{}
	// In a fixed order, so that an error names the same pair every time.
	for _, id := range slices.Sorted(maps.Keys(judgedBy)) {
		j := judgedBy[id]
		c := spec(id)
		c.Checks = append(slices.Clip(j.killers), j.others...)
		c.Mutants = j.mutants
		for _, m := range j.mutants {
			if o, dup := owner[m]; dup {
				return nil, fmt.Errorf("checks: mutant %s is named for %s and %s", m, o, id)
			}
			owner[m] = id
		}
	}
	for _, h := range clausesHeld {
		for _, id := range h.ids {
			spec(id).Held = h.on
		}
	}
	for _, u := range clausesUndriven {
		for _, id := range u.ids {
			spec(id).Undriven = u.why
		}
	}
	for _, id := range clausesGaps {
		spec(id).Gaps = gapNoInjection
	}
	out := make([]ClauseSpec, 0, len(specs))
	order := map[string]int{} // rule, then number
	for _, id := range slices.Sorted(maps.Keys(specs)) {
		c := specs[id]
		if !strings.Contains(c.ID, ".") || c.Rule() == model.RuleNone || c.N() <= 0 {
			return nil, fmt.Errorf("checks: %q is no clause ID of a rule (RULE.N)", c.ID)
		}
		out = append(out, *c)
		order[c.ID] = int(c.Rule())<<16 | c.N()
	}
	slices.SortFunc(out, func(a, b ClauseSpec) int { return order[a.ID] - order[b.ID] })
	return out, nil
}

// Clauses returns the clause table in the contract's order.
func Clauses() []ClauseSpec { return slices.Clone(loaded().clauses) }

// ClauseByID finds clause id ("E-DESTROY.3", case-insensitive).
func ClauseByID(id string) (ClauseSpec, bool) {
	for _, c := range loaded().clauses {
		if strings.EqualFold(c.ID, strings.TrimSpace(id)) {
			return c, true
		}
	}
	return ClauseSpec{}, false
}

// RuleID is the ID of the clause's rule ("E-DESTROY").
func (c ClauseSpec) RuleID() string { return c.ID[:strings.LastIndexByte(c.ID, '.')] }

// N is the clause's number within its rule.
func (c ClauseSpec) N() int {
	n, _ := strconv.Atoi(c.ID[strings.LastIndexByte(c.ID, '.')+1:])
	return n
}

// Rule is the clause's rule.
func (c ClauseSpec) Rule() model.Rule {
	r, _ := model.RuleByName(c.RuleID())
	return r
}

// Profiles are the build profiles held to the clause.
func (c ClauseSpec) Profiles() model.ProfileSet {
	if c.Held != 0 {
		return c.Held
	}
	if r := c.Rule(); r != model.RuleNone {
		return model.RuleProfiles(r)
	}
	return 0
}

// HeldOn reports whether builds of profile p are held to the clause.
func (c ClauseSpec) HeldOn(p model.Profile) bool { return c.Profiles()&model.ProfileBit(p) != 0 }

// HeldOnText names the profiles held to the clause ("tmr, refusing").
func (c ClauseSpec) HeldOnText() string { return profilesText(c.HeldOn) }

// GapProfilesText names the held profiles no check of the clause drives.
func (c ClauseSpec) GapProfilesText() string {
	return profilesText(func(p model.Profile) bool { return c.HeldOn(p) && len(c.ChecksOn(p)) == 0 })
}

// profilesText names the profiles in is, in profileOrder.
func profilesText(is func(model.Profile) bool) string {
	var ps []string
	for _, p := range profileOrder {
		if is(p) {
			ps = append(ps, p.String())
		}
	}
	return strings.Join(ps, ", ")
}

// ChecksOn are the clause's checks that run on a build of profile p.
func (c ClauseSpec) ChecksOn(p model.Profile) []string {
	if !c.HeldOn(p) {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(c.Checks), func(name string) bool {
		ch, ok := checkByName(name)
		return !ok || !ch.AppliesTo(p)
	})
}

// checkByName finds a directed check of the catalogue.
func checkByName(name string) (*Check, bool) {
	checks := loaded().checks
	i := slices.IndexFunc(checks, func(c Check) bool { return c.Name == name })
	if i < 0 {
		return nil, false
	}
	return &checks[i], true
}

// claimedMutants maps each check to the mutants of the clauses naming it.
func claimedMutants(clauses []ClauseSpec) map[string][]string {
	out := map[string][]string{}
	for _, c := range clauses {
		for _, ch := range c.Checks {
			for _, m := range c.Mutants {
				if !slices.Contains(out[ch], m) {
					out[ch] = append(out[ch], m)
				}
			}
		}
	}
	return out
}

// ChecksClaiming are the directed checks designed to kill mutant, in the
// order its clause lists them (the first is the one expected to kill it).
func ChecksClaiming(mutant string) []Check {
	c, _ := ClauseOfMutant(mutant)
	var out []Check
	for _, ch := range parsed() {
		if slices.Contains(c.Checks, ch.Name) {
			out = append(out, ch)
		}
	}
	slices.SortStableFunc(out, func(a, b Check) int {
		return slices.Index(c.Checks, a.Name) - slices.Index(c.Checks, b.Name)
	})
	return out
}

// ClauseOfMutant is the clause a mutant breaks.
func ClauseOfMutant(name string) (ClauseSpec, bool) {
	for _, c := range loaded().clauses {
		if slices.Contains(c.Mutants, name) {
			return c, true
		}
	}
	return ClauseSpec{}, false
}

var profileOrder = []model.Profile{model.ProfileTMR, model.ProfileRefusing, model.ProfileLegacy}

// ProfileOrder is the build profiles in the order the clause table names
// them.
func ProfileOrder() []model.Profile { return slices.Clone(profileOrder) }
