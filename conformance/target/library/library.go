// Package library adapts a runtime library loaded by onboard to the
// engine's Target (Target, Open): any runtime .so, with its simulation
// hooks when it exports them, else an ACL library for the device and
// streams. It is apart from conformance/target (the sim instance) so that
// a package that runs sim alone links no loader.
package library

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/onboard"
)

// onboardACL adapts an onboard.ACL (errors) to the checker's ACL (codes).
type onboardACL struct{ a *onboard.ACL }

// aclGeneric is the code reported for an ACL failure that carries none.
const aclGeneric int32 = 500000

func aclCode(err error) int32 {
	if err == nil {
		return 0
	}
	var e *onboard.ACLError
	if errors.As(err, &e) {
		return e.Code
	}
	return aclGeneric
}

func (x onboardACL) SetDevice(dev int32) int32 { return aclCode(x.a.SetDevice(dev)) }

func (x onboardACL) CreateStream() (abi.Stream, int32) {
	s, err := x.a.CreateStream()
	return s, aclCode(err)
}

func (x onboardACL) SynchronizeStream(s abi.Stream) int32 { return aclCode(x.a.SynchronizeStream(s)) }

func (x onboardACL) DestroyStream(s abi.Stream) int32 { return aclCode(x.a.DestroyStream(s)) }

func (x onboardACL) Malloc(size uintptr) (abi.DevicePtr, int32) {
	p, err := x.a.Malloc(size, 0) // ACL_MEM_MALLOC_HUGE_FIRST, the default policy
	return p, aclCode(err)
}

func (x onboardACL) Free(p abi.DevicePtr) int32 { return aclCode(x.a.Free(p)) }

// CopyToDevice passes len(src) as the destination's capacity: the caller
// copies into an allocation it sized, and DeviceMemory names no capacity.
func (x onboardACL) CopyToDevice(dst abi.DevicePtr, src []byte) int32 {
	return aclCode(x.a.CopyToDevice(dst, uintptr(len(src)), src))
}

func (x onboardACL) CopyFromDevice(dst []byte, src abi.DevicePtr) int32 {
	return aclCode(x.a.CopyFromDevice(dst, src))
}

// ACL adapts an ACL library loaded by onboard.OpenACL.
func ACL(a *onboard.ACL) conformance.ACL { return onboardACL{a} }

// Target assembles a Target from a loaded runtime and, optionally, an
// ACL library: the runtime's hooks when it exports all four, else the ACL
// for the device and streams; the ACL's call counters (the emitted fake ACL
// has them) for D-1; its aclrtMalloc and aclrtMemcpy for the caller's device
// memory.
func Target(lib *onboard.Library, acl *onboard.ACL) *conformance.Basic {
	t := &conformance.Basic{RT: lib}
	if h, ok := lib.Hooks(); ok {
		t.SimHooks = h
		t.SimCtl, _ = lib.Control()
	} else if acl != nil {
		t.ACLib = ACL(acl)
	}
	t.SimTimeout, _ = lib.CommTimeout()
	if acl != nil && acl.HasCounters() {
		t.CountersF = Counters(acl)
	}
	if acl != nil && acl.HasMemory() {
		t.Mem = onboardACL{acl}
	}
	return t
}

// Counters reads the D-1 counters of an ACL library that exports
// them (the emitted fake's simabi_acl_counters).
func Counters(acl *onboard.ACL) func() conformance.ACLCounts {
	return func() conformance.ACLCounts {
		c, _ := acl.Counters()
		return c
	}
}

// Options configure Open.
type Options struct {
	// Preloads are loaded RTLD_GLOBAL before the runtime (onboard.Options).
	Preloads []string
	// ACLPath is the ACL library to use; "" looks for libascendcl.so beside
	// the runtime (an emitted fake's), and, for a runtime without hooks, in
	// the process and the loader's search path.
	ACLPath string
	// TempDir, when set, makes every run use a fresh instance: a private
	// copy of the runtime file in its own directory under TempDir, beside
	// links to the other shared libraries of the runtime's directory (so
	// that $ORIGIN dependencies resolve). Without it every run shares the
	// one loaded instance (its claims and fault sites persist; the runner
	// copes, see Runner).
	TempDir string
	// Binaries are passed for the `bytes` spans of kinit and pinit
	// (Options.Binaries).
	Binaries [4][]byte
	// LogLevel is the host-log threshold bound into the runtime and its
	// preloads (onboard.Options.LogLevel; 0: the default, 25).
	LogLevel abi.LogLevel
	// Callable is the program callable register img=prog passes
	// (Options.Callable).
	Callable []byte
}

// Info is what Open found out about a runtime.
type Info struct {
	Path      string         `json:"path"`
	Revision  string         `json:"revision"`  // "kernel" or "legacy"
	Supported int32          `json:"supported"` // simpler_kernel_mode_supported on a fresh context (0 for legacy)
	Profile   string         `json:"profile"`   // "tmr", "refusing", or "unknown" (legacy, or supported neither 0 nor 1)
	Hooks     bool           `json:"hooks"`     // all four simulation hooks resolved
	ACL       string         `json:"acl"`       // the ACL library in use, "" for none
	Counters  bool           `json:"counters"`  // the ACL has call counters (D-1)
	Caps      catalogue.Caps `json:"caps"`
	// ProfileModel is the profile the model assumes (tmr, refusing, legacy).
	ProfileModel string `json:"profile_model"`
	// BindFindings are rules the library broke while it was bound (a NULL
	// or inadmissible pipeline contract, a NULL context); the suite reports
	// each as a failure.
	BindFindings []onboard.BindFinding `json:"bind_findings,omitempty"`
}

// Library is an opened runtime under test: a Factory of targets over it.
type Library struct {
	Info    Info
	path    string
	opt     Options
	lib     *onboard.Library
	acl     *onboard.ACL
	links   []string // other shared libraries of the runtime's directory
	n       atomic.Int64
	profile model.Profile

	// kept is Reusable's instance: a private copy loaded once and reset
	// before each run; keptClose unloads it.
	kept      conformance.Target
	keptClose func()
}

// Open loads the runtime at path through onboard (binding the kernel
// trio of a refusing build too, so its structural checks can be driven) and
// finds the means to drive it. The error is onboard's *BindError or
// *LoadError for the runtime, or a *LoadError for an ACL library that was
// asked for and does not load.
func Open(path string, o Options) (*Library, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, &onboard.LoadError{Path: path, Step: "open", Err: errors.Unwrap(err)}
	}
	l := &Library{path: abs, opt: o}
	lib, err := onboard.Open(abs, l.onboardOptions())
	if err != nil {
		return nil, err
	}
	l.lib = lib
	if o.ACLPath != "" {
		if l.acl, err = onboard.OpenACL(o.ACLPath); err != nil {
			lib.Close()
			return nil, err
		}
	} else if p := onboard.ACLPathFor(abs); p != onboard.ACLLibraryName {
		l.acl, _ = onboard.OpenACL(p)
	} else if !lib.HasHooks() {
		l.acl, _ = onboard.OpenACL("")
	}
	info := Info{Path: path, Supported: lib.Supported(), Hooks: lib.HasHooks(), BindFindings: lib.BindFindings()}
	if l.acl != nil {
		info.ACL = l.acl.Path()
		info.Counters = l.acl.HasCounters()
	}
	switch {
	case lib.Profile() == abi.ProfileLegacy:
		info.Revision, info.Profile, l.profile = "legacy", "unknown", model.ProfileLegacy
	case lib.Supported() == 1:
		info.Revision, info.Profile, l.profile = "kernel", "tmr", model.ProfileTMR
	case lib.Supported() == 0:
		info.Revision, info.Profile, l.profile = "kernel", "refusing", model.ProfileRefusing
	default:
		// A garbage answer: the model assumes tmr and E-SUP reports it.
		info.Revision, info.Profile, l.profile = "kernel", "unknown", model.ProfileTMR
	}
	info.ProfileModel = l.profile.String()
	info.Caps = conformance.CapsOf(Target(lib, l.acl))
	l.Info = info
	if o.TempDir != "" {
		l.Info.Caps |= catalogue.CapUnload // every run gets a private copy it may unload
		dir := filepath.Dir(abs)
		if ents, err := os.ReadDir(dir); err == nil {
			for _, e := range ents {
				if name := e.Name(); name != filepath.Base(abs) && strings.Contains(name, ".so") && !e.IsDir() {
					l.links = append(l.links, filepath.Join(dir, name))
				}
			}
		}
	}
	return l, nil
}

// onboardOptions are the options every copy of the library is opened with:
// bound for inspection (a bind-time rule break is a finding, not a load
// error) with the kernel trio of a refusing build, so its structural checks
// can be driven.
func (l *Library) onboardOptions() onboard.Options {
	return onboard.Options{Preloads: l.opt.Preloads, LogLevel: l.opt.LogLevel, BindKernelWhenUnsupported: true, Inspect: true}
}

// Options are the runner options the library needs (the legacy profile,
// the binaries).
func (l *Library) Options() conformance.Options {
	opt := conformance.Options{Binaries: l.opt.Binaries, Callable: l.opt.Callable}
	if l.profile == model.ProfileLegacy {
		p := model.ProfileLegacy
		opt.Profile = &p
	}
	return opt
}

// Factory returns targets over the library: fresh copies with
// Options.TempDir, else the one loaded instance.
func (l *Library) Factory() conformance.Factory {
	return func() (conformance.Target, func(), error) {
		if l.opt.TempDir == "" {
			return Target(l.lib, l.acl), nil, nil
		}
		dir := filepath.Join(l.opt.TempDir, fmt.Sprintf("run-%d-%d", os.Getpid(), l.n.Add(1)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, err
		}
		cp := filepath.Join(dir, filepath.Base(l.path))
		if err := copyFileTo(l.path, cp); err != nil {
			os.RemoveAll(dir)
			return nil, nil, err
		}
		for _, p := range l.links {
			_ = os.Symlink(p, filepath.Join(dir, filepath.Base(p)))
		}
		lib, err := onboard.Open(cp, l.onboardOptions())
		if err != nil {
			os.RemoveAll(dir)
			return nil, nil, err
		}
		t := Target(lib, l.acl)
		t.UnloadF = lib.Close // U-1: the private copy is the only reference to it
		return t, func() { lib.Close(); os.RemoveAll(dir) }, nil
	}
}

// Reusable returns a Factory over one private instance of the library,
// loaded on first use and brought back to a fresh load's state before every
// run (simabi_reset): what Factory's fresh copy gives, without copying and
// loading the library per run. It is nil when the library exports no
// control hooks or runs do not get private copies (no TempDir). A run that
// unloads the library (U-1) needs Factory; so does every run after one that
// did not finish (a hang leaves a thread inside the instance).
func (l *Library) Reusable() conformance.Factory {
	if l.opt.TempDir == "" {
		return nil
	}
	if _, ok := l.lib.Control(); !ok {
		return nil
	}
	return func() (conformance.Target, func(), error) {
		if l.kept == nil {
			t, release, err := l.Factory()()
			if err != nil {
				return nil, nil, err
			}
			b := t.(*conformance.Basic)
			b.UnloadF = nil // the instance outlives the run
			l.kept, l.keptClose = b, release
		}
		ctl, _ := l.kept.(conformance.ControlTarget).Control()
		if st := ctl.SimReset(); st != abi.OK {
			return nil, nil, fmt.Errorf("%s returned %v", abi.EntrySimReset, st)
		}
		return l.kept, nil, nil
	}
}

// ReleaseKept resets and unloads the instance Reusable keeps, if any, as
// the start of a run would reset it: the reset releases what the last run
// left in the process and beyond it (the comm family's shared-memory
// segments outlive a process that exits without unloading the library,
// E-COMM.55), so the unload meets a fresh instance (a strict runtime's
// leak check has nothing to find). Reusable loads a new one when called
// again.
func (l *Library) ReleaseKept() {
	if l.keptClose != nil {
		if ctl, ok := l.kept.(conformance.ControlTarget).Control(); ok {
			ctl.SimReset()
		}
		l.keptClose()
		l.kept, l.keptClose = nil, nil
	}
}

// Close unloads the library and its ACL.
func (l *Library) Close() {
	l.ReleaseKept()
	if l.lib != nil {
		l.lib.Close()
	}
	if l.acl != nil {
		l.acl.Close()
	}
}

func copyFileTo(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}
