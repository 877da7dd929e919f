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
