package tests

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/validation"
)

// FuzzImageCAgainstGo feeds the same bytes to the emitted runtime's image
// check (check_image in sim/emit/templates/runtime.c.tmpl, reached through
// simpler_kernel_mode_prepare_callable of a tmr fake loaded with onboard)
// and to validation.Image, and fails on any disagreement (V-IMG, V-PREP-2,
// E-PREP).
//
// Each input is copied into a fresh 16-byte-aligned span of exactly
// len(data) bytes (cap == len) and prepared with size = len(data) on a kernel
// context of the process's one emitted instance. What prepare must answer
// follows from E-PREP's order of checks (preparePrediction): a size below 9376
// is INVALID_ARGUMENT by V-PREP-2 before V-IMG (validation.Image says
// INVALID_ARGUMENT for it too, step 1); a size above the 2 GiB byte budget is
// CALLABLE_BYTES_EXCEEDED before V-IMG; anything else is what validation.Image
// says, OK or INVALID_ARGUMENT. The span is always aligned and never NULL for
// a nonempty input, so V-PREP-2's other refusals do not apply. The context is
// re-used while it has room: before every prepare that could be charged, a
// mirror of M-4 (8192 residents) and M-5 (2 GiB of 2 MiB blocks, first fit)
// says whether the image would fit, and if not the context is finalized,
// destroyed and replaced by a fresh kernel-initialized one, so a capacity code
// never stands in for V-IMG's answer. A capacity code the mirror did not
// predict, an id that is not the next dense id (M-1) or not -1 on failure
// (V-PREP-1), and any context that stops taking prepares fail the input too.
//
// Seeds: testdata/fuzz/FuzzImageCAgainstGo holds a copy of validation's
// FuzzImage corpus and canonical images built with abi.ChipCallableSpec
// (imagefuzz_seeds_test.go writes and checks them). Without a C compiler the
// target skips. The body passes t to nothing but its own methods, and every
// helper it calls is in this file or in targets_test.go, so that a libFuzzer
// build (go-118-fuzz-build, docs/fuzzing.md) can compile it.
func FuzzImageCAgainstGo(f *testing.F) {
	if _, err := buildEmitted(imageChecker.config); errors.Is(err, emit.ErrNoCompiler) {
		f.Skip("sim/emit: ", err)
	}
	f.Cleanup(imageChecker.close)
	f.Fuzz(func(t *testing.T, data []byte) {
		if msg := imageChecker.check(data); msg != "" {
			t.Fatalf("%s", msg)
		}
	})
}

// check runs one input through both sides and returns "" when they agree,
// else the disagreement.
func (c *cImageCheck) check(data []byte) string {
	img := abi.AlignedBytes(len(data), abi.CallableChildAlign)
	copy(img, data)
	want, verdict, report := preparePrediction(img)
	res, err := c.prepare(img)
	if err != nil {
		return fmt.Sprintf("input of %d bytes: %v", len(img), err)
	}
	if res.st != want {
		return fmt.Sprintf("input of %d bytes: C prepare = %v, validation.Image = %v (prepare must answer %v); Go: %s%s",
			len(img), res.st, verdict, want, report, res.capacityNote())
	}
	if msg := res.idDefect(); msg != "" {
		return fmt.Sprintf("input of %d bytes: prepare = %v: %s", len(img), res.st, msg)
	}
	return ""
}

// imageFuzzDevice is the device of the checker's contexts. The instance is a
// private copy of the library, so its device claims (E-CLAIM) are its own.
const imageFuzzDevice = 0

// preparePrediction is what prepare must return for img (16-byte aligned,
// size len(img)) on a kernel context with room, by E-PREP's order: V-PREP-2
// (size below 9376: INVALID_ARGUMENT), the size check against the byte budget
// (CALLABLE_BYTES_EXCEEDED), then V-IMG. It also returns validation.Image's
// verdict and the first defect Go reports, for the failure message.
func preparePrediction(img []byte) (want, verdict abi.Status, report string) {
	verdict = validation.Image(img)
	var addr uintptr
	if len(img) > 0 {
		addr = uintptr(unsafe.Pointer(unsafe.SliceData(img)))
	}
	r := validation.CheckImageAt(addr, img)
	report = "V-IMG passes"
	if r.Defect != validation.DefectNone {
		report = r.Error()
	}
	switch {
	case len(img) < abi.ChipCallableSize:
		return abi.InvalidArgument, verdict, report // V-PREP-2, before V-IMG
	case uint64(len(img)) > abi.KernelCodeBudget:
		return abi.CallableBytesExceeded, verdict, report // E-PREP step 6, before V-IMG
	}
	return verdict, verdict, report
}

// imageChecker is the process's C side: one emitted tmr instance, opened at
// the first input, and one kernel context re-used while it has room.
var imageChecker = &cImageCheck{config: emit.Config{Profile: emit.ProfileTMR}}

// cImageCheck drives prepare on one context and mirrors the context's
// capacity (M-4, M-5) to replace it before a prepare could hit a limit.
type cImageCheck struct {
	config  emit.Config // the emitted build: tmr (a mutant in the target's own test)
	mu      sync.Mutex
	lib     abi.Runtime
	hooks   abi.SimHooks
	release func()
	err     error // a failed open, reported for every later input

	cfg []byte // the zero CallConfig, valid for kernel init (V-CFG)
	id  *int32 // prepare's out_callable_id, kept on the heap for the calls

	ctx        abi.Ctx
	contexts   int // kernel contexts made so far
	generation uint64
	residents  int      // ids published on ctx (M-1: the next id)
	blocks     []uint64 // used bytes of each code block of ctx (M-5)
	blockSize  []uint64
	allocated  uint64
}

// prepared is one prepare's answer and the context it ran on.
type prepared struct {
	st        abi.Status
	id        int32 // what prepare wrote through out_callable_id
	next      int32 // the context's next dense id before the call (M-1)
	residents int   // before the call
	allocated uint64
}

// idDefect checks the id prepare wrote: -1 on failure (V-PREP-1), the
// context's next dense id on success (M-1).
func (p prepared) idDefect() string {
	switch {
	case p.st != abi.OK && p.id != -1:
		return fmt.Sprintf("out_callable_id = %d, want -1 (V-PREP-1)", p.id)
	case p.st == abi.OK && p.id != p.next:
		return fmt.Sprintf("out_callable_id = %d, want %d (M-1)", p.id, p.next)
	}
	return ""
}

// capacityNote explains a capacity code: the C side passed V-IMG (E-PREP
// checks the count and the budget after it) on a context the mirror of M-4
// and M-5 said had room.
func (p prepared) capacityNote() string {
	if p.st != abi.CallableCountExceeded && p.st != abi.CallableBytesExceeded {
		return ""
	}
	return fmt.Sprintf(" (a capacity code: the C check passed V-IMG, on a context holding %d residents in %d bytes of code blocks, which M-4/M-5 say had room)",
		p.residents, p.allocated)
}

// prepare runs simpler_kernel_mode_prepare_callable over img, size
// len(img), on a context with room for it. The calling goroutine is locked
// to its OS thread for the call, with the thread's current device set to the
// context's (D-2) and cleared again afterwards.
func (c *cImageCheck) prepare(img []byte) (prepared, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.openLocked(); err != nil {
		return prepared{}, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c.hooks.SimSetCurrentDevice(imageFuzzDevice)
	defer c.hooks.SimSetCurrentDevice(-1)
	size := uint64(len(img))
	if c.ctx == 0 || (size >= abi.ChipCallableSize && size <= abi.KernelCodeBudget && !c.fits(size)) {
		if err := c.resetLocked(); err != nil {
			return prepared{}, err
		}
	}
	p := prepared{next: int32(c.residents), residents: c.residents, allocated: c.allocated}
	*c.id = 0x5eed
	p.st = c.lib.KernelModePrepareCallable(c.ctx, abi.Ptr(img), uintptr(len(img)), c.id)
	p.id = *c.id
	if p.st == abi.OK {
		c.charge(size)
	}
	return p, nil
}

// openLocked opens the process's instance once: a private copy of the
// emitted tmr build (targets_test.go), loaded through onboard.
func (c *cImageCheck) openLocked() error {
	if c.lib != nil || c.err != nil {
		return c.err
	}
	c.err = func() error {
		a, err := buildEmitted(c.config)
		if err != nil {
			return err
		}
		e, err := newEmittedRuntime(a)
		if err != nil {
			return err
		}
		tg, release, err := e.open()
		if err != nil {
			return err
		}
		b, ok := tg.(*conformance.Basic)
		if !ok || b.SimHooks == nil {
			release()
			return fmt.Errorf("the emitted instance has no simulation hooks")
		}
		c.lib, c.hooks, c.release = b.RT, b.SimHooks, release
		return nil
	}()
	if c.err == nil {
		var cfg abi.CallConfig
		c.cfg, c.id = cfg.Bytes(), new(int32)
	}
	return c.err
}

// resetLocked finalizes and destroys the current context, if any, and makes
// a fresh kernel-initialized one. The caller holds the OS thread with the
// device set.
func (c *cImageCheck) resetLocked() error {
	if err := c.dropContextLocked(); err != nil {
		return err
	}
	ctx := c.lib.CreateDeviceContext()
	if ctx == 0 {
		return errors.New("create_device_context returned NULL")
	}
	c.generation++
	if st := c.lib.KernelModeInit(ctx, imageFuzzDevice, nil, 0, nil, 0, nil, 0, abi.Ptr(c.cfg), c.generation); st != abi.OK {
		c.lib.FinalizeDevice(ctx)
		c.lib.DestroyDeviceContext(ctx)
		return fmt.Errorf("kernel init of a fresh context = %v", st)
	}
	c.ctx = ctx
	c.contexts++
	c.residents, c.blocks, c.blockSize, c.allocated = 0, c.blocks[:0], c.blockSize[:0], 0
	return nil
}

// dropContextLocked finalizes and destroys the current context.
func (c *cImageCheck) dropContextLocked() error {
	if c.ctx == 0 {
		return nil
	}
	ctx := c.ctx
	c.ctx = 0
	st := c.lib.FinalizeDevice(ctx)
	c.lib.DestroyDeviceContext(ctx)
	if st != abi.OK {
		return fmt.Errorf("finalize of a context holding %d residents = %v", c.residents, st)
	}
	return nil
}

// close drops the context and unloads the instance (the fuzz target's
// cleanup: after the seeds in `go test`).
func (c *cImageCheck) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lib == nil {
		c.err = nil
		return
	}
	runtime.LockOSThread()
	c.hooks.SimSetCurrentDevice(imageFuzzDevice)
	_ = c.dropContextLocked()
	c.hooks.SimSetCurrentDevice(-1)
	runtime.UnlockOSThread()
	c.release()
	c.lib, c.hooks, c.release, c.err = nil, nil, nil, nil
}

// fits is M-4 and M-5 for one more prepare of size bytes on the context:
// fewer than 8192 residents, and a block for its charge (a small image goes
// first fit into a 2 MiB block's free tail or a new 2 MiB block; a larger
// one gets a block of exactly its charge) within the 2 GiB budget.
func (c *cImageCheck) fits(size uint64) bool {
	if c.residents >= abi.MaxRegisteredCallableIDs {
		return false
	}
	_, ok := c.place(size)
	return ok
}

// place is where a charge for size bytes goes: the index of a block, or
// len(c.blocks) for a new one; false when the budget cannot take it.
func (c *cImageCheck) place(size uint64) (int, bool) {
	charge := abi.KernelCharge(size)
	if size <= abi.KernelCodeBlockBytes {
		for i := range c.blocks {
			if c.blockSize[i]-c.blocks[i] >= charge {
				return i, true
			}
		}
		return len(c.blocks), c.allocated+abi.KernelCodeBlockBytes <= abi.KernelCodeBudget
	}
	return len(c.blocks), c.allocated+charge <= abi.KernelCodeBudget
}

// charge books a successful prepare of size bytes.
func (c *cImageCheck) charge(size uint64) {
	c.residents++
	i, _ := c.place(size)
	if i == len(c.blocks) {
		bs := abi.KernelCharge(size)
		if size <= abi.KernelCodeBlockBytes {
			bs = abi.KernelCodeBlockBytes
		}
		c.blocks, c.blockSize = append(c.blocks, 0), append(c.blockSize, bs)
		c.allocated += bs
	}
	c.blocks[i] += abi.KernelCharge(size)
}
