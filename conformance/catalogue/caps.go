package catalogue

import (
	"strings"

	"github.com/simabi/simabi/abi"
)

// Caps is what a target lets a checker drive (conformance.CapsOf derives
// a target's; a check's "needs:" header names what it needs).
type Caps uint16

// Capabilities.
const (
	CapSetDevice   Caps = 1 << iota // set the calling thread's device (hook or ACL)
	CapClearDevice                  // leave the thread with no device (hook only)
	CapGetDevice                    // read the thread's device (hook)
	CapSync                         // synchronize a stream (hook or ACL)
	CapInject                       // fault injection (hook)
	CapCounters                     // ACL call counters (D-1)
	CapDriven                       // stream completion is driven by the checker (hooks)
	CapUnload                       // the instance can be unloaded (a private copy of a library; U-1)
	CapGate                         // park a prepare holding its gate and see who waits (control hooks)
	CapReset                        // return the instance to a fresh load's state (control hooks)
	CapComm                         // the simulated comm backend (hooks, or no ACL given: not HCCL)
	CapPeek                         // a comm entry's pointee is readable (hooks)
	CapCommTimeout                  // the comm timeout can be shortened (E-COMM.9, .21, .29, .34, .59)
)

// capNames are each capability's names, in the order of the bits (entry
// i is 1<<i): in a check's "needs:" header, and in a report (Text).
var capNames = [...]struct{ header, report string }{
	{"setdev", "set-device"}, {"cleardev", "clear-device"}, {"getdev", "current-device"},
	{"sync", "sync-stream"}, {"inject", abi.EntrySimInject.Name()}, {"counters", "ACL counters"},
	{"driven", "driven stream completion (hooks)"}, {"unload", "unloading a private copy"},
	{"gate", abi.EntrySimHoldGate.Name()}, {"reset", abi.EntrySimReset.Name()},
	{"comm", "the simulated comm backend"}, {"peek", "reading a CommContext (hooks)"},
	{"commtimeout", abi.EntrySimCommTimeout.Name()},
}

// capNamed is the capability a "needs:" header calls name.
func capNamed(name string) (Caps, bool) {
	for i, n := range capNames {
		if n.header == name {
			return 1 << i, true
		}
	}
	return 0, false
}

// Text names the capabilities of c as a report does.
func (c Caps) Text() string {
	var parts []string
	for i, n := range capNames {
		if c&(1<<i) != 0 {
			parts = append(parts, n.report)
		}
	}
	return strings.Join(parts, ", ")
}

// Has reports whether every capability of need is present.
func (c Caps) Has(need Caps) bool { return c&need == need }
