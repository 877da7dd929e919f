package trace

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
)

// The failure cases of recorded sessions a consumer that is not ours
// produced (issue "Record anything, read everything").

// kernelPrelude is a kernel context c0 on device 0 with a prepared image of
// two IN tensors and one scalar (id 0).
func kernelPrelude(t *testing.T) string {
	t.Helper()
	img, err := (&abi.ChipCallableSpec{FuncName: "two", Signature: []abi.ArgDirection{abi.DirIn, abi.DirIn, abi.DirScalar}}).Build()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`@1-2 t0 dev=0 create -> c0
@3-4 t0 dev=0 kinit c0 dev=0 gen=1 cfg=raw(%s) aicpu=none aicore=none disp=none -> 0
@5-6 t0 dev=0 prepare c0 img=raw(%d,0,%s) -> 0 out=0
`, cfgHex(), len(img), hex.EncodeToString(img))
}

// E-PROG: the program entries' results are read in every form the recorder
// writes them (a pointer: ptr, or null for device_malloc_ctx returning NULL;
// done for device_free_ctx; an unsigned count; a status) and judged: what
// the model judges of them does not depend on the arguments the trace does
// not hold. The recorder wrote `prog c0 fn=malloc -> null`, which the parser
// refused ("bad result"). A context with no program init answers NULL from
// device_malloc_ctx, so a pointer there is a finding.
func TestParseTrace_programEntryResults_EPROG(t *testing.T) {
	body := `@1-2 t0 dev=0 create -> c0
@3-4 t0 dev=0 prog c0 fn=malloc -> null
@5-6 t0 dev=0 prog c0 fn=free -> done
@7-8 t0 dev=0 prog c0 fn=aicpu_dlopen -> 18446744073709551615
@9-10 t0 dev=0 prog c0 fn=comm_create -> null
@11-12 t0 dev=0 prog c0 fn=arena_base -> 0
@13-14 t0 dev=0 prog c0 fn=copy_to -> -1003
@15-16 t0 dev=0 prog null fn=copy_from -> -1004
@17-18 t0 dev=0 wait_run c0 st=null -> -1003
@19-20 t0 dev=0 committed c0 -> 18446744073709551615
@21-22 t0 dev=0 call get_runtime_size -> 4096
@23-24 t0 dev=0 cinit rank=0 nranks=1 path=null stream=null -> null
`
	tr := mustTraceV(t, 2, body+"@25-26 t0 dev=0 destroy c0 -> done\n")
	var got []string
	for _, c := range tr.Calls[1:9] {
		got = append(got, fmt.Sprintf("%s status=%d value=%d skip=%q", c.Op, c.Obs.Call.Status, c.Obs.Call.Value, c.Skip))
	}
	want := []string{"prog c0 fn=malloc status=0 value=0 skip=\"\"", "prog c0 fn=free status=0 value=0 skip=\"\"",
		"prog c0 fn=aicpu_dlopen status=0 value=18446744073709551615 skip=\"\"", "prog c0 fn=comm_create status=0 value=0 skip=\"\"",
		"prog c0 fn=arena_base status=0 value=0 skip=\"\"", "prog c0 fn=copy_to status=-1003 value=0 skip=\"\"",
		"prog null fn=copy_from status=-1004 value=0 skip=\"\"", "prog c0 fn=wait_run status=-1003 value=0 skip=\"\""}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("program calls (-want +got):\n%s", d)
	}
	if v := tr.Calls[9].Obs.Mem; v != ^uint64(0) {
		t.Errorf("committed: %d, want 2^64-1", v)
	}
	if c := Check(tr, Options{}); len(failuresOf(c)) != 1 || failuresOf(c)[0] != "M-7" {
		// committed 2^64-1 on a fresh context: M-7 wants 0.
		t.Errorf("failures %v, want [M-7]: %v", failuresOf(c), c.Result.Findings)
	}
	flagged := mustTraceV(t, 2, "@1-2 t0 dev=0 create -> c0\n@3-4 t0 dev=0 prog c0 fn=malloc -> ptr\n@5-6 t0 dev=0 destroy c0 -> done\n")
	if c := Check(flagged, Options{}); !cmp.Equal(failuresOf(c), []string{"E-PROG"}) {
		t.Errorf("device_malloc_ctx answering a pointer on a context with no program init: failures %v, want [E-PROG]", c.Result.Findings)
	}
}

// E-LAUNCH: a launch refused because a tensor the trace did not hold was
// HOST. A v1 trace recorded the counts and tensor 0's address space only:
// the refusal's cause is out of sight, so the call is not judged (it was
// "want OK, got INVALID_ARGUMENT"). A trace that holds the address space of
// every tensor the launch read judges it: tensor 1 HOST refused is right,
// and all DEVICE refused is a finding.
func TestCheckTrace_launchRefusedForATensorTheTraceHolds_ELAUNCH(t *testing.T) {
	v1 := mustTrace(t, kernelPrelude(t)+"@7-8 t0 dev=0 launch c0 id=0 args=raw(t=2,s=1,host=0) stream=s0 -> -1004\n")
	c := Check(v1, Options{})
	if got := failuresOf(c); len(got) != 0 {
		t.Fatalf("v1, tensor 1 out of sight: failures %v", c.Result.Findings)
	}
	if f := c.Result.Findings[len(c.Result.Findings)-1]; f.Verdict != Skip || f.Index != 3 || !strings.Contains(f.Detail, "address space of a tensor it does not hold") {
		t.Errorf("v1 launch: %+v, want a skip with the reason (the address spaces are not in the trace)", f)
	}
	for _, tc := range []struct {
		name, args, result string
		want               []string
	}{
		{"tensor 1 HOST, refused", "raw(t=2,s=1,as=0100)", "-1004", nil},
		{"tensor 0 of space 7, refused", "raw(t=2,s=1,as=0701)", "-1004", nil},
		{"both DEVICE, refused", "raw(t=2,s=1,as=0101)", "-1004", []string{"E-LAUNCH"}},
		{"tensor 1 HOST, accepted", "raw(t=2,s=1,as=0100)", "0", []string{"E-LAUNCH"}},
		{"both DEVICE, accepted", "raw(t=2,s=1,as=0101)", "0", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := mustTraceV(t, 2, kernelPrelude(t)+"@7-8 t0 dev=0 launch c0 id=0 args="+tc.args+" stream=s0 -> "+tc.result+"\n")
			c := Check(tr, Options{})
			if got := failuresOf(c); !cmp.Equal(got, tc.want) {
				t.Errorf("failures %v, want %v: %v", got, tc.want, c.Result.Findings)
			}
		})
	}
}

// E-LAUNCH-ASYNC, D-3: fault site 8 is "the next synchronize of a stream
// with pending work". A synchronize of an idle stream does not count; the
// trace checker counts as the live model does. The recorded session: site 8
// armed twice, sync of the idle s0, two launches on s1, sync s1 delivers
// the injected code (it was "want OK, got INTERNAL").
func TestCheckTrace_site8CountsSynchronizesWithPendingWork_ELAUNCHASYNC(t *testing.T) {
	session := func(syncResult string) string {
		return kernelPrelude(t) + `@7-8 t0 dev=0 inject site=8 count=2 code=-1000 -> 0
@9-10 t0 dev=0 sync s0 -> 0
@11-12 t0 dev=0 launch c0 id=0 args=raw(t=2,s=1,as=0101) stream=s1 -> 0
@13-14 t0 dev=0 launch c0 id=0 args=raw(t=2,s=1,as=0101) stream=s1 -> 0
@15-16 t0 dev=0 sync s1 -> ` + syncResult + `
@17-18 t0 dev=0 finalize c0 -> 0
@19-20 t0 dev=0 destroy c0 -> done
`
	}
	c := Check(mustTraceV(t, 2, session("-1000")), Options{})
	if got := failuresOf(c); len(got) != 0 {
		t.Fatalf("the delivered failure is flagged: %v", c.Result.Findings)
	}
	c = Check(mustTraceV(t, 2, session("0")), Options{})
	if got := failuresOf(c); !cmp.Equal(got, []string{"D-3"}) {
		t.Fatalf("a synchronize that swallowed the armed failure: failures %v, want [D-3]: %v", got, c.Result.Findings)
	}
}

// A trace that ends inside a call (the process was killed in it) is a hang
// attributed to that call, with the judged calls up to it as the repro.
func TestCheckTrace_traceEndingInsideACallIsAHang_ELAUNCH(t *testing.T) {
	tr := mustTraceV(t, 2, kernelPrelude(t)+`@7-8 t0 dev=0 launch c0 id=0 args=raw(t=2,s=1,as=0101) stream=s0 -> 0
@9-10 t0 dev=0 launch c0 id=0 args=raw(t=2,s=1,as=0101) stream=s0 -> 0
@11 t0 dev=0 launch c0 id=0 stream=s0
`)
	if n := len(tr.Calls); n != 6 || !tr.Calls[5].Unfinished {
		t.Fatalf("%d calls, the last unfinished: %v", n, n == 6 && tr.Calls[5].Unfinished)
	}
	rep := Check(tr, Options{}).Report()
	var hung []string
	for _, rr := range rep.Rules {
		if rr.Verdict == model.Hang {
			hung = append(hung, rr.Rule+": "+rr.Detail+" | "+strings.Join(rr.Repro, "; "))
		}
	}
	want := []string{"E-LAUNCH: #5 launch c0 id=0 stream=s0: hang: the trace ends inside this call (it never returned; the launch's args are recorded when it returns) | " +
		"setdev 0; create c0; kinit c0 dev=0 gen=1; prepare c0 img=" + tr.Calls[2].Op.Img.String() + "; " +
		"launch c0 id=0 args=exact(t=2,s=1) stream=s0; launch c0 id=0 args=exact(t=2,s=1) stream=s0; launch c0 id=0 stream=s0"}
	if d := cmp.Diff(want, hung); d != "" {
		t.Errorf("hung rules (-want +got):\n%s", d)
	}
}

func mustTraceV(t *testing.T, version int, body string) *op.Trace {
	t.Helper()
	tr, err := ParseTrace(strings.NewReader(fmt.Sprintf("# simabi trace v%d\n# target: /x/libhost_runtime.so\n# revision: kernel\n# pid: 7\n", version)+body), "t.ops")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// inflightFile lays out an in-flight file as the recorder does, with the
// given calls in their threads' slots.
func inflightFile(pid int64, signal int32, sigAt uint64, calls ...tracevocab.InflightCall) []byte {
	b := make([]byte, tracevocab.InflightHeaderSize+tracevocab.InflightSlots*tracevocab.InflightSlotSize)
	le := binary.LittleEndian
	copy(b, tracevocab.InflightMagic)
	le.PutUint64(b[tracevocab.InflightPIDOff:], uint64(pid))
	le.PutUint32(b[tracevocab.InflightSignalOff:], uint32(signal))
	le.PutUint64(b[tracevocab.InflightSignalSeqOff:], sigAt)
	le.PutUint32(b[tracevocab.InflightSlotsOff:], tracevocab.InflightSlots)
	le.PutUint32(b[tracevocab.InflightSlotSizeOff:], tracevocab.InflightSlotSize)
	for _, c := range calls {
		s := b[tracevocab.InflightHeaderSize+int(c.Thread)*tracevocab.InflightSlotSize:]
		state := uint32(tracevocab.SlotInCall)
		if c.Died {
			state = tracevocab.SlotDied
		}
		le.PutUint32(s[tracevocab.SlotStateOff:], state)
		le.PutUint32(s[tracevocab.SlotLenOff:], uint32(len(c.Op)))
		le.PutUint64(s[tracevocab.SlotSeqOff:], c.B)
		le.PutUint32(s[tracevocab.SlotThreadOff:], uint32(c.Thread))
		le.PutUint32(s[tracevocab.SlotDevOff:], uint32(c.Dev))
		copy(s[tracevocab.SlotTextOff:], c.Op)
	}
	return b
}

// ReadTraceFile reads the in-flight records beside a trace: a call the
// process was inside is a hang (E-LAUNCH here), one a fatal signal hit a
// crash; a record of a call whose line was written (the process was killed
// between the two) is the call, not a second one.
func TestReadTraceFile_inflightRecords_ELAUNCH(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "session-7.ops")
	body := "# simabi trace v2\n# target: /x/libhost_runtime.so\n# revision: kernel\n# pid: 7\n" + kernelPrelude(t) +
		"@7-8 t0 dev=0 launch c0 id=0 args=raw(t=2,s=1,as=0101) stream=s0 -> 0\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		signal int32
		want   model.Verdict
	}{{"killed", 0, model.Hang}, {"signal 11", 11, model.Crash}} {
		t.Run(c.name, func(t *testing.T) {
			done := tracevocab.InflightCall{B: 7, Thread: 1, Dev: 0, Op: "launch c0 id=0 stream=s0"} // written already
			in := tracevocab.InflightCall{B: 9, Thread: 0, Dev: 0, Op: "launch c0 id=0 stream=s0", Died: c.signal != 0}
			var at uint64
			if c.signal != 0 {
				at = 9
			}
			if err := os.WriteFile(tracevocab.InflightName(path, 7), inflightFile(7, c.signal, at, done, in), 0o644); err != nil {
				t.Fatal(err)
			}
			tr, err := ReadTraceFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(tr.Calls); n != 5 || !tr.Calls[4].Unfinished || tr.Calls[4].Died != (c.signal != 0) {
				t.Fatalf("%d calls: %+v", n, tr.Calls[len(tr.Calls)-1])
			}
			tc := Check(tr, Options{})
			if len(tc.Deaths) != 1 || tc.Deaths[0].Verdict != c.want {
				t.Fatalf("deaths %+v, want one %v", tc.Deaths, c.want)
			}
			for _, rr := range tc.Report().Rules {
				if rr.Rule == "E-LAUNCH" && rr.Verdict != c.want {
					t.Errorf("E-LAUNCH %v: %s", rr.Verdict, rr.Detail)
				}
			}
		})
	}
	// Without the in-flight file the trace ends after the launch that
	// returned: nothing to report.
	os.Remove(tracevocab.InflightName(path, 7))
	tr, err := ReadTraceFile(path)
	if err != nil || len(tr.Calls) != 4 {
		t.Fatalf("%v, %d calls", err, len(tr.Calls))
	}
}

// E-PINIT: the executor binaries are recorded by size only. On a build that
// is not simulated (no sync in the trace) their bytes decide whether the
// init loads them, so a refusal the model does not explain is not judged;
// a trace of a simulated build (it synchronized through the hooks), which
// ignores the bytes, is judged.
func TestCheckTrace_initRefusedForBinariesTheTraceDoesNotHold_EPINIT(t *testing.T) {
	session := func(sync string) string {
		return "@1-2 t0 dev=0 create -> c0\n" + sync +
			"@5-6 t0 dev=0 pinit c0 dev=0 aicpu=bytes(4096) aicore=bytes(4096) disp=none prewarm=null sdma=none sdmaon=0 -> -1000\n" +
			"@7-8 t0 dev=0 destroy c0 -> done\n"
	}
	c := Check(mustTraceV(t, 2, session("")), Options{})
	if got := failuresOf(c); len(got) != 0 {
		t.Errorf("a real build's refusal for its binaries: failures %v", c.Result.Findings)
	}
	if !slices.ContainsFunc(c.Result.Findings, func(f Finding) bool {
		return f.Verdict == Skip && f.Index == 1 && strings.Contains(f.Detail, "recorded by size only")
	}) {
		t.Errorf("the refused init: %+v, want a skip with the reason", c.Result.Findings)
	}
	c = Check(mustTraceV(t, 2, session("@3-4 t0 dev=0 sync s0 -> 0\n")), Options{})
	if got := failuresOf(c); !cmp.Equal(got, []string{"E-PINIT"}) {
		t.Errorf("a simulated build's refusal: failures %v, want [E-PINIT]", c.Result.Findings)
	}
}

// E-CLAIM, F-1 (simabi_reset): a consumer that resets a loaded runtime
// starts again on a fresh load. After `call simabi_reset -> 0` a kernel init
// of another context on the device c0 held is judged OK (the claim went
// with c0), and c0's name is retired; without the reset the same init is an
// INVALID_STATE the trace contradicts (E-CLAIM).
func TestCheckTrace_resetStartsAFreshRuntime_EClaim(t *testing.T) {
	second := fmt.Sprintf(`@11-12 t0 dev=0 create -> c1
@13-14 t0 dev=0 kinit c1 dev=0 gen=2 cfg=raw(%s) aicpu=none aicore=none disp=none -> 0
`, cfgHex())
	for _, c := range []struct {
		name, between string
		want          []string
	}{
		{"reset", "@9-10 t0 dev=0 call simabi_reset -> 0\n", nil},
		{"no reset", "", []string{"E-CLAIM"}},
		{"refused reset", "@9-10 t0 dev=0 call simabi_reset -> -1000\n", []string{"E-CLAIM"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := mustTraceV(t, 2, kernelPrelude(t)+c.between+second)
			got := failuresOf(Check(tr, Options{}))
			if !cmp.Equal(got, c.want, cmpopts.EquateEmpty()) {
				t.Errorf("failures %v, want %v", got, c.want)
			}
		})
	}
}

// gatePollTrace is a consumer that holds the gate (simabi_hold_gate),
// polls simabi_gate_state polls times while thread 3's prepare is parked,
// has thread 2's launch refused by it, and releases the gate; with
// late, the launch comes after the prepare returned, which no order
// explains.
func gatePollTrace(t testing.TB, polls int, late bool) string {
	h, n := traceImageHex(t)
	var b strings.Builder
	fmt.Fprintf(&b, "@1-2 t0 dev=0 create -> c0\n@3-4 t0 dev=0 kinit c0 dev=0 gen=1 cfg=raw(%s) aicpu=none aicore=none disp=none -> 0\n@5-6 t0 dev=0 prepare c0 img=raw(%d,0,%s) -> 0 out=0\n", cfgHex(), n, h)
	fmt.Fprintf(&b, "@7-8 t1 dev=0 call simabi_hold_gate -> 0\n")
	seq := 10
	for i := 0; i < polls; i++ {
		fmt.Fprintf(&b, "@%d-%d t1 dev=0 call simabi_gate_state -> %d\n", seq, seq+1, min(i*2/polls, 1))
		seq += 2
	}
	launch := seq
	if late {
		launch = seq + 10
	}
	fmt.Fprintf(&b, "@%d-%d t2 dev=0 launch c0 id=0 args=raw(t=1,s=0,host=0) stream=s0 -> -1003\n", launch, launch+1)
	fmt.Fprintf(&b, "@%d-%d t1 dev=0 call simabi_hold_gate -> 0\n", seq+2, seq+3)
	fmt.Fprintf(&b, "@9-%d t3 dev=0 prepare c0 img=raw(%d,0,%s) -> 0 out=1\n", seq+5, n, h)
	return b.String()
}

// a consumer polling simabi_gate_state in a loop while a prepare is
// parked leaves hundreds of calls the model does not model overlapping
// the prepare. The search for an order leaves them out: before, 120 polls
// took 17 s to linearize, and 200 ran past the timeout, so the calls were
// judged in begin order and the refused launch failed E-LAUNCH and K-3.
// Every call is still judged once, the polls in begin order.
func TestCheckTrace_gatePollsDoNotStallTheSearch_X2(t *testing.T) {
	for _, tc := range []struct {
		name     string
		late     bool
		failures []string
	}{
		{"refused while parked", false, nil},
		{"refused after the prepare returned", true, []string{"E-LAUNCH", "K-3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := mustTrace(t, gatePollTrace(t, 200, tc.late))
			c := Check(tr, Options{Timeout: 5 * time.Second})
			if c.Undecided || c.Linearizable != (tc.failures == nil) {
				t.Fatalf("undecided %v linearizable %v: %s", c.Undecided, c.Linearizable, c.Note)
			}
			if d := cmp.Diff(tc.failures, failuresOf(c)); d != "" {
				t.Errorf("failures (-want +got):\n%s", d)
			}
			if len(c.Order) != len(tr.Calls) || len(c.Result.History.Entries) != len(tr.Calls) {
				t.Fatalf("%d calls, %d ordered, %d judged", len(tr.Calls), len(c.Order), len(c.Result.History.Entries))
			}
			seen, lastPoll := map[int]bool{}, uint64(0)
			for _, k := range c.Order {
				if seen[k] {
					t.Fatalf("call %d judged twice", k)
				}
				seen[k] = true
				if cl := tr.Calls[k]; cl.Op.Kind == op.KindInvalid {
					if cl.B < lastPoll {
						t.Fatalf("call %d (@%d) judged after one that began at @%d", k, cl.B, lastPoll)
					}
					lastPoll = cl.B
				}
			}
		})
	}
}

// The cost of checking a trace in which a consumer polled the gate's state
// n times while a prepare was parked: linear in n (it was quadratic, each
// poll judged on a copy of the model holding every earlier verdict: 16,000
// polls took 19 s). go test ./conformance/trace -run '^$' -bench GatePolls
func BenchmarkCheckTrace_GatePolls(b *testing.B) {
	for _, n := range []int{1000, 16000} {
		tr := mustTrace(b, gatePollTrace(b, n, false))
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				if c := Check(tr, Options{}); !c.Linearizable {
					b.Fatal(c.Note)
				}
			}
		})
	}
}
