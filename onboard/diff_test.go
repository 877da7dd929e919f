package onboard

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
)

func aclCode(code int32) error {
	if code != 0 {
		return fmt.Errorf("aclError %d", code)
	}
	return nil
}

// simTarget is a fresh in-process sim instance.
func simTarget(p sim.Profile) *target {
	rt := sim.New(p, sim.Options{})
	acl := rt.ACL()
	return &target{
		name: "sim:" + string(p), rt: rt, hooks: rt,
		malloc:  func(n uintptr) abi.DevicePtr { d, _ := acl.Malloc(n); return d },
		write:   func(d abi.DevicePtr, src []byte) error { return aclCode(acl.CopyToDevice(d, src)) },
		read:    func(dst []byte, s abi.DevicePtr) error { return aclCode(acl.CopyFromDevice(dst, s)) },
		aclFree: func(d abi.DevicePtr) error { return aclCode(acl.Free(d)) },
		counters: func() []uint64 {
			c := acl.Counters()
			return []uint64{c.Init, c.Finalize, c.SetDevice, c.ResetDevice, c.SynchronizeStream, c.SynchronizeDevice, c.CreateStream, c.DestroyStream, c.GetDevice}
		},
	}
}

// soTarget opens a fresh loaded copy of the emitted runtime at path through
// onboard, with its fake ACL; close unloads both and checks that the copy is
// gone, so the next scenario starts from a fresh instance.
func soTarget(tb testing.TB, path string, opts Options) (*target, func()) {
	tb.Helper()
	if loaded(path) {
		tb.Fatalf("%s is still loaded: a scenario would not start from a fresh runtime instance", path)
	}
	l, err := Open(path, opts)
	if err != nil {
		tb.Fatal(err)
	}
	hooks, ok := l.Hooks()
	if !ok {
		tb.Fatalf("%s exports no simulation hooks", path)
	}
	acl, err := OpenACL(ACLPathFor(path))
	if err != nil {
		tb.Fatal(err)
	}
	t := &target{
		name: "emitted:" + path, rt: l, hooks: hooks,
		malloc:  func(n uintptr) abi.DevicePtr { d, _ := acl.Malloc(n, 0); return d },
		write:   func(d abi.DevicePtr, src []byte) error { return acl.CopyToDevice(d, uintptr(len(src)), src) },
		read:    acl.CopyFromDevice,
		aclFree: acl.Free,
		counters: func() []uint64 {
			c, err := acl.Counters()
			if err != nil {
				panic(err)
			}
			return []uint64{c.Init, c.Finalize, c.SetDevice, c.ResetDevice, c.SynchronizeStream, c.SynchronizeDevice, c.CreateStream, c.DestroyStream, c.GetDevice}
		},
	}
	return t, func() {
		if err := acl.Close(); err != nil {
			tb.Error(err)
		}
		if err := l.Close(); err != nil {
			tb.Error(err)
		}
	}
}

// TestDifferentialScenarios runs the fixed scenario list on sim in-process
// and on the emitted runtime through onboard, for the tmr and refusing
// profiles, and requires identical traces (F-1: the emitted runtime
// implements the rules call for call as sim does).
func TestDifferentialScenarios(t *testing.T) {
	for _, p := range []struct {
		sim  sim.Profile
		emit emit.Profile
	}{{sim.TMR, emit.ProfileTMR}, {sim.Refusing, emit.ProfileRefusing}} {
		path := emitted(t, emit.Config{Profile: p.emit})
		for _, sc := range scenarios() {
			if p.sim == sim.Refusing && !sc.refusing {
				continue
			}
			t.Run(string(p.sim)+"/"+sc.name, func(t *testing.T) {
				want := runScenario(t, simTarget(p.sim), sc)
				so, closeSO := soTarget(t, path, Options{BindKernelWhenUnsupported: true})
				got := runScenario(t, so, sc)
				closeSO()
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("scenario %s: traces differ (-sim +emitted):\n%s", sc.name, diff)
				}
				if len(want) == 0 {
					t.Error("empty trace")
				}
			})
		}
	}
}
