package opfuzz

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/simabi/simabi/conformance/op"
)

// TestDecodedOpsReplay: every op the decoder produces has a text form that
// parses back to the same op, so every rapid or fuzz failure prints a
// replayable op log (conformance.FormatOps → conformance.ParseScript).
func TestDecodedOpsReplay(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	kinds := map[op.Kind]int{}
	n := 200
	if testing.Short() {
		n = 60
	}
	for i := 0; i < n; i++ {
		data := make([]byte, r.IntN(4000))
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		_, ops := Decode(data, 400, HoldMs)
		for _, o := range ops {
			kinds[o.Kind]++
			back, err := op.Parse(o.String())
			if err != nil || back != o {
				t.Fatalf("op %q does not round-trip: %v (%+v vs %+v)", o.String(), err, back, o)
			}
		}
		back, err := op.ParseScript(op.FormatOps(ops))
		if err != nil || (len(ops) > 0 && !reflect.DeepEqual(back, ops)) {
			t.Fatalf("op log does not round-trip: %v", err)
		}
	}
	// The generator reaches every kind of the op space (unload ends a run
	// and is for directed checks only).
	for k := op.KindCreate; k <= op.KindRun; k++ {
		if k == op.KindUnload {
			continue
		}
		if kinds[k] == 0 {
			t.Errorf("no %s op decoded from %d random inputs", k, n)
		}
	}
}

// TestDecodeAnyInput: the decoder accepts any input, including empty and
// degenerate ones, and is deterministic.
func TestDecodeAnyInput(t *testing.T) {
	for _, data := range [][]byte{nil, {0}, {0xFF}, make([]byte, 1000), []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff")} {
		p1, a := Decode(data, 200, HoldMs)
		p2, b := Decode(data, 200, HoldMs)
		if p1 != p2 || !reflect.DeepEqual(a, b) {
			t.Fatalf("decoding %x is not deterministic", data)
		}
	}
}

// TestDecodeReachesTheFill_M4: the fill to 8192 residents and one past
// stays reachable from fuzz input, and rarer than the generator's default:
// among random inputs, some decode to it, fewer than one in 30.
func TestDecodeReachesTheFill_M4(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	const n = 3000
	fills := 0
	for i := 0; i < n; i++ {
		data := make([]byte, 64+r.IntN(400))
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		_, ops := Decode(data, MaxOps, HoldMs)
		for _, o := range ops {
			if o.Kind == op.KindPrepare && o.Rep > 8000 {
				fills++
				break
			}
		}
	}
	if fills == 0 || fills > n/30 {
		t.Fatalf("%d of %d random inputs decode to a fill, want 1 to %d", fills, n, n/30)
	}
	t.Logf("%d of %d random inputs decode to a fill", fills, n)
}
