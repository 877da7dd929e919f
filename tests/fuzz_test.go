package tests

import (
	"errors"
	"sync"
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/sim/emit"
)

// fuzzMaxOps bounds one fuzz input's op sequence.
const fuzzMaxOps = 200

// fuzzEmitted holds the emitted builds FuzzOps diffs against, per profile,
// built once per process (each fuzz worker is a process).
var fuzzEmitted = sync.OnceValues(func() (map[conformance.Profile]*emittedRuntime, error) {
	out := map[conformance.Profile]*emittedRuntime{}
	for _, p := range profiles {
		a, err := buildEmitted(emit.Config{Profile: p.emit})
		if err != nil {
			return nil, err
		}
		if out[p.model], err = newEmittedRuntime(a); err != nil {
			return nil, err
		}
	}
	return out, nil
})

// FuzzOps: bytes → op sequence (decodeBytes: the first byte picks the
// profile, every later choice is read from the input, any input decodes) →
// every call checked by the model on sim → the same sequence (its
// two-thread ops serialized, see serialized) on sim and on the emitted
// runtime must give identical histories (F-1) and pass the model too.
// Runs over its seed corpus (testdata/fuzz/FuzzOps) in every `go test`, and
// unchanged under `go test -fuzz=FuzzOps ./tests` (docs/fuzzing.md). Every
// rule the op space reaches: S-*, V-*, L-*, K-*, E-*, M-*, D-*, X-1, X-2.
//
// The body passes t to nothing but its own methods: a libFuzzer build
// (go-118-fuzz-build, docs/fuzzing.md) replaces the testing package with a
// shim whose T is not a *testing.T, and the helpers it calls import no
// testing package.
func FuzzOps(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, ops := decodeBytes(data, fuzzMaxOps, holdMs)
		var sp profileSet
		for _, x := range profiles {
			if x.model == p {
				sp = x
			}
		}
		res, err := runChecked(func() (conformance.Target, func(), error) { return conformance.SimTarget(sp.sim), nil, nil }, ops)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed() {
			t.Fatalf("%s", failureText("sim:"+sp.name, ops, res))
		}
		es, err := fuzzEmitted()
		if errors.Is(err, emit.ErrNoCompiler) {
			return // sim only: no C compiler for the differential half
		}
		if err != nil {
			t.Fatal(err)
		}
		sops := serialized(ops)
		et, release, err := es[p].open()
		if err != nil {
			t.Fatal(err)
		}
		d, rs, re := conformance.RunDiff(conformance.SimTarget(sp.sim), et, sops, conformance.Options{})
		release()
		if d != "" {
			t.Fatalf("sim and the emitted runtime differ (- sim, + emitted):\n%sop log (%d ops):\n%ssim history:\n%s",
				clipLines(d), len(sops), conformance.FormatOps(sops), clipLines(rs.History.String()))
		}
		for _, r := range []struct {
			name string
			res  *conformance.Result
		}{{"sim", rs}, {"emitted", re}} {
			if r.res.Failed() {
				t.Fatalf("%s", failureText(r.name+":"+sp.name, sops, r.res))
			}
		}
	})
}
