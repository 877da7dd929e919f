package op

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Which comm calls of a trace have every rank of their session in it
// (RanksHere): the calls whose waits the trace checker judges exactly
// (E-COMM.8, .20, .58) and the others, whose peers may be other processes.
// (Calls in file order: the order they returned.)
func TestMarkRanksHere_ECOMM(t *testing.T) {
	const h0, h1, h2 = "@1-2 t0 dev=none cinit rank=0 nranks=2 path=p0 stream=null -> h0\n",
		"@3-4 t0 dev=none cinit rank=1 nranks=2 path=p0 stream=null -> h1\n",
		"@5-6 t0 dev=none cinit rank=0 nranks=1 path=p0 stream=null -> h2\n"
	const allocs = "@7-9 t1 dev=none calloc h0 win=64 -> 0\n@8-10 t2 dev=none calloc h1 win=64 -> 0\n"
	for _, c := range []struct {
		name, body string
		want       []bool // per call, in file order
	}{
		{"both ranks", h0 + h1 + allocs, []bool{true, true, true, true}},
		{"rank 1 elsewhere", h0 + "@7-9 t1 dev=none calloc h0 win=64 -> 0\n", []bool{false, false}},
		{"a single-rank handle on the path", h0 + h1 + h2 + allocs, []bool{true, true, false, true, true}},
		{"rank 1 of another path", h0 + strings.Replace(h1, "p0", "p1", 1), []bool{false, false}},
		// Every rank is in the trace, one twice: the counters count
		// handles, all of them the trace's.
		{"rank 0 twice", h0 + h1 + "@5-6 t0 dev=none cinit rank=0 nranks=2 path=p0 stream=null -> h2\n",
			[]bool{true, true, true}},
		// A handle of three ranks on the path whose other ranks are not
		// here: its peers' arrivals count at the same counters, from the
		// time it is made (the calls before it stay exact).
		{"an incomplete session of another nranks on the path", h0 + h1 + allocs + "@11-12 t0 dev=none cinit rank=0 nranks=3 path=p0 stream=null -> h2\n" +
			"@13-14 t1 dev=none cbarrier h0 -> 0\n",
			[]bool{true, true, true, true, false, false}},
		// A session that ended before h0's was made does not count.
		{"an incomplete session gone before", "@1-2 t0 dev=none cinit rank=0 nranks=3 path=p0 stream=null -> h0\n" +
			"@3-4 t0 dev=none cdestroy h0 -> 0\n" +
			"@11-12 t0 dev=none cinit rank=0 nranks=2 path=p0 stream=null -> h0\n@13-14 t0 dev=none cinit rank=1 nranks=2 path=p0 stream=null -> h1\n",
			[]bool{false, false, true, true}},
		// h1 of the first session destroyed, then another rank 1 joins
		// while h0 lives on: every rank still has a handle here.
		{"a second rank 1 in rank 0's life", h0 + h1 + "@5-6 t0 dev=none cdestroy h1 -> 0\n" +
			"@7-8 t0 dev=none cinit rank=1 nranks=2 path=p0 stream=null -> h1\n",
			[]bool{true, true, true, true}},
		{"a refused comm_init", h0 + "@3-4 t0 dev=none cinit rank=1 nranks=2 path=p0 stream=null -> null\n", []bool{false, false}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, err := ParseTrace(strings.NewReader("# simabi trace v2\n# target: /x/libhost_runtime.so\n# revision: kernel\n# pid: 7\n"+c.body), "t.ops")
			if err != nil {
				t.Fatal(err)
			}
			var got []bool
			for _, cl := range tr.Calls {
				got = append(got, cl.RanksHere)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("RanksHere per call (-want +got):\n%s", d)
			}
		})
	}
}
