package opdiff

import (
	"github.com/simabi/simabi/conformance/op"

	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/tests/opfuzz"
)

// FuzzOps: bytes → op sequence (opfuzz.Decode: the first byte picks the
// profile, every later choice is read from the input, any input decodes) →
// every call checked by the model on sim → the same sequence (its
// two-thread ops serialized, see Serialized) on sim and on the emitted
// runtime must give identical histories (F-1) and pass the model too.
// Runs over its seed corpus (testdata/fuzz/FuzzOps) in every `go test`, and
// under `go test -fuzz=FuzzOps ./tests/opdiff` (docs/fuzzing.md). Every rule
// the op space reaches: S-*, V-*, L-*, K-*, E-*, M-*, D-*, X-1, X-2. Each
// worker loads one emitted runtime per profile and resets it between
// inputs; FuzzOpsSim (tests/opfuzz) is the sim half alone.
//
// The body passes t to nothing but its own methods: a libFuzzer build
// (go-118-fuzz-build, docs/fuzzing.md) replaces the testing package with a
// shim whose T is not a *testing.T.
func FuzzOps(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, ops, rs, failure := opfuzz.OnSim(data)
		if failure != "" {
			t.Fatal(failure)
		}
		w, err := emitted()
		if err != nil {
			t.Fatal(err)
		}
		if w.runners == nil {
			return // sim only: no C compiler for the differential half
		}
		sops := Serialized(ops)
		if len(sops) != len(ops) { // two-thread ops: sim again, serialized
			if rs, err = opfuzz.Fresh(opfuzz.SimRunner(p), sops); err != nil {
				t.Fatal(err)
			}
		}
		re, err := opfuzz.Fresh(w.runners[p], sops)
		if err != nil {
			t.Fatal(err)
		}
		if d := conformance.Diff(rs.History, re.History); d != "" {
			t.Fatalf("sim and the emitted runtime differ (- sim, + emitted):\n%sop log (%d ops):\n%ssim history:\n%s",
				opfuzz.ClipLines(d), len(sops), op.FormatOps(sops), opfuzz.ClipLines(rs.History.String()))
		}
		for _, r := range []struct {
			name string
			res  *conformance.Result
		}{{"sim", rs}, {"emitted", re}} {
			if r.res.Failed() {
				t.Fatalf("%s", opfuzz.FailureText(r.name+":"+string(p), sops, r.res))
			}
		}
	})
}
