package model

import (
	"strconv"
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
)

var simulated = ModelOptions{Profile: ProfileTMR, DrivenCompletion: true, DeviceKnown: true, Device: -1, Simulated: true}

// E-PROG, E-DESTROY: what the model expects of the device memory ops.
// Without a live program init device_malloc_ctx returns NULL and the
// copies INVALID_STATE (E-PROG); with one, an allocation, 0 and the
// pattern last written (upstream's memcpy); across a destroy refused for an
// outstanding run the allocations hold what they held and committed memory
// reads the same (E-DESTROY.3); finalize frees them.
func TestModelDeviceMemory_EPROG_EDESTROY(t *testing.T) {
	m := runExpectScript(t, simulated, `
create c0
dev_alloc c0 a=0 size=64          => value=0 rule=E-PROG mem=0
dev_write c0 a=0 seed=1           => INVALID_STATE rule=E-PROG mem=0
pinit c0 dev=0
dev_alloc c0 a=0 size=64          => value=1 rule=E-PROG mem=any
dev_alloc c0 a=1 size=8           => value=1 rule=E-PROG
dev_read c0 a=0                   => OK rule=E-PROG mem=any
dev_write c0 a=0 seed=1           => OK rule=E-PROG
dev_read c0 a=0                   => OK rule=E-PROG value=2
register c0 id=0 img=prog         => OK
prepare_run c0 st=0 id=0          => OK
destroy c0                        => any rule=E-DESTROY
committed c0                      => mem=same
dev_read c0 a=0                   => OK rule=E-DESTROY value=2 mem=any
dev_write c0 a=1 seed=3           => OK rule=E-DESTROY
dev_read c0 a=1                   => OK rule=E-DESTROY value=4
finalize_run c0 st=0              => any
dev_free c0 a=1                   => any mem=any
finalize c0                       => OK
committed c0                      => mem=0
dev_read c0 a=0                   => INVALID_STATE rule=E-PROG mem=0
`)
	for a := int8(0); a < MaxAllocs; a++ {
		if al, held := m.Allocation(a); held {
			t.Errorf("a%d still holds an allocation of c%d after finalize", a, al.Slot)
		}
	}
}

// E-DESTROY.3, judged: committed memory that moved across a refused
// destroy, and an allocation read back with other bytes, are failures of
// E-DESTROY; a read refused after the refused destroy is too, and the model
// forgets the context then (its allocations are no longer called).
func TestModelRefusedDestroyJudgesDeviceMemory_EDESTROY(t *testing.T) {
	ops := MustParseScript(`
create c0
pinit c0 dev=0
dev_alloc c0 a=0 size=64
dev_alloc c0 a=1 size=64
dev_write c0 a=0 seed=1
dev_write c0 a=1 seed=2
register c0 id=0 img=prog
prepare_run c0 st=0 id=0
committed c0
destroy c0
committed c0
dev_read c0 a=0
dev_read c0 a=1
`)
	m := newModel(simulated)
	mem := uint64(0)
	for i, o := range ops {
		obs := &Observation{}
		switch i {
		case 0:
			obs.HandleCreated, obs.Call.Value = true, 1
		case 2, 3:
			obs.Call.Value, mem = 1, mem+64
		case 11:
			obs.Call.Value = DevHolds(7) // another write's bytes
		case 12:
			obs.Call.Status = abi.InvalidArgument // freed
		}
		if o.Kind != KindDestroy {
			obs.MemProbed, obs.MemPrev, obs.Mem = true, mem, mem
			if i == 10 {
				obs.Mem = 0 // the destroy freed it all
			}
			mem = obs.Mem
		}
		m.step(i, 0, o, obs)
	}
	var got []string
	for _, f := range m.Findings() {
		if f.Verdict == Fail {
			got = append(got, f.Rule.String()+" #"+strconv.Itoa(f.Index)+" "+f.Detail)
		}
	}
	want := []string{
		"E-DESTROY #10 committed went 128 -> 0, want same",
		"E-DESTROY #11 returned 8, want 2: the allocation holds the pattern of seed 1",
		"E-DESTROY #12 want OK",
	}
	if len(got) != len(want) {
		t.Fatalf("failures:\n  %s\nwant %d", strings.Join(got, "\n  "), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("failure %d: %q, want it to begin %q", i, got[i], want[i])
		}
	}
	if _, held := m.Allocation(0); held {
		t.Error("a0 is still called after the divergence on c0")
	}
}

// E-PROG.30-34: what the model expects of every argument of the device
// memory entries with a live program init. A span past an allocation's end
// (by 1 byte, by 2^62, starting at the end, into the next allocation) is
// refused with IA (a simulated legacy build: -1) and keeps committed
// memory and both allocations (the reads after it still want seed 1 and
// 2); a span inside, or ending at the end, copies; 0 bytes copy nothing
// anywhere; a free of no allocation's start frees nothing; malloc(0) is a
// pointer charging nothing, malloc(2^62) NULL.
func TestModelDeviceMemoryArguments_EPROG(t *testing.T) {
	script := func(refused string) string {
		return `
create c0
create c1
pinit c0 dev=0
pinit c1 dev=1
dev_alloc c0 a=0 size=64              => value=1 rule=E-PROG mem=any
dev_alloc c0 a=1 size=100             => value=1 rule=E-PROG
dev_alloc c1 a=2 size=8               => value=1 rule=E-PROG
dev_write c0 a=0 seed=1               => OK rule=E-PROG
dev_write c0 a=1 seed=2               => OK rule=E-PROG
dev_write c0 a=0 seed=3 off=0 len=65  => ` + refused + ` rule=E-PROG mem=same
dev_read c0 a=1 off=8 len=huge        => ` + refused + ` rule=E-PROG mem=same
dev_write c0 a=1 seed=4 off=100 len=8 => ` + refused + ` rule=E-PROG mem=same
dev_write c0 a=0 seed=5 cross=1       => ` + refused + ` rule=E-PROG mem=same
dev_read c0 a=0                       => OK rule=E-PROG value=2
dev_read c0 a=1                       => OK rule=E-PROG value=3
dev_read c0 a=0 off=8 len=56          => OK rule=E-PROG value=2
dev_write c0 a=0 seed=1 off=8 len=8   => OK rule=E-PROG
dev_read c0 a=0                       => OK rule=E-PROG value=2
dev_write c0 a=0 seed=6 off=64 len=0  => OK rule=E-PROG mem=same
dev_read c0 a=0 off=0 len=0           => OK rule=E-PROG mem=same
dev_free c0 a=0 at=8                  => any rule=E-PROG mem=same
dev_free c0 a=2 ptr=foreign           => any rule=E-PROG mem=same
dev_free c0 a=0 ptr=unknown           => any rule=E-PROG mem=same
dev_read c0 a=0                       => OK rule=E-PROG value=2
dev_alloc c0 a=3 size=0               => value=1 rule=E-PROG mem=same
dev_read c0 a=3                       => OK rule=E-PROG mem=same
dev_free c0 a=3                       => any mem=any
dev_alloc c1 a=3 size=huge            => value=0 rule=E-PROG mem=same
`
	}
	for _, tc := range []struct {
		profile Profile
		refused string
	}{{ProfileTMR, "INVALID_ARGUMENT"}, {ProfileLegacy, "INTERNAL"}} {
		t.Run(string(tc.profile), func(t *testing.T) {
			opt := simulated
			opt.Profile = tc.profile
			m := runExpectScript(t, opt, script(tc.refused))
			for a, want := range []bool{true, true, true, false} {
				if _, held := m.Allocation(int8(a)); held != want {
					t.Errorf("a%d held = %v, want %v", a, held, want)
				}
			}
		})
	}
}
