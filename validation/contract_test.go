package validation_test

import (
	"errors"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/validation"
)

// V-ARENA: a committed region is never grown (requested > cached) or released
// (requested 0 while cached != 0); shrink and equal are fine; an uncommitted
// region is unconstrained.
func TestVARENARegion(t *testing.T) {
	cases := []struct {
		name      string
		r         validation.ArenaRegion
		forbidden bool
	}{
		{"committed grow", validation.ArenaRegion{Committed: true, Cached: 4096, Requested: 4097}, true},
		{"committed grow from 0", validation.ArenaRegion{Committed: true, Cached: 0, Requested: 1}, true},
		{"committed release", validation.ArenaRegion{Committed: true, Cached: 4096, Requested: 0}, true},
		{"committed shrink", validation.ArenaRegion{Committed: true, Cached: 4096, Requested: 4095}, false},
		{"committed shrink to 1", validation.ArenaRegion{Committed: true, Cached: 4096, Requested: 1}, false},
		{"committed equal", validation.ArenaRegion{Committed: true, Cached: 4096, Requested: 4096}, false},
		{"committed 0 requesting 0", validation.ArenaRegion{Committed: true, Cached: 0, Requested: 0}, false},
		{"uncommitted grow", validation.ArenaRegion{Committed: false, Cached: 0, Requested: 1 << 40}, false},
		{"uncommitted release", validation.ArenaRegion{Committed: false, Cached: 4096, Requested: 0}, false},
	}
	for _, c := range cases {
		if got := validation.ArenaChangeForbidden(c.r); got != c.forbidden {
			t.Errorf("V-ARENA %s: forbidden = %v, want %v", c.name, got, c.forbidden)
		}
		want := abi.OK
		if c.forbidden {
			want = abi.Internal
		}
		if got := validation.ArenaChange([]validation.ArenaRegion{c.r}); got != want {
			t.Errorf("V-ARENA %s: ArenaChange = %v, want %v", c.name, got, want)
		}
	}
}

// V-ARENA over a request: INTERNAL when any region, in any position, is a
// forbidden change; OK when every region is allowed.
func TestVARENAChecksEveryRegion(t *testing.T) {
	okR := []validation.ArenaRegion{
		{Committed: true, Cached: 100, Requested: 100},
		{Committed: true, Cached: 100, Requested: 50},
		{Committed: false, Cached: 0, Requested: 999},
	}
	if got := validation.ArenaChange(okR); got != abi.OK {
		t.Errorf("V-ARENA all allowed = %v", got)
	}
	if got := validation.ArenaChange(nil); got != abi.OK {
		t.Errorf("V-ARENA empty request = %v", got)
	}
	bad := validation.ArenaRegion{Committed: true, Cached: 100, Requested: 101}
	for pos := 0; pos <= len(okR); pos++ {
		regions := append(append(append([]validation.ArenaRegion{}, okR[:pos]...), bad), okR[pos:]...)
		if got := validation.ArenaChange(regions); got != abi.Internal {
			t.Errorf("V-ARENA forbidden region at %d of %d = %v, want INTERNAL", pos, len(regions), got)
		}
	}
}

func contractWith(mod func(*abi.PipelineContract)) abi.PipelineContract {
	c := abi.SimulatedProgramContract()
	mod(&c)
	return c
}

func res(kind, class uint32) abi.PipelineResource {
	return abi.PipelineResource{Kind: kind, Class: class}
}

// V-CONTRACT: the program contract a runtime exports.
func TestVCONTRACT(t *testing.T) {
	const (
		heap, sm, image, args, aicpu, aicore = 1, 2, 3, 4, 5, 6
		perRun, scratch, exec                = 0, 1, 2
	)
	full := func(c *abi.PipelineContract) {
		c.ResourceCount = 6
		c.Resources = [8]abi.PipelineResource{res(heap, perRun), res(sm, perRun), res(image, perRun), res(args, perRun), res(aicpu, exec), res(aicore, exec)}
	}
	cases := []struct {
		name string
		c    abi.PipelineContract
		ok   bool
	}{
		{"simulated program contract", abi.SimulatedProgramContract(), true},
		{"depth 2", contractWith(func(c *abi.PipelineContract) { c.PipelineDepth = 2 }), true},
		{"streams in the other order", contractWith(func(c *abi.PipelineContract) { c.Resources[0], c.Resources[1] = c.Resources[1], c.Resources[0] }), true},
		{"all six kinds, HOST_PER_RUN arenas", contractWith(full), true},
		{"all six kinds, DEVICE_SCRATCH arenas, depth 2", contractWith(func(c *abi.PipelineContract) {
			full(c)
			c.PipelineDepth = 2
			for i := range 3 {
				c.Resources[i].Class = scratch
			}
		}), true},
		{"scratch and per-run arenas share a copy count at depth 1", contractWith(func(c *abi.PipelineContract) {
			full(c)
			c.Resources[0].Class = scratch
		}), true},
		{"eight resources", contractWith(func(c *abi.PipelineContract) {
			full(c)
			c.ResourceCount = 8
			c.Resources[6], c.Resources[7] = res(args, perRun), res(args, scratch)
		}), true},
		{"undeclared slots are not inspected", contractWith(func(c *abi.PipelineContract) {
			c.Resources[2] = abi.PipelineResource{Kind: 99, Class: 99, BytesPerCopy: 1}
			c.Resources[7] = res(aicpu, perRun)
		}), true},

		{"abi_version 0", contractWith(func(c *abi.PipelineContract) { c.ABIVersion = 0 }), false},
		{"abi_version 2", contractWith(func(c *abi.PipelineContract) { c.ABIVersion = 2 }), false},
		{"resource_count 9", contractWith(func(c *abi.PipelineContract) { c.ResourceCount = 9 }), false},
		{"resource_count max", contractWith(func(c *abi.PipelineContract) { c.ResourceCount = ^uint32(0) }), false},
		{"depth 0", contractWith(func(c *abi.PipelineContract) { c.PipelineDepth = 0 }), false},
		{"depth 3", contractWith(func(c *abi.PipelineContract) { c.PipelineDepth = 3 }), false},
		{"kind 0", contractWith(func(c *abi.PipelineContract) { full(c); c.Resources[3] = res(0, perRun) }), false},
		{"kind 7", contractWith(func(c *abi.PipelineContract) { full(c); c.Resources[3] = res(7, perRun) }), false},
		{"class 3", contractWith(func(c *abi.PipelineContract) { full(c); c.Resources[3].Class = 3 }), false},
		{"bytes_per_copy on an arena (kernel contract shape)", contractWith(func(c *abi.PipelineContract) {
			full(c)
			for i := range 3 {
				c.Resources[i].Class = scratch
				c.Resources[i].BytesPerCopy = 1 << 20
			}
		}), false},
		{"bytes_per_copy on a stream", contractWith(func(c *abi.PipelineContract) { c.Resources[0].BytesPerCopy = 1 }), false},
		{"GM_HEAP twice", contractWith(func(c *abi.PipelineContract) { full(c); c.Resources[1] = res(heap, perRun) }), false},
		{"RUNTIME_IMAGE twice", contractWith(func(c *abi.PipelineContract) { full(c); c.Resources[0] = res(image, perRun) }), false},
		{"arenas with different copy counts at depth 2", contractWith(func(c *abi.PipelineContract) {
			full(c)
			c.PipelineDepth = 2
			c.Resources[1].Class = scratch
		}), false},
		{"no AICPU_STREAM", contractWith(func(c *abi.PipelineContract) { c.Resources[0] = res(args, perRun) }), false},
		{"no AICORE_STREAM", contractWith(func(c *abi.PipelineContract) { c.Resources[1] = res(args, perRun) }), false},
		{"two AICPU_STREAMs", contractWith(func(c *abi.PipelineContract) { c.ResourceCount = 3; c.Resources[2] = res(aicpu, exec) }), false},
		{"two AICORE_STREAMs", contractWith(func(c *abi.PipelineContract) { c.ResourceCount = 3; c.Resources[2] = res(aicore, exec) }), false},
		{"AICPU_STREAM not EXEC_HANDLE", contractWith(func(c *abi.PipelineContract) { c.Resources[0].Class = perRun }), false},
		{"AICORE_STREAM DEVICE_SCRATCH", contractWith(func(c *abi.PipelineContract) { c.Resources[1].Class = scratch }), false},
		{"no resources", contractWith(func(c *abi.PipelineContract) { c.ResourceCount = 0 }), false},
		{"streams outside resource_count", contractWith(func(c *abi.PipelineContract) { c.ResourceCount = 1 }), false},
		{"zero contract", abi.PipelineContract{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := abi.OK
			if !c.ok {
				want = abi.InvalidArgument
			}
			if got := validation.Contract(c.c); got != want {
				t.Errorf("V-CONTRACT Contract = %v, want %v (reason: %v)", got, want, validation.CheckContract(c.c))
			}
			err := validation.CheckContract(c.c)
			if (err == nil) != c.ok {
				t.Errorf("CheckContract = %v", err)
			}
			var ce *validation.ContractError
			if err != nil && (!errors.As(err, &ce) || ce.Reason == "" || ce.Error() == "") {
				t.Errorf("CheckContract error %v is not a *ContractError with a reason", err)
			}
		})
	}
}
