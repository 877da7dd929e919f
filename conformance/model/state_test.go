package model

import (
	"reflect"
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
)

// richModel is a model that holds something in every field a copy must
// not share: contexts with ids, charged blocks and registered callables,
// claims, run storage, findings.
func richModel(t *testing.T) *Model {
	t.Helper()
	s := NewState(ModelOptions{DrivenCompletion: true, DeviceKnown: true, Device: -1, Simulated: true, Claimed: []int32{3}})
	ops := MustParseScript(`create c0
setdev 0
kinit c0 dev=0 gen=1
prepare c0 img=valid() rep=3
create c1
setdev 1
pinit c1 dev=1 aicpu=bytes aicore=bytes
register c1 id=7
prepare_run c1 st=0 id=7
dev_alloc c1 a=2 size=64
finalize c9
`)
	for i, op := range ops {
		for rep := 0; rep < op.Reps(); rep++ {
			s, _ = Step(s, i, rep, op, nil)
		}
	}
	m := s.Model()
	m.skip(len(ops), ops[0], RuleNone, "a finding") // at least one finding
	if len(m.ctxs[0].ids) == 0 || len(m.ctxs[0].blocks) == 0 || m.ctxs[1].prog == nil || len(m.claims) < 2 || m.storages[0].ctx == nil ||
		m.allocs[2].ctx == nil {
		t.Fatalf("the rich model lacks a field the test needs: ids %d blocks %d prog %v claims %d storage0 %v alloc2 %v",
			len(m.ctxs[0].ids), len(m.ctxs[0].blocks), m.ctxs[1].prog, len(m.claims), m.storages[0].ctx, m.allocs[2].ctx)
	}
	return m
}

// sharedMemory lists the paths where a and b (a and its copy) share memory
// a step may change. Allowed: the external claimant (never changed), the
// options (read only) and the step-in-progress scratch (reset by every
// step).
func sharedMemory(a, b reflect.Value, path string, seen map[uintptr]bool, out *[]string) {
	if a.Kind() == reflect.Pointer && a.Type() == reflect.TypeFor[*mctx]() && seen[^a.Pointer()] {
		return // the external claimant, at a device outside the sequence holds
	}
	for _, ok := range []string{".external", ".opt.", ".co", ".e."} {
		if strings.HasPrefix(path, ok) {
			return
		}
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			*out = append(*out, path)
			return
		}
		if seen[a.Pointer()] {
			return
		}
		seen[a.Pointer()] = true
		sharedMemory(a.Elem(), b.Elem(), path, seen, out)
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Pointer() == b.Pointer() {
			*out = append(*out, path)
			return
		}
		for i := 0; i < min(a.Len(), b.Len()); i++ {
			sharedMemory(a.Index(i), b.Index(i), path+"[]", seen, out)
		}
	case reflect.Map:
		if a.IsNil() || b.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			*out = append(*out, path)
			return
		}
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); bv.IsValid() {
				sharedMemory(a.MapIndex(k), bv, path+"[k]", seen, out)
			}
		}
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			sharedMemory(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name, seen, out)
		}
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			sharedMemory(a.Index(i), b.Index(i), path+"[]", seen, out)
		}
	}
}

// A shared state's step copies the model; the copy must share no memory a
// later step changes with the state it came from (the state holds what
// M-4's ids, M-5's blocks, E-PROG's registry, E-CLAIM's claims and the
// findings of every rule depend on), for every field the
// model has or gains (the hand-written deep Clone this replaces needed
// every new field to join it by habit).
func TestModelCopySharesNothing(t *testing.T) {
	m := richModel(t)
	c := m.copy()
	var shared []string
	seen := map[uintptr]bool{^reflect.ValueOf(m.external).Pointer(): true}
	sharedMemory(reflect.ValueOf(m).Elem(), reflect.ValueOf(c).Elem(), "", seen, &shared)
	if len(shared) > 0 {
		t.Errorf("the model's copy shares memory with the original at %v", shared)
	}
	if c.gen != 0 {
		t.Errorf("the copy's gen is %d, want 0 (a copy starts its own steps)", c.gen)
	}
	c.gen = m.gen
	if !reflect.DeepEqual(m, c) {
		t.Error("the copy differs from the original")
	}
}

// An owned state advances in place (no copy on the runner's path) and is
// consumed: using it again panics. A shared state is never changed (its
// context stays unlatched where the step's kinit latched the copy, L-1,
// E-KINIT).
func TestStateOwnedAndShared(t *testing.T) {
	create, kinit := MustParse("create c0"), MustParse("kinit c0 dev=0 gen=1")
	owned := NewState(ModelOptions{DrivenCompletion: true, DeviceKnown: true, Device: -1, Simulated: true})
	next, _ := Step(owned, 0, 0, create, nil)
	if next.m != owned.m {
		t.Error("an owned state's step copied the model")
	}
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("stepping a consumed state did not panic")
			}
		}()
		Step(owned, 1, 0, kinit, nil)
	}()

	shared := next.Share()
	before := *shared.m
	after, _ := Step(shared, 1, 0, kinit, nil)
	if after.m == shared.m {
		t.Fatal("a shared state's step did not copy the model")
	}
	if !reflect.DeepEqual(before, *shared.m) {
		t.Error("a shared state's step changed it")
	}
	if shared.m.ctxs[0].latch != Unlatched || after.m.ctxs[0].latch != LatchKernel {
		t.Errorf("latch before %v after %v, want unlatched then kernel", shared.m.ctxs[0].latch, after.m.ctxs[0].latch)
	}
	again, _ := Step(shared, 1, 0, kinit, nil) // a shared state may be stepped again
	if !reflect.DeepEqual(again.m, after.m) {
		t.Error("two steps of one shared state differ")
	}
}

// Every fault site of abi drives a rule the model names (a site added to
// abi without its rule here would be reported under no rule), and no
// other number does (the fault sites of docs/contract.md): K-7 (sites 1,
// 9), M-3 (2), K-4 (3, 4), K-5 (5), D-4 (6), X-2 (7), E-LAUNCH-ASYNC (8),
// E-FIN (10); HOOKS for any other number.
func TestSiteRulesCoverEverySite(t *testing.T) {
	for s := abi.FirstSite; s <= abi.LastSite; s++ {
		r, ok := siteRules[s]
		if !ok || r == RuleNone {
			t.Errorf("fault site %d (%s) drives no rule", s, abi.SiteNames[s])
		}
		if SiteRule(s) != r {
			t.Errorf("SiteRule(%d) = %v, want %v", s, SiteRule(s), r)
		}
	}
	for s := range siteRules {
		if s < abi.FirstSite || s > abi.LastSite {
			t.Errorf("site %d is not a fault site of abi", s)
		}
	}
	if r := SiteRule(abi.LastSite + 1); r != RHooks {
		t.Errorf("SiteRule(%d) = %v, want %v (the hooks' own rule)", abi.LastSite+1, r, RHooks)
	}
}
