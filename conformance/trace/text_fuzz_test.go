package trace

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/simabi/simabi/conformance/op"
)

// What a user hands -check-trace is a file anyone may have written: a
// recording of another tool's consumer, a trace cut short, one edited by
// hand. FuzzTraceText holds the trace reader and checker to that: the text
// parses without a panic or is refused with the file and line named; every
// call the checker judges and -replay rebuilds prints as op text that parses
// back to the same op; and checking the parsed trace ends without a panic.
// Its seeds run in every go test; -fuzz fuzzes it (docs/fuzzing.md).
func FuzzTraceText(f *testing.F) {
	for _, s := range []string{
		"", "create -> c0\n", "# simabi trace v1\n",
		"# simabi trace v2\n# target: /x/libhost_runtime.so\n# revision: kernel\n# pid: 7\n@1-2 t0 dev=0 create -> c0\n@3-4 t0 dev=0 destroy c0 -> done\n",
		"# simabi trace v2\n@1-2 t0 dev=none call simpler_host_log_bind_state -> 0\n@3-4 t0 dev=0 supported null -> 1\n@5-6 t0 dev=0 call simabi_reset -> 0\n",
		"# simabi trace v1\n@1-2 t0 dev=0 create -> c0\n@3-9 t0 dev=0 finalize c0 -> 0\n@4-5 t1 dev=0 supported c0 -> 1\n@6-7 t1 dev=? getdev -> -1\n",
		"# simabi trace v2\n@1-2 t0 dev=0 create -> c0\n@3-4 t0 dev=0 launch c0 id=0 args=raw(t=1,s=0,as=01) stream=s0 -> -1003\n@5-6 t0 dev=0 sync s0 -> 0\n@7-8 t0 dev=0 inject site=8 count=1 code=-1000 -> 0\n",
		"# simabi trace v1\n@1-2 t0 dev=0 prepare c0 img=raw(9,0,abcd) -> 0 out=0\n",
	} {
		f.Add(s)
	}
	refusal := regexp.MustCompile(`^t\.ops(:[0-9]+)?: `) // the file, and the line unless the file is empty
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := op.ParseTrace(strings.NewReader(text), "t.ops")
		if err != nil {
			if !refusal.MatchString(err.Error()) {
				t.Fatalf("a refusal that names no file and line: %v", err)
			}
			return
		}
		for i, c := range tr.Calls {
			if c.Skip != "" || c.Unfinished || c.NoReplay != "" {
				continue
			}
			back, err := op.Parse(c.Op.String())
			if err != nil || back != c.Op {
				t.Fatalf("call %d (%q): its op %q parses back as %q (%v)", i, c.Text, c.Op.String(), back.String(), err)
			}
		}
		Check(tr, Options{Timeout: 200 * time.Millisecond})
	})
}
