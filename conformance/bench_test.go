package conformance

import (
	"testing"
	"time"

	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
)

// benchSequences are random sequences generated once for the benchmarks.
func benchSequences(caps Caps, n, ops int) [][]Op {
	out := make([][]Op, n)
	for i := range out {
		out[i] = Generate(GenOptions{Seed: uint64(4242 + i), Ops: ops, Caps: caps, Devices: 3, NoFill: true})
	}
	return out
}

// benchRun runs the sequences round robin, a fresh target per sequence, and
// reports model-checked calls per second.
func benchRun(b *testing.B, f Factory) {
	t0, rel, err := f()
	if err != nil {
		b.Fatal(err)
	}
	caps := CapsOf(t0)
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
		r := NewRunner(t, Options{})
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
func BenchmarkSimRandom(b *testing.B) { benchRun(b, simFactory(sim.TMR, false)) }

// BenchmarkEmittedRandom measures model-checked calls per second against the
// emitted .so through onboard (goal: >= 30,000/s).
func BenchmarkEmittedRandom(b *testing.B) {
	benchRun(b, emittedFactory(b, emittedBuild(b, emit.Config{Profile: emit.ProfileTMR})))
}
