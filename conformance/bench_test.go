package conformance_test

import (
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"strconv"
	"testing"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/conformance/target/targettest"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// benchSequences are random sequences generated once for the benchmarks.
func benchSequences(caps catalogue.Caps, n, ops int) [][]op.Op {
	out := make([][]op.Op, n)
	for i := range out {
		out[i] = conformance.Generate(conformance.GenOptions{Seed: uint64(4242 + i), Ops: ops, Caps: caps, Devices: 3, NoFill: true})
	}
	return out
}

// benchRun runs the sequences round robin, a fresh target per sequence, and
// reports model-checked calls per second.
func benchRun(b *testing.B, f conformance.Factory) {
	t0, rel, err := f()
	if err != nil {
		b.Fatal(err)
	}
	caps := conformance.CapsOf(t0)
	if rel != nil {
		rel()
	}
	seqs := benchSequences(caps, 8, 2000)
	b.ReportAllocs()
	b.ResetTimer()
	checked := 0
	var busy time.Duration
	for i := 0; b.Loop(); i++ {
		t, release, err := f()
		if err != nil {
			b.Fatal(err)
		}
		r := conformance.NewRunner(t, conformance.Options{})
		start := time.Now()
		res := r.Run(seqs[i%len(seqs)])
		busy += time.Since(start)
		r.Close()
		if release != nil {
			release()
		}
		if res.Failed() {
			b.Fatalf("findings: %v", res.Findings)
		}
		checked += res.Checked
	}
	b.ReportMetric(float64(checked)/busy.Seconds(), "checked-ops/s")
}

// BenchmarkSimRandom measures model-checked calls per second against sim
// (goal: >= 100,000/s).
func BenchmarkSimRandom(b *testing.B) { benchRun(b, target.SimFactory(sim.TMR)) }

// BenchmarkEmittedRandom measures model-checked calls per second against the
// emitted .so through onboard (goal: >= 30,000/s).
func BenchmarkEmittedRandom(b *testing.B) {
	benchRun(b, targettest.EmittedFactory(b, emittest.Build(b, emit.Config{Profile: emit.ProfileTMR})))
}

// BenchmarkSimFill measures the checked calls of M-4's fill: n prepares on
// one context, on sim. The model keeps every id a context minted; the time
// per call must not grow with n (a model that copied its per-context ids on
// every step would be quadratic).
func BenchmarkSimFill(b *testing.B) {
	for _, n := range []int{1024, 4096, 8192} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			ops := op.MustParseScript("create c0\nkinit c0 dev=0 gen=1\nprepare c0 img=valid() rep=" + strconv.Itoa(n) + "\n")
			b.ReportAllocs()
			var busy time.Duration
			for b.Loop() {
				r := conformance.NewRunner(target.SimTarget(sim.TMR), conformance.Options{})
				start := time.Now()
				res := r.Run(ops)
				busy += time.Since(start)
				r.Close()
				if res.Failed() || res.Checked < n {
					b.Fatalf("checked %d of %d calls, findings: %v", res.Checked, n, res.Findings)
				}
			}
			b.ReportMetric(float64(busy.Nanoseconds())/float64(b.N*n), "ns/call")
		})
	}
}

// modelCall is one call of a model benchmark: an op repetition and the
// answer the model expects of it.
type modelCall struct {
	i, rep int
	op     op.Op
	obs    op.Observation
}

// expectedCalls walks ops on the model of caps and answers each call as the
// model expects (its first allowed status, the id it mints, the value it
// wants): a sequence the model judges without surprises. Two-thread ops
// are left out.
func expectedCalls(ops []op.Op, caps catalogue.Caps) []modelCall {
	st := model.NewState(model.ModelOptions{DrivenCompletion: caps.Has(catalogue.CapDriven), DeviceKnown: true, Device: -1, Simulated: true})
	var out []modelCall
	for i, cur := range ops {
		if cur.Kind.TwoThread() {
			continue
		}
		for rep := 0; rep < cur.Reps(); rep++ {
			e := model.Expect(st, cur)
			var o op.Observation
			switch {
			case e.Status.N > 0:
				o.Call.Status = e.Status.V[0]
			case e.Status.NonZero:
				o.Call.Status = abi.Internal
			}
			o.Call.Out = -1
			if o.Call.Status == abi.OK && e.OutKnown {
				o.Call.Out = e.OutOK
			}
			o.Call.Value = e.Value
			st, _ = model.Step(st, i, rep, cur, &o)
			out = append(out, modelCall{i, rep, cur, o})
		}
	}
	return out
}

// BenchmarkModelStep measures the model alone: random sequences (and M-4's
// fill, 8193 prepares on one context) judged call by call against the
// answers it expects, no runtime in the loop.
func BenchmarkModelStep(b *testing.B) {
	caps := conformance.CapsOf(target.SimTarget(sim.TMR))
	seqs := map[string][]op.Op{"random": nil,
		"fill": op.MustParseScript("create c0\nkinit c0 dev=0 gen=1\nprepare c0 img=valid() rep=8193\n")}
	for _, s := range benchSequences(caps, 8, 2000) {
		seqs["random"] = append(seqs["random"], s...)
	}
	for _, name := range []string{"random", "fill"} {
		calls := expectedCalls(seqs[name], caps)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := model.NewState(model.ModelOptions{DrivenCompletion: caps.Has(catalogue.CapDriven), DeviceKnown: true, Device: -1, Simulated: true})
				for k := range calls {
					c := &calls[k]
					o := c.obs
					s, _ = model.Step(s, c.i, c.rep, c.op, &o)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(calls)), "ns/call")
		})
	}
}
