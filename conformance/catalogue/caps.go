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

// capNames are the capabilities' names in a "needs:" header.
var capNames = map[string]Caps{
	"setdev": CapSetDevice, "cleardev": CapClearDevice, "getdev": CapGetDevice, "sync": CapSync,
	"inject": CapInject, "counters": CapCounters, "driven": CapDriven, "unload": CapUnload,
	"gate": CapGate, "reset": CapReset, "comm": CapComm, "peek": CapPeek, "commtimeout": CapCommTimeout,
}

// capWords are the capabilities' names in a report, in this order.
var capWords = []struct {
	c    Caps
	name string
}{{CapSetDevice, "set-device"}, {CapClearDevice, "clear-device"}, {CapGetDevice, "current-device"},
	{CapSync, "sync-stream"}, {CapInject, abi.EntrySimInject.Name()}, {CapCounters, "ACL counters"},
	{CapDriven, "driven stream completion (hooks)"}, {CapUnload, "unloading a private copy"},
	{CapGate, abi.EntrySimHoldGate.Name()}, {CapReset, abi.EntrySimReset.Name()}, {CapComm, "the simulated comm backend"},
	{CapPeek, "reading a CommContext (hooks)"}, {CapCommTimeout, abi.EntrySimCommTimeout.Name()}}

// Text names the capabilities of c as a report does.
func (c Caps) Text() string {
	var parts []string
	for _, x := range capWords {
		if c&x.c != 0 {
			parts = append(parts, x.name)
		}
	}
	return strings.Join(parts, ", ")
}

// Has reports whether every capability of need is present.
func (c Caps) Has(need Caps) bool { return c&need == need }
