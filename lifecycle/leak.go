package lifecycle

import (
	"sync"
	"sync/atomic"
)

// C-GEN: context generations come from one process-wide counter.
var generations atomic.Uint64

// NextGeneration returns the next context generation of the process: 1, 2,
// 3, ... (C-GEN). Init uses it when InitConfig.Generation is 0; a caller that
// mints its own generations may use it too.
func NextGeneration() uint64 { return generations.Add(1) }

// runEpochs numbers program-mode native runs (NativeRunDescriptor.run_epoch)
// across the process.
var runEpochs atomic.Uint64

// C-LEAK: the process-wide list of native state found unreachable without a
// successful Close. It is only ever appended to.
var (
	pinnedMu sync.Mutex
	pinned   []*native
)

// PinnedWorkers is the number of workers the garbage collector found without
// a successful Close (C-LEAK). Their native state (runtime, context, images)
// is pinned in a process-wide list for the life of the process; nothing ever
// finalizes it.
func PinnedWorkers() int {
	pinnedMu.Lock()
	defer pinnedMu.Unlock()
	return len(pinned)
}

// pinUnclosed is the cleanup of a Worker (runtime.AddCleanup). It receives the
// native state, never the Worker, and calls nothing of the runtime: it runs on
// the cleanup goroutine, on an arbitrary OS thread and without the caller's
// quiescence, where a finalize_device would be wrong (C-LEAK, C-THREAD).
func pinUnclosed(n *native) {
	pinnedMu.Lock()
	pinned = append(pinned, n)
	pinnedMu.Unlock()
	n.log.Warn("lifecycle: Worker was garbage-collected without Close; its native context is intentionally leaked and pinned for the life of the process (C-LEAK)",
		"mode", n.mode.String(), "device", n.device, "runtime", n.runtimeName, "ctx", uint64(n.ctx))
}
