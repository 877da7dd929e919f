package trace

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// rankCall is one call of a synthetic trace of ranks as threads.
type rankCall struct {
	b, e   int
	thread int
	text   string
}

// ranksTrace is a trace of one process whose comm ranks are threads: every
// rank of a session of n on thread t<rank> (cinit on t0), then, for each
// collective in colls (calloc, cbarrier, cdestroy), every rank's call:
// the ranks begin in turn and each but the last waits until the last has
// begun (its end follows the last one's begin). early names, per
// collective, a rank whose call ends before the last rank's begins (-1:
// none) and answer, per collective, what that early call returns, or with
// no early call what every call returns ("" is 0).
func ranksTrace(n int, colls []string, early []int, answer []string) string {
	var calls []rankCall
	seq := 1
	for r := 0; r < n; r++ {
		calls = append(calls, rankCall{seq, seq + 1, 0, fmt.Sprintf("cinit rank=%d nranks=%d path=p0 stream=null -> h%d", r, n, r)})
		seq += 2
	}
	for j, c := range colls {
		res, early := "0", slices.Concat(early, []int{-1})[min(j, len(early))]
		if j < len(answer) && answer[j] != "" {
			res = answer[j]
		}
		begins := make([]int, n)
		for r := 0; r < n; r++ {
			if early == r {
				calls = append(calls, rankCall{seq, seq + 1, r, fmt.Sprintf("%s h%d -> %s", c, r, res)})
				seq += 2
				begins[r] = -1
				continue
			}
			begins[r] = seq
			seq++
		}
		// The last rank to begin returns first, then the ones it released.
		if early >= 0 {
			res = "0"
		}
		for r := n - 1; r >= 0; r-- {
			if begins[r] >= 0 {
				calls = append(calls, rankCall{begins[r], seq, r, fmt.Sprintf("%s h%d -> %s", c, r, res)})
				seq++
			}
		}
	}
	sort.SliceStable(calls, func(a, b int) bool { return calls[a].e < calls[b].e })
	var b strings.Builder
	for _, c := range calls {
		win := ""
		if strings.HasPrefix(c.text, "calloc") {
			head, tail, _ := strings.Cut(c.text, " -> ")
			win, c.text = " win=64", head
			c.text += win + " -> " + tail
		}
		fmt.Fprintf(&b, "@%d-%d t%d dev=none %s\n", c.b, c.e, c.thread, c.text)
	}
	return b.String()
}

// rounds is a session's life with k barriers.
func rounds(k int) []string {
	out := []string{"calloc"}
	for range k {
		out = append(out, "cbarrier")
	}
	return append(out, "cdestroy")
}

// The cost of checking a trace of n ranks as threads making k barriers
// (every call but the last arrival of each waits for it).
// go test ./conformance/trace -run '^$' -bench RanksAsThreads
func BenchmarkCheckTrace_RanksAsThreads(b *testing.B) {
	for _, c := range []struct{ n, k int }{{2, 100}, {3, 100}, {4, 100}, {3, 1000}} {
		tr := mustTrace(b, ranksTrace(c.n, rounds(c.k), nil, nil))
		b.Run(strconv.Itoa(c.n)+"ranks/"+strconv.Itoa(c.k)+"barriers", func(b *testing.B) {
			for b.Loop() {
				if c := Check(tr, Options{}); !c.Linearizable {
					b.Fatal(c.Note)
				}
			}
		})
	}
}

// E-COMM.8, .20, .58: a trace whose every rank of a session is a thread
// of the process judges each call that waits for its peers: it returns 0
// after the last rank's call began; one that ended before that returned
// early. -1 there is the runtime's timeout (the trace holds no time), and
// a session with a rank in another process keeps the tolerance of 0 or -1.
func TestCheckTrace_ranksAsThreads_ECOMM(t *testing.T) {
	type tc struct {
		name     string
		body     string
		failures []string
		judged   int // calls judged (Result.Checked)
	}
	three := rounds(2) // calloc, two barriers, cdestroy: 4 collectives
	for _, c := range []tc{
		{"clean", ranksTrace(3, three, nil, nil), nil, 15},
		// E-COMM.8: rank 0's comm_alloc_windows ended before rank 2's began.
		{"alloc returned early (E-COMM.8)", ranksTrace(3, three, []int{0}, nil), []string{"E-COMM"}, 15},
		// E-COMM.20: rank 1's first barrier.
		{"barrier returned early (E-COMM.20)", ranksTrace(3, three, []int{-1, 1}, nil), []string{"E-COMM"}, 15},
		// E-COMM.58: rank 0's comm_destroy did not wait for the last out.
		{"destroy returned early (E-COMM.58)", ranksTrace(3, three, []int{-1, -1, -1, 0}, nil), []string{"E-COMM"}, 15},
		// The last rank's early return is no early return: it releases.
		{"the last arrival returns at once", ranksTrace(3, three, []int{2, 2, 2, 2}, nil), nil, 15},
		// -1 of a call that ended before the last rank's began: the
		// timeout; its arrival stays counted.
		{"-1 before the release is the timeout", ranksTrace(3, three, []int{-1, 1}, []string{"", "-1"}), nil, 15},
		// E-COMM.20, .19: every rank answers -1, the earlier ones after
		// the last rank's call began (they were released: 0), the last
		// arrival at once (0). (The model stops following the family at
		// the first surprise.)
		{"-1 after the release (E-COMM.20, .19)", ranksTrace(3, three, nil, []string{"", "-1"}), []string{"E-COMM"}, 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := mustTrace(t, c.body)
			for _, cl := range tr.Calls {
				if !cl.RanksHere {
					t.Fatalf("%q: not RanksHere", cl.Text)
				}
			}
			o := Check(tr, Options{})
			if !o.Concurrent || o.Undecided || o.Linearizable != (c.failures == nil) {
				t.Fatalf("concurrent %v undecided %v linearizable %v: %s", o.Concurrent, o.Undecided, o.Linearizable, o.Note)
			}
			if d := cmp.Diff(c.failures, failuresOf(o)); d != "" {
				t.Errorf("failures (-want +got):\n%s\n%v", d, o.Result.Findings)
			}
			if o.Result.Checked != c.judged || len(o.Order) != len(tr.Calls) {
				t.Errorf("%d judged, %d ordered of %d calls", o.Result.Checked, len(o.Order), len(tr.Calls))
			}
		})
	}
}

// A session with a rank in another process (the trace holds two of its
// three ranks): its waits depend on that process, so an early return is
// no finding, and 0 and -1 are both allowed (E-COMM).
func TestCheckTrace_ranksElsewhereTolerated_ECOMM(t *testing.T) {
	body := ranksTrace(3, rounds(1), []int{-1, 0}, nil)
	var keep []string
	for _, l := range strings.Split(body, "\n") {
		if !strings.Contains(l, " h2") || strings.Contains(l, "cinit") {
			keep = append(keep, l)
		}
	}
	// rank 2 is another process's: its handle is not this trace's.
	body = strings.ReplaceAll(strings.Join(keep, "\n"), "cinit rank=2 nranks=3 path=p0 stream=null -> h2", "cinit rank=1 nranks=3 path=p1 stream=null -> h2")
	tr := mustTrace(t, body)
	for _, cl := range tr.Calls {
		if cl.RanksHere {
			t.Fatalf("%q: RanksHere with rank 2 elsewhere", cl.Text)
		}
	}
	o := Check(tr, Options{})
	if f := failuresOf(o); len(f) != 0 || !o.Linearizable {
		t.Fatalf("failures %v linearizable %v: %s", o.Result.Findings, o.Linearizable, o.Note)
	}
}

// Calls that never overlap (one thread making every rank's call): the
// first comm_alloc_windows of a session of two waits for the second, which
// this thread makes only after it, so its 0 is an early return (E-COMM.8);
// its -1 is the timeout.
func TestCheckTrace_ranksOnOneThread_ECOMM8(t *testing.T) {
	const head = "@1-2 t0 dev=none cinit rank=0 nranks=2 path=p0 stream=null -> h0\n" +
		"@3-4 t0 dev=none cinit rank=1 nranks=2 path=p0 stream=null -> h1\n"
	for _, c := range []struct {
		first    string
		failures []string
	}{
		{"0", []string{"E-COMM"}},
		{"-1", nil},
	} {
		tr := mustTrace(t, head+"@5-6 t0 dev=none calloc h0 win=64 -> "+c.first+"\n@7-8 t0 dev=none calloc h1 win=64 -> 0\n")
		o := Check(tr, Options{})
		if o.Concurrent {
			t.Fatal("concurrent")
		}
		if d := cmp.Diff(c.failures, failuresOf(o)); d != "" {
			t.Errorf("first alloc -> %s: failures (-want +got):\n%s", c.first, d)
		}
	}
}

// The search stays small as the ranks that wait grow: a trace of up to 8
// ranks (the grammar's handles) whose last barrier has an early return
// is decided well within a timeout of 500 ms (it takes about 20 ms; with
// each return a piece anywhere in its interval, the search tried the
// orders of the returns one arrival released: 8 ranks took 2 to 9 s).
// E-COMM.20.
func TestCheckTrace_ranksSearchStaysSmall_ECOMM20(t *testing.T) {
	for n := 2; n <= 8; n++ {
		colls := rounds(20)
		early := slices.Repeat([]int{-1}, len(colls))
		early[len(colls)-2] = 0 // rank 0's call of the last barrier
		o := Check(mustTrace(t, ranksTrace(n, colls, early, nil)), Options{Timeout: 500 * time.Millisecond})
		if o.Undecided || o.Linearizable {
			t.Fatalf("%d ranks: undecided %v linearizable %v: %s", n, o.Undecided, o.Linearizable, o.Note)
		}
		if d := cmp.Diff([]string{"E-COMM"}, failuresOf(o)); d != "" {
			t.Errorf("%d ranks: failures (-want +got):\n%s", n, d)
		}
	}
}

// A call that releases a waiting rank but cannot be judged (its handle is
// not one a comm_init of the trace returned) leaves the comm state
// unknown: the waiting rank's 0 is not judged an early return, and the
// comm calls after it are not judged (E-COMM).
func TestCheckTrace_ranksReleaserNotJudged_ECOMM(t *testing.T) {
	body := ranksTrace(2, rounds(1), nil, nil)
	body = strings.Replace(body, "cbarrier h1 -> 0", "cbarrier h? -> 0", 1)
	tr := mustTrace(t, body)
	o := Check(tr, Options{})
	if f := failuresOf(o); len(f) != 0 || !o.Linearizable {
		t.Fatalf("failures %v linearizable %v: %s", o.Result.Findings, o.Linearizable, o.Note)
	}
	if o.Result.Checked != 4 { // two cinit, two calloc
		t.Errorf("%d calls judged, want 4", o.Result.Checked)
	}
}
