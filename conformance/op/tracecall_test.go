package op

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRecordedFieldsRead pins how a recorded call's fields read into an op
// by the field list (fields.go rec/gone, tracecall.go): references
// numbered by first appearance, what the recorder could not name skipped
// with its reason, a NULL run storage as the prog op of its entry.
func TestRecordedFieldsRead(t *testing.T) {
	type read struct{ Op, Skip, NoReplay string }
	for _, tc := range []struct {
		line string
		want read
	}{
		{"@1-2 t0 dev=0 setdev none -> 0", read{Op: "setdev none"}},
		{"@1-2 t0 dev=0 setdev 3 -> 0", read{Op: "setdev 3"}},
		{"@1-2 t0 dev=0 sync s? -> 0", read{Op: "sync s0", Skip: "a stream the recorder could not number"}},
		{"@1-2 t0 dev=0 sync s4 -> 0", read{Op: "sync s0"}},
		{"@1-2 t0 dev=0 cinit rank=0 nranks=2 path=p? stream=s1 -> h0",
			read{Op: "cinit h0 rank=0 nranks=2 path=null stream=s0", Skip: "a rootinfo path the recorder could not read"}},
		{"@1-2 t0 dev=0 cinit rank=1 nranks=2 path=p3 stream=null -> h?",
			read{Op: "cinit h0 rank=1 nranks=2 path=p0", Skip: "a comm handle the recorder could not name"}},
		{"@1-2 t0 dev=0 drelease null a=a? n=2 rank=1 -> -1", read{Op: "drelease null a=0 n=2 rank=1", Skip: "an id past the recorder's table"}},
		{"@1-2 t0 dev=0 gprep d=d1 rank=0 n=2 win=4096 profile=3 -> 0", read{Op: "gprep d=1 rank=0 n=2 win=4096 profile=3"}},
		{"@1-2 t0 dev=0 cderive h3 n=2 rank=0 off=8 win=64 ids=raw(0000000001000000) -> -1",
			read{Op: "cderive h0 n=2 rank=0 off=8 win=64 ids=raw(0000000001000000)", Skip: "a comm handle no comm_init of this trace returned"}},
		{"@1-2 t0 dev=0 launch null id=1 args=null stream=s0 -> -1001", read{Op: "launch null id=1 args=null stream=s0"}},
		{"@1-2 t0 dev=0 poll_run null st=0 -> -1001", read{Op: "poll_run null st=0"}},
		{"@1-2 t0 dev=0 wait_run null st=null -> -1001", read{Op: "prog null fn=wait_run"}},
	} {
		tr, err := ParseTrace(strings.NewReader("# simabi trace v2\n# revision: kernel\n"+tc.line+"\n"), "t")
		if err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		c := tr.Calls[0]
		if diff := cmp.Diff(tc.want, read{c.Op.String(), c.Skip, c.NoReplay}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.line, diff)
		}
	}
}
