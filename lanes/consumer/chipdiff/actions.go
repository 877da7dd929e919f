package main

import (
	"fmt"
	"strings"
)

// An action is one named user scenario: the steps a user takes (steps.go),
// performed alike by upstream's ChipWorker (../actions.cpp) and by
// lifecycle.Worker, each over the recording runtime over the same legacy
// fake. Base are the fake's knobs for every variant of the action
// (poll_pending=1 makes the first poll of a launched run answer not ready,
// as upstream's simulator does, so that both consumers take their in-flight
// path).
type action struct {
	name  string
	steps []string
	base  []string
}

func act(name, steps string, base ...string) action {
	return action{name: name, steps: strings.Fields(steps), base: base}
}

const inFlight = "poll_pending=1"

// actions are the differential's user actions. Every action ends with
// finalize (or never initializes), since a ChipWorker destroyed while
// initialized finalizes itself and a lifecycle.Worker does not (it has no
// destructor; Close is explicit).
var actions = []action{
	// Init, its inputs and its refusals.
	act("init-finalize", "init finalize"),
	act("init-no-binaries", "init:nobins finalize"),
	act("init-dispatcher", "init:disp finalize"),
	act("init-prewarm", "init:prewarm finalize"),
	act("init-bad-prewarm", "init:badprewarm finalize"),
	act("init-sdma", "init:sdma finalize"),
	act("init-sdma-warmup", "init:sdma,warmup finalize"),
	act("init-negative-device", "init:dev=-1 finalize"),
	act("init-twice", "init init finalize"),
	act("init-retry", "init:prewarm init finalize"),
	act("finalize-twice", "init finalize finalize"),
	act("finalize-without-init", "finalize"),
	act("init-after-finalize", "init finalize init finalize"),
	act("reinit", "init register=0 finalize new init register=0 malloc run=0 free finalize"),
	act("ops-before-init", "register=0 unregister=0 malloc run=0 committed finalize"),
	act("ops-after-finalize", "init finalize register=0 malloc run=0 committed"),
	act("committed", "init committed malloc committed free finalize"),
	// Registration.
	act("register-unregister", "init register=0 unregister=0 finalize"),
	act("register-then-finalize", "init register=0 register=1 finalize"),
	act("register-duplicate", "init register=0 register=0 finalize"),
	act("register-id-63", "init register=63 unregister=63 finalize"),
	act("register-id-64", "init register=64 finalize"),
	act("register-negative-id", "init register=-1 finalize"),
	act("register-malformed-image", "init register=0:malformed finalize"),
	act("register-trailing-byte", "init register=0:trailing unregister=0 finalize"),
	act("unregister-never-registered", "init unregister=5 finalize"),
	// Device memory.
	act("malloc-copy-free", "init malloc copy free finalize"),
	act("malloc-zero", "init malloc0 finalize"),
	act("copy-to-null", "init malloc copy_to0 free finalize"),
	// Runs.
	act("register-then-run", "init register=0 malloc copy run=0 free unregister=0 finalize"),
	act("run-twice", "init register=0 malloc run=0 run=0 free finalize"),
	act("run-in-flight", "init register=0 malloc run=0 run=0 free finalize", inFlight),
	act("run-unregistered-id", "init malloc run=5 free finalize"),
	act("run-after-unregister", "init register=0 unregister=0 malloc run=0 free finalize"),
	act("run-wrong-tensor-count", "init register=0 malloc run=0:one run=0 free finalize"),
	act("run-without-args", "init register=0 run=0:nil finalize"),
	act("run-bad-config", "init register=0 malloc run=0:badcfg run=0 free finalize"),
	act("run-diagnostics-without-prefix", "init register=0 malloc run=0:diag free finalize"),
	act("unregister-then-finalize-after-run", "init register=0 malloc run=0 unregister=0 free finalize"),
	// The native phases.
	act("native-phases", "init register=0 malloc prepare=0 launch poll wait poll finrun free finalize"),
	act("native-phases-in-flight", "init register=0 malloc prepare=0 launch poll wait poll finrun free finalize", inFlight),
	act("native-finalize-launched", "init register=0 malloc prepare=0 launch finrun free finalize", inFlight),
	act("native-finalize-unlaunched", "init register=0 malloc prepare=0 finrun free finalize"),
	act("native-stale-token", "init register=0 malloc prepare=0 finrun launch poll wait finrun free finalize"),
	act("native-launch-twice", "init register=0 malloc prepare=0 launch launch finrun free finalize"),
	act("native-poll-before-launch", "init register=0 malloc prepare=0 poll wait finrun free finalize"),
	act("native-prepare-twice", "init register=0 malloc prepare=0 prepare=0:gen=2 finrun free finalize"),
	act("native-stale-generation", "init register=0 malloc prepare=0:gen=3 finrun prepare=0:gen=2 prepare=0:gen=3 finrun free finalize"),
	act("native-zero-generation", "init register=0 malloc prepare=0:gen=0 prepare=0:slot=1 free finalize"),
	act("native-run-while-prepared", "init register=0 malloc prepare=0 run=0 finrun run=0 free finalize"),
	act("native-outstanding-at-finalize", "init register=0 malloc prepare=0 launch finalize", inFlight),
	act("native-prepared-at-finalize", "init register=0 malloc prepare=0 finalize"),
	act("native-unregistered-id", "init malloc prepare=5 launch finrun free finalize"),
	act("native-before-init", "prepare=0 launch poll wait finrun finalize"),
	// Both slots of a depth-2 contract, one run after the other (slot 1 is
	// past the depth at depth 1), and a second run staged beside a launched
	// one, which ChipWorker refuses where the runtime grants no concurrent
	// prepare (the fake answers 0, as upstream's simulator does).
	act("native-two-slots", "init register=0 malloc prepare=0:slot=1 launch poll wait finrun prepare=0:gen=2 launch poll wait finrun free finalize", inFlight),
	act("native-successor-refused", "init register=0 malloc prepare=0 launch prepare=0:slot=1 wait finrun free finalize", inFlight),
}

// checkActions reports an action table that breaks its own rules: a unique
// name, known steps, and no worker left initialized at the end or replaced
// while initialized.
func checkActions(as []action) error {
	seen := map[string]bool{}
	for _, a := range as {
		if seen[a.name] {
			return fmt.Errorf("action %s is listed twice", a.name)
		}
		seen[a.name] = true
		initialized := false
		for _, s := range a.steps {
			head, _, _ := strings.Cut(s, ":")
			head, _, _ = strings.Cut(head, "=")
			known := false
			for _, h := range stepHeads {
				known = known || h == head
			}
			if !known {
				return fmt.Errorf("action %s: unknown step %s", a.name, s)
			}
			switch head {
			case "init":
				initialized = true
			case "finalize":
				initialized = false
			case "new":
				if initialized {
					return fmt.Errorf("action %s: new while the worker may be initialized (finalize it first)", a.name)
				}
			}
		}
		if initialized {
			return fmt.Errorf("action %s: ends with the worker initialized (end with finalize)", a.name)
		}
	}
	return nil
}

func findAction(name string) (action, bool) {
	for _, a := range actions {
		if a.name == name {
			return a, true
		}
	}
	return action{}, false
}
