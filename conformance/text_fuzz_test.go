package conformance

import (
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/op"

	"strings"
	"testing"
)

// What users hand the checker as text — op scripts and repro files
// (abicheck -replay, ParseScript) and baselines (-baseline) — is parsed
// without a panic, every refusal names its line, and what parses prints
// back to text that parses to the same thing (parse∘print∘parse = parse).
// Both targets run their seeds in every go test and take -fuzz
// (docs/fuzzing.md).

// FuzzOpText fuzzes ParseScript and FormatOps.
func FuzzOpText(f *testing.F) {
	for _, c := range catalogue.Checks() {
		f.Add(c.Script)
	}
	for _, s := range []string{
		"", "create c0\n", "# a comment\n\ncreate c0 # trailing\n",
		"prepare c0 img=valid(t=2,s=1,c=1,b=64,x=3)+defect(fid-dup)+mis(8)\n",
		"launch c0 id=0 args=match(dt=1,ds=-1,host,junk) stream=s1 rep=3\n",
		"kinit c0 dev=0 gen=1 cfg=threads=3+swim=2+prefix+ring=badtask aicpu=halfptr\n",
		"holdlaunch c0 ms=10 img=valid() id=0 stream=s0\nunload\n",
		"unload\ncreate c0\n", "prepare c0 img=\n", "kinit c0 dev=0 gen=1 gen=2\n",
		"prepare_run c0 st=3 id=7 args=exact(t=1,s=0)\n", "inject site=11 count=-1 code=0\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ops, err := op.ParseScript(text)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") {
				t.Fatalf("a refusal that names no line: %v", err)
			}
			return
		}
		printed := op.FormatOps(ops)
		again, err := op.ParseScript(printed)
		if err != nil {
			t.Fatalf("the printed form does not parse: %v\ninput:\n%s\nprinted:\n%s", err, text, printed)
		}
		if len(again) != len(ops) {
			t.Fatalf("%d ops parse back as %d:\n%s", len(ops), len(again), printed)
		}
		for i := range ops {
			if again[i] != ops[i] {
				t.Fatalf("op %d: %q parses back as %q", i, ops[i].String(), again[i].String())
			}
		}
		if op.FormatOps(again) != printed {
			t.Fatalf("printing is not stable:\n%s\nthen:\n%s", printed, op.FormatOps(again))
		}
	})
}
