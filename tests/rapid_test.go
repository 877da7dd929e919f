package tests

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/tests/opdiff"
)

// rapidConfig is the op space of the rapid state machines: four contexts,
// three devices, X-2 hold ops, logs of at most 200 ops. The fill to 8192
// residents (M-4) is left to FuzzOps and the directed catalogue: one fill
// is 8193 calls per run, which makes every shrink step slow.
func rapidConfig(p model.Profile) decodeConfig {
	return decodeConfig{Profile: p, Slots: 4, Devices: 3, HoldMs: holdMs, MaxOps: 200, NoFill: true}
}

// seqCheck runs one op sequence on fresh instances and says how it failed:
// "" when it passed, else a report and a key (the first failing rule, or
// "diff") that a shrunk sequence must reproduce.
type seqCheck func(ops []op.Op) (report, key string, err error)

// modelCheck is the model check of one sequence on one target (Model.Step
// after every op, by the runner).
func modelCheck(target string, open opener, n *counts) seqCheck {
	return func(ops []op.Op) (string, string, error) {
		res, err := runChecked(open, ops)
		if err != nil {
			return "", "", err
		}
		n.seqs.Add(1)
		n.ops.Add(int64(len(ops)))
		n.calls.Add(int64(res.Checked))
		if f, bad := firstFailure(res); bad {
			return failureText(target, ops, res), f.Rule.String(), nil
		}
		return "", "", nil
	}
}

// diffCheck runs one sequence on a and b (conformance.RunDiff): their
// histories must be identical (F-1) and both must pass the model.
func diffCheck(name string, a func() conformance.Target, b opener, n *counts) seqCheck {
	return func(ops []op.Op) (string, string, error) {
		bt, release, err := b()
		if err != nil {
			return "", "", err
		}
		d, ra, rb := conformance.RunDiff(a(), bt, ops, conformance.Options{})
		release()
		n.seqs.Add(1)
		n.ops.Add(int64(len(ops)))
		n.calls.Add(int64(ra.Checked + rb.Checked))
		if d != "" {
			return fmt.Sprintf("%s: sim and the emitted runtime differ (- sim, + emitted):\n%sop log (%d ops):\n%ssim history:\n%s",
				name, clipLines(d), len(ops), op.FormatOps(ops), clipLines(ra.History.String())), "diff", nil
		}
		for _, r := range []*conformance.Result{ra, rb} {
			if f, bad := firstFailure(r); bad {
				return failureText(name, ops, r), f.Rule.String(), nil
			}
		}
		return "", "", nil
	}
}

// rapidProperty is the rapid state machine: ops drawn one by one by rapid
// (drawOps), prepared by prep (nil: as drawn), checked by check. A failing
// sequence fails the property; rapid shrinks it and prints the op log and
// history of the smallest failing one. When the test has failed, a cleanup
// shrinks rapid's result once more with conformance.Shrink (delta debugging
// over the ops themselves, which rapid's choice-level shrinking cannot
// always reach) and logs that op log too.
func rapidProperty(t *testing.T, cfg decodeConfig, prep func([]op.Op) []op.Op, check seqCheck) {
	var last []op.Op
	var lastKey string
	t.Cleanup(func() {
		if !t.Failed() || last == nil {
			return
		}
		small := conformance.Shrink(last, func(ops []op.Op) bool {
			_, key, err := check(ops)
			return err == nil && key == lastKey
		})
		report, _, _ := check(small)
		t.Logf("delta-debugged by conformance.Shrink: %d ops (from rapid's %d); replay it as tests/testdata/NAME.ops:\n%s",
			len(small), len(last), report)
	})
	rapid.Check(t, func(rt *rapid.T) {
		ops := drawOps(rt, cfg)
		if prep != nil {
			ops = prep(ops)
		}
		report, key, err := check(ops)
		if err != nil {
			rt.Fatal(err)
		}
		if report != "" {
			last, lastKey = ops, key
			rt.Fatalf("%s", report)
		}
	})
}

// TestRapidSim: rapid state machines against sim, tmr and refusing, every
// call checked by the model (every rule the op space reaches: S-*, V-*,
// L-*, K-*, E-*, M-*, D-*, X-1, X-2).
func TestRapidSim(t *testing.T) {
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			var n counts
			open := func() (conformance.Target, func(), error) { return target.SimTarget(p.sim), nil, nil }
			rapidProperty(t, rapidConfig(p.model), nil, modelCheck("sim:"+p.name, open, &n))
			t.Log(n.String())
		})
	}
}

// TestRapidEmitted: the same state machines against the emitted runtime
// through onboard (F-1), a fresh instance per sequence.
func TestRapidEmitted(t *testing.T) {
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			e := emitted(t, emit.Config{Profile: p.emit})
			var n counts
			rapidProperty(t, rapidConfig(p.model), nil, modelCheck("emitted:"+p.name, e.open, &n))
			t.Log(n.String())
		})
	}
}

// TestRapidDiff: the same random sequences on sim and on the emitted runtime
// give identical histories (F-1; conformance.RunDiff), and neither breaks
// the model. The two-thread ops run serialized (see opdiff.Serialized): who wins a
// race is the scheduler's choice, not the runtime's.
func TestRapidDiff(t *testing.T) {
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			e := emitted(t, emit.Config{Profile: p.emit})
			var n counts
			sim := func() conformance.Target { return target.SimTarget(p.sim) }
			rapidProperty(t, rapidConfig(p.model), opdiff.Serialized, diffCheck("sim|emitted:"+p.name, sim, e.open, &n))
			t.Log(n.String())
		})
	}
}

// TestRapidACLOnly: the state machines with the checker driving the device
// and the streams through an ACL only, as on silicon (no hooks: no
// injection, no cleared device, completion not driven, so the stream-switch
// refusal is optional). Sim through its simulated ACL and the emitted
// runtime through the fake ACL, each model-checked, and their histories
// diffed (F-1; two-thread ops opdiff.Serialized, see opdiff.Serialized).
func TestRapidACLOnly(t *testing.T) {
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			e := emitted(t, emit.Config{Profile: p.emit})
			cfg := rapidConfig(p.model)
			cfg.ACLOnly = true
			var n counts
			sim := func() conformance.Target { return simACLTarget(p.sim) }
			rapidProperty(t, cfg, opdiff.Serialized, diffCheck("sim-acl|emitted-acl:"+p.name, sim, e.openACLOnly, &n))
			t.Log(n.String())
		})
	}
}
