package conformance_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim"
)

// probeReads is each probe op of pc with what it reads: "op  <- survivor".
func probeReads(pc conformance.ProbeCase) []string {
	var out []string
	for i := pc.At + 1; i < len(pc.Ops); i++ {
		out = append(out, strings.TrimSpace(op.FormatOps(pc.Ops[i:i+1]))+"  <- "+string(pc.ReadAt(i)))
	}
	return out
}

// The probes after an injected failure at each fault site (abi.md
// "Fault sites of simabi_inject") and after each class of refusal read
// every survivor the contract names: committed memory, the latch both ways
// (L-2.2, L-2.3, L-3), the attachment (E-PINIT.11, E-FIN.7), the phase and
// the next id (K-1, M-1), the next init of the same mode (K-2.2,
// E-KINIT.6), the quarantine (D-4.2) and the claim (E-CLAIM, D-4.4). The
// list is asserted exactly, and every probe passes on sim (the model's
// prediction of each survivor is the contract's).
func TestProbesReadEverySurvivor(t *testing.T) {
	// kernelDev0: the probes of kernel context c on device 0, whose next
	// prepare reads prep (the phase, or in Collecting and ReadyEnqueued the
	// next id too), and which launch each id it published.
	kernelDev0 := func(c string, prep conformance.Survivor, launches ...string) []string {
		launch := conformance.ReadsPhaseByID
		if prep == conformance.ReadsNextID {
			launch = conformance.ReadsResident
		}
		out := []string{
			"committed " + c + "  <- " + string(conformance.ReadsCommitted),
			"setdev 0  <- " + string(conformance.SetsDevice),
			"prepare " + c + " img=valid(x=99)  <- " + string(prep),
		}
		for _, l := range launches {
			out = append(out, l+"  <- "+string(launch))
		}
		return append(out,
			"kinit "+c+" dev=0 gen=97  <- "+string(conformance.ReadsSameMode),
			"pinit "+c+" dev=7  <- "+string(conformance.ReadsOtherMode),
			"create c15  <- "+string(conformance.CreatesContext),
			"kinit c15 dev=0 gen=97  <- "+string(conformance.ReadsClaim))
	}
	tests := []struct {
		what  string // the fault site or refusal class
		check string
		at    int // the failed or refused op
		want  []string
	}{
		// Site 1: the init rolled back to New, init failed (K-7.1): still
		// kernel-latched (L-3.2), a kernel init answers IS (E-KINIT.6), the
		// claim is free again.
		{"site 1", "k-7/init-rollback", 3, kernelDev0("c0", conformance.ReadsPhase)},
		// Site 2: clean, nothing charged or minted (M-3): the next prepare
		// mints id 1.
		{"site 2", "m-3/failures-mint-nothing", 6, kernelDev0("c0", conformance.ReadsNextID, "launch c0 id=0 stream=s0")},
		// Site 3 and 4: Poisoned (K-4): dispatch refused, latch and claim kept.
		{"site 3", "k-4/registration-poisons", 5, kernelDev0("c0", conformance.ReadsPhase, "launch c0 id=0 stream=s0")},
		{"site 4", "k-4/enqueue-poisons", 5, kernelDev0("c0", conformance.ReadsPhase, "launch c0 id=0 stream=s0")},
		// Site 5: Closing (K-5.3), the claim kept for the retry.
		{"site 5", "k-5/close-failure-is-returned", 5, kernelDev0("c0", conformance.ReadsPhase, "launch c0 id=0 stream=s0")},
		// Site 6: quarantined (D-4): not dispatched; finalize answers IS and
		// the claim is kept.
		{"site 6", "d-4/quarantine", 5, []string{
			"committed c0  <- " + string(conformance.ReadsCommitted),
			"setdev 0  <- " + string(conformance.SetsDevice),
			"kinit c0 dev=0 gen=97  <- " + string(conformance.ReadsSameMode),
			"pinit c0 dev=7  <- " + string(conformance.ReadsOtherMode),
			"finalize c0  <- " + string(conformance.ReadsQuarantine),
			"create c15  <- " + string(conformance.CreatesContext),
			"kinit c15 dev=0 gen=97  <- " + string(conformance.ReadsClaim),
		}},
		// Site 8: the synchronize that delivers the failure changes no
		// context (E-LAUNCH-ASYNC.4): the one that launched on s0 is read.
		{"site 8", "e-launch-async/delivered-once", 7, kernelDev0("c0", conformance.ReadsNextID, "launch c0 id=0 stream=s0")},
		// Site 9: the rollback failed, Closing (K-7.2).
		{"site 9", "k-7/init-rollback", 15, []string{
			"committed c2  <- " + string(conformance.ReadsCommitted),
			"setdev 1  <- " + string(conformance.SetsDevice),
			"prepare c2 img=valid(x=99)  <- " + string(conformance.ReadsPhase),
			"kinit c2 dev=1 gen=97  <- " + string(conformance.ReadsSameMode),
			"pinit c2 dev=7  <- " + string(conformance.ReadsOtherMode),
			"create c15  <- " + string(conformance.CreatesContext),
			"kinit c15 dev=1 gen=97  <- " + string(conformance.ReadsClaim),
		}},
		// Site 10: detached, still program-latched (E-FIN.7, L-3.4).
		{"site 10", "e-fin/program-teardown-failure", 3, []string{
			"committed c0  <- " + string(conformance.ReadsCommitted),
			"setdev 7  <- " + string(conformance.SetsDevice),
			"kinit c0 dev=7 gen=97  <- " + string(conformance.ReadsOtherMode),
			"pinit c0 dev=7  <- " + string(conformance.ReadsAttachment),
			"finalize c0  <- " + string(conformance.ClosesProbe),
		}},
		// A refusal of a kernel context's entry: the latch stays (L-2.2).
		{"refused pinit on a kernel context", "l-3/latch-survives-poison", 6, kernelDev0("c0", conformance.ReadsPhase, "launch c0 id=0 stream=s0")},
		// A refusal before the latch: still unlatched (L-4.2).
		{"refused pinit before the latch", "e-pinit/arguments", 1, []string{
			"committed c0  <- " + string(conformance.ReadsCommitted),
			"setdev 7  <- " + string(conformance.SetsDevice),
			"kinit c0 dev=7 gen=97  <- " + string(conformance.ReadsFreeLatch),
			"finalize c0  <- " + string(conformance.ClosesProbe),
		}},
		// A refused destroy of an attached program context: its memory, run,
		// attachment and latch (E-DESTROY.3).
		{"refused destroy of a program context", devCheck, 10, []string{
			"committed c0  <- " + string(conformance.ReadsCommitted),
			"dev_read c0 a=0  <- " + string(conformance.ReadsAllocation),
			"dev_read c0 a=1  <- " + string(conformance.ReadsAllocation),
			"launch_run c0 st=0  <- " + string(conformance.ReadsRun),
			"wait_run c0 st=0  <- " + string(conformance.ReadsRun),
			"pinit c0 dev=7  <- " + string(conformance.ReadsAttached),
			"setdev 7  <- " + string(conformance.SetsDevice),
			"kinit c0 dev=7 gen=97  <- " + string(conformance.ReadsOtherMode),
		}},
	}
	caps := conformance.CapsOf(target.SimTarget(sim.TMR))
	for _, tc := range tests {
		t.Run(tc.what, func(t *testing.T) {
			c := catalogueCheck(t, tc.check)
			var pc *conformance.ProbeCase
			for _, x := range conformance.ProbeCases(c, model.ProfileTMR, caps) {
				if x.At == tc.at {
					pc = &x
				}
			}
			if pc == nil {
				t.Fatalf("%s: no probe case after #%d %s", tc.check, tc.at, strings.TrimSpace(op.FormatOps(c.Ops()[tc.at:tc.at+1])))
			}
			if diff := cmp.Diff(tc.want, probeReads(*pc)); diff != "" {
				t.Errorf("%s: probes after #%d %s (-want +got):\n%s", tc.check, tc.at, strings.TrimSpace(op.FormatOps([]op.Op{pc.Refused})), diff)
			}
			h, fs := conformance.Run(target.SimTarget(sim.TMR), pc.Ops)
			if f := failures(fs); len(f) > 0 {
				t.Errorf("%s on sim: %v\n%s", pc.Name, f, h)
			}
		})
	}
}

// Site 7 fails nothing (the prepare holds the gate longer, then
// proceeds): no probe follows the held prepare of x-2/launch-fails-fast.
func TestNoProbeAfterSite7(t *testing.T) {
	c := catalogueCheck(t, "x-2/launch-fails-fast")
	caps := conformance.CapsOf(target.SimTarget(sim.TMR))
	for _, pc := range conformance.ProbeCases(c, model.ProfileTMR, caps) {
		if pc.Refused.Kind == op.KindHoldPrepare {
			t.Errorf("%s follows the held prepare: %s", pc.Name, op.FormatOps([]op.Op{pc.Refused}))
		}
	}
}
