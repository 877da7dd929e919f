package onboard

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/simabi/simabi/abi"
)

// dlopen modes.
const (
	runtimeMode = purego.RTLD_NOW | purego.RTLD_LOCAL
	globalMode  = purego.RTLD_NOW | purego.RTLD_GLOBAL
)

// dlsym resolves name in handle, or returns 0.
func dlsym(handle uintptr, name string) uintptr {
	p, err := purego.Dlsym(handle, name)
	if err != nil {
		return 0
	}
	return p
}

// hostLogStates holds every SimplerHostLogState onboard ever bound, one
// 16-byte block per distinct value, for the life of the process: a runtime
// may keep the pointer it was given (the state is process-owned), so the
// blocks are never freed. They live on the Go heap, which does not move.
var hostLogStates struct {
	sync.Mutex
	m map[abi.HostLogState]*[abi.HostLogStateSize]byte
}

// hostLogState returns the process-owned block holding s (the default state
// when s is the zero value).
func hostLogState(s abi.HostLogState) *[abi.HostLogStateSize]byte {
	if s == (abi.HostLogState{}) {
		s = abi.DefaultHostLogState()
	}
	hostLogStates.Lock()
	defer hostLogStates.Unlock()
	if p, ok := hostLogStates.m[s]; ok {
		return p
	}
	if hostLogStates.m == nil {
		hostLogStates.m = make(map[abi.HostLogState]*[abi.HostLogStateSize]byte)
	}
	p := new([abi.HostLogStateSize]byte)
	_ = s.Encode(p[:])
	hostLogStates.m[s] = p
	return p
}

// bindHostLog calls simpler_host_log_bind_state(state).
func bindHostLog(fn uintptr, state *[abi.HostLogStateSize]byte) abi.Status {
	r1 := call1(fn, uintptr(unsafe.Pointer(state)))
	return abi.Status(int32(r1))
}

// preloads is the process registry of RTLD_GLOBAL companion libraries: each
// path is loaded once and never closed (upstream's ChipWorker keeps its sim
// context the same way).
var preloads struct {
	sync.Mutex
	m map[string]uintptr
}

// preload loads path RTLD_NOW|RTLD_GLOBAL unless it is loaded already, and
// binds the host-log state when the library exports the binder.
func preload(path string, state *[abi.HostLogStateSize]byte) error {
	preloads.Lock()
	defer preloads.Unlock()
	if _, ok := preloads.m[path]; ok {
		return nil
	}
	h, err := dlopen(path, globalMode)
	if err != nil {
		return &LoadError{Path: path, Step: "dlopen (preload, RTLD_GLOBAL)", Err: err}
	}
	if fn := dlsym(h, abi.EntryHostLogBindState.Name()); fn != 0 {
		if st := bindHostLog(fn, state); st != abi.OK {
			_ = dlclose(h)
			return &LoadError{Path: path, Step: abi.EntryHostLogBindState.Name() + " (preload)", Status: st}
		}
	}
	if preloads.m == nil {
		preloads.m = make(map[string]uintptr)
	}
	preloads.m[path] = h
	return nil
}

// Preloaded reports whether path was loaded as a preload in this process.
func Preloaded(path string) bool {
	preloads.Lock()
	defer preloads.Unlock()
	_, ok := preloads.m[path]
	return ok
}

// LoadError is a load that failed at one step: dlopen (Err holds dlerror's
// text), the host-log binding (Status holds its code), creating the probe
// context, or the PipelineContract (Err wraps the validation.ContractError).
type LoadError struct {
	Path   string
	Step   string
	Status abi.Status // nonzero when the step was a call that returned a status
	Err    error
}

func (e *LoadError) Error() string {
	path := e.Path
	if path == "" {
		path = `""`
	}
	switch {
	case e.Err != nil:
		// dlerror's text opens with the path again: name it once.
		msg := e.Err.Error()
		if e.Path != "" {
			msg = strings.TrimPrefix(msg, e.Path+": ")
		}
		return fmt.Sprintf("onboard: %s: %s: %s", path, e.Step, msg)
	case e.Status != abi.OK:
		// A load-time call's code is what it is: -1 from a binder is not a
		// device-latched code, so only host-band codes get a name.
		code := strconv.Itoa(int(e.Status))
		if e.Status.IsHostBand() && e.Status.Name() != "" {
			code += " (" + e.Status.Name() + ")"
		}
		return fmt.Sprintf("onboard: %s: %s returned %s", path, e.Step, code)
	default:
		return fmt.Sprintf("onboard: %s: %s failed", path, e.Step)
	}
}

func (e *LoadError) Unwrap() error { return e.Err }

// dlopen is purego.Dlopen held on one OS thread: dlerror's text is per
// thread, and a goroutine moved between the failed dlopen and purego's
// dlerror reads another thread's (often none).
func dlopen(path string, mode int) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlopen(path, mode)
}

// dlclose is purego.Dlclose held on one OS thread, for the same reason.
func dlclose(h uintptr) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlclose(h)
}
