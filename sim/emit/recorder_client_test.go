package emit

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
)

// traceLine is one call line of a trace.
type traceLine struct {
	b, e   uint64
	thread int
	dev    string
	op     string // the op and its arguments
	result string
	text   string
}

// parsedTrace is a trace file: its header lines and its call lines.
type parsedTrace struct {
	header []string
	calls  []traceLine
}

func parseTrace(t *testing.T, path string) parsedTrace {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var p parsedTrace
	text := string(b)
	if text != "" && !strings.HasSuffix(text, "\n") {
		t.Errorf("%s: the last line is not complete", path)
	}
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if strings.HasPrefix(l, "# ") {
			if len(p.calls) > 0 {
				t.Errorf("%s:%d: a comment after the calls began: %q", path, i+1, l)
			}
			p.header = append(p.header, l)
			continue
		}
		// The line's shape and op word by the vocabulary (the parser of
		// conformance, which reads the arguments too, is not importable
		// here; tests/ runs it on the client's traces).
		sl, err := tracevocab.SplitLine(l, tracevocab.Version)
		if err != nil || sl.Entered {
			t.Errorf("%s:%d: not a call line (%v): %q", path, i+1, err, l)
			continue
		}
		if _, err := tracevocab.Lookup(abi.RevKernel, sl.Op, sl.Args); err != nil {
			t.Errorf("%s:%d: %v", path, i+1, err)
		}
		head, _, _ := strings.Cut(l, tracevocab.LineArrow)
		_, op, _ := strings.Cut(head, tracevocab.LineDevKey)
		_, op, _ = strings.Cut(op, tracevocab.LineOp)
		p.calls = append(p.calls, traceLine{b: sl.B, e: sl.E, thread: int(sl.Thread), dev: sl.Dev.Source, op: op, result: sl.ResultAt, text: l})
	}
	return p
}

// checkSequence: every number of the file is taken once, B < E, and the
// calls of one thread never overlap; every B lies past from.
func checkSequence(t *testing.T, name string, calls []traceLine, from uint64) {
	t.Helper()
	seen := map[uint64]bool{}
	byThread := map[int][]traceLine{}
	for _, c := range calls {
		for _, s := range []uint64{c.b, c.e} {
			if seen[s] {
				t.Errorf("%s: sequence number %d taken twice (%q)", name, s, c.text)
			}
			seen[s] = true
		}
		if c.b >= c.e || c.b <= from {
			t.Errorf("%s: @%d-%d: want %d < B < E", name, c.b, c.e, from)
		}
		byThread[c.thread] = append(byThread[c.thread], c)
	}
	for th, cs := range byThread {
		slices.SortFunc(cs, func(x, y traceLine) int { return int(x.b) - int(y.b) })
		for i := 1; i < len(cs); i++ {
			if cs[i].b < cs[i-1].e {
				t.Errorf("%s: calls of t%d overlap: %q and %q", name, th, cs[i-1].text, cs[i].text)
			}
		}
	}
}

type clientProc struct {
	pid, parent int
	calls       int
}

// docs/trace.md "The trace", fork and threads: testdata/recorder_client.c
// forks three children (one of which forks again) while four threads call,
// and passes NULLs and malformed images. Every process has its own trace
// with the header (and "# forked-from" in a child), one line per call it
// made, no two calls of a thread overlapping; the exit codes are the
// processes' own.
func TestRecorderClient(t *testing.T) {
	fake := freshFake(t, Config{Profile: ProfileTMR})
	dir := t.TempDir()
	stdout := runClient(t, fake, dir, "trace-%p.ops")
	keepTraces(t, dir)
	procs, main, exits := clientReport(t, stdout)
	// The exit codes, as the waiters saw them: the third child exits with 3.
	var codes []int
	for pid := range procs {
		if pid != main.pid {
			codes = append(codes, exits[pid])
		}
	}
	slices.Sort(codes)
	if !slices.Equal(codes, []int{0, 0, 0, 3}) || len(exits) != 4 {
		t.Errorf("exit codes %v (%v), want three 0 and one 3", codes, exits)
	}
	ents, err := filepath.Glob(filepath.Join(dir, "*.ops"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(procs) {
		t.Errorf("%d trace files for %d processes: %v", len(ents), len(procs), ents)
	}
	checkNoCallInFlight(t, dir)
	traces := map[int]parsedTrace{}
	for pid, p := range procs {
		name := fmt.Sprintf("trace-%d.ops", pid)
		tr := parseTrace(t, filepath.Join(dir, name))
		traces[pid] = tr
		want := []string{tracevocab.Magic(TraceVersion), "# target: " + fake, "# revision: kernel", fmt.Sprintf("# pid: %d", pid),
			fmt.Sprintf("# image-limit: %d", DefaultImageLimit)}
		var from uint64
		if p.parent != 0 {
			if len(tr.header) != 6 {
				t.Errorf("%s: header %q, want 6 lines", name, tr.header)
				continue
			}
			var parent int
			if n, _ := fmt.Sscanf(tr.header[5], "# forked-from: %d at @%d", &parent, &from); n != 2 || parent != p.parent {
				t.Errorf("%s: %q, want # forked-from: %d at @SEQ", name, tr.header[5], p.parent)
			}
			want = append(want, tr.header[5])
		}
		if !slices.Equal(tr.header, want) {
			t.Errorf("%s: header\n%q\nwant\n%q", name, tr.header, want)
		}
		if len(tr.calls) != p.calls {
			t.Errorf("%s: %d call lines, the process made %d calls", name, len(tr.calls), p.calls)
		}
		checkSequence(t, name, tr.calls, from)
	}

	mainTrace := traces[main.pid]
	threads := map[int]bool{}
	for _, c := range mainTrace.calls {
		threads[c.thread] = true
	}
	if len(threads) != 5 {
		t.Errorf("the main trace numbers %d threads, want 5 (t0..t4)", len(threads))
	}
	// The client's images and config, as testdata/recorder_client.c builds them.
	size := abi.ChipCallableSize + 64
	valid := make([]byte, size)
	binary.LittleEndian.PutUint32(valid[abi.ChipSignatureOff:], uint32(abi.DirIn))
	binary.LittleEndian.PutUint32(valid[abi.ChipSigCountOff:], 1)
	binary.LittleEndian.PutUint32(valid[abi.ChipBinarySizeOff:], 64)
	corrupted := slices.Clone(valid)
	binary.LittleEndian.PutUint32(corrupted[abi.ChipSigCountOff:], 9999)
	img := func(b []byte, align int) string {
		return regexp.QuoteMeta(fmt.Sprintf("img=raw(%d,%d,%x)", len(b), align, b))
	}
	cfg := regexp.QuoteMeta(fmt.Sprintf("cfg=raw(%x)", make([]byte, abi.CallConfigSize)))
	for _, want := range []string{
		`^create -> c0$`, `^create -> c1$`,
		`^kinit null dev=0 gen=1 ` + cfg + ` aicpu=none aicore=none disp=none -> -1004$`,
		`^kinit c\d+ dev=1 gen=1 ` + cfg + ` aicpu=none aicore=none disp=none -> 0$`,
		`^supported null -> 1$`,
		`^prepare null ` + img(valid, 0) + ` -> -1004 out=-1$`,
		`^prepare c\d+ img=null -> -1004 out=-1$`,
		`^prepare c\d+ ` + img(valid, 0) + ` out=null -> -1004$`,
		`^prepare c\d+ ` + img(valid[:100], 0) + ` -> -1004 out=-1$`,
		`^prepare c\d+ ` + img(valid, 8) + ` -> -1004 out=-1$`,
		`^prepare c\d+ ` + img(corrupted, 0) + ` -> -1004 out=-1$`,
		`^prepare c\d+ ` + img(valid, 0) + ` -> 0 out=0$`,
		`^launch c\d+ id=0 args=raw\(t=1,s=0,as=01\) stream=s\d+ -> 0$`,
		`^launch c\d+ id=0 args=null stream=s\d+ -> -1004$`,
		`^launch c\d+ id=0 args=raw\(t=1,s=0,as=01\) stream=null -> -1004$`,
		`^launch null id=0 args=raw\(t=1,s=0,as=01\) stream=s\d+ -> -1004$`,
		`^sync null -> -1004$`,
		`^finalize null -> -1000$`,
		`^destroy null -> done$`,
		`^destroy c1 -> done$`,
		`^supported c0 -> 1$`,
	} {
		re := regexp.MustCompile(want)
		if !slices.ContainsFunc(mainTrace.calls, func(c traceLine) bool { return re.MatchString(c.op + " -> " + c.result) }) {
			t.Errorf("the main trace has no call matching %s", want)
		}
	}
	// The first child goes on with the names it inherited: M is c1.
	for pid, p := range procs {
		if p.parent != main.pid || p.calls < 10 {
			continue
		}
		ops := map[string]bool{}
		for _, c := range traces[pid].calls {
			ops[c.op+" -> "+c.result] = true
		}
		for _, want := range []string{"committed c1 -> 0", "destroy c1 -> done"} {
			if !ops[want] {
				t.Errorf("the first child's trace has no %q", want)
			}
		}
	}
}

// checkNoCallInFlight: the in-flight records the processes of dir left
// (those that ended without running the recorder's destructor: _exit)
// hold no call, and the main process (which exits normally) left none.
func checkNoCallInFlight(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"+tracevocab.InflightSuffix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in, err := tracevocab.ReadInflight(b)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(in.Calls) != 0 || in.Signal != 0 {
			t.Errorf("%s: %d calls in flight, signal %d: %v", filepath.Base(f), len(in.Calls), in.Signal, in.Lines())
		}
	}
}

// runClient runs testdata/recorder_client.c against a fresh recorder over
// fake, the traces going to dir/file; it returns the client's stdout.
// keepTraces copies the client's traces into $SIMABI_KEEP_TRACES when it is
// set: tests/recorder_client_test.go judges them with the trace checker,
// which this package cannot import.
func keepTraces(t *testing.T, dir string) {
	t.Helper()
	keep := os.Getenv("SIMABI_KEEP_TRACES")
	if keep == "" {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(keep, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func runClient(t *testing.T, fake, dir, file string) string {
	t.Helper()
	rec := freshRecorder(t, RecorderConfig{})
	exe := driver(t, "recorder_client")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, rec)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SIMABI_RECORD_TARGET="+fake, "SIMABI_RECORD_FILE="+filepath.Join(dir, file),
		"SIMABI_RECORD_PRELOAD=", "SIMABI_RECORD_IMAGE_LIMIT=")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if err != nil || !strings.Contains(so.String(), "PASS recorder_client") || se.Len() != 0 {
		t.Fatalf("recorder_client: %v\nstdout:\n%s\nstderr:\n%s", err, so.String(), se.String())
	}
	return so.String()
}

// clientReport reads the client's "trace" and "exit" lines.
func clientReport(t *testing.T, stdout string) (procs map[int]clientProc, main clientProc, exits map[int]int) {
	t.Helper()
	procs, exits = map[int]clientProc{}, map[int]int{}
	for _, l := range strings.Split(stdout, "\n") {
		var p clientProc
		var pid, code int
		if n, _ := fmt.Sscanf(l, "trace pid=%d parent=%d calls=%d", &p.pid, &p.parent, &p.calls); n == 3 {
			procs[p.pid] = p
			if p.parent == 0 {
				main = p
			}
		} else if n, _ := fmt.Sscanf(l, "exit pid=%d code=%d", &pid, &code); n == 2 {
			exits[pid] = code
		}
	}
	if len(procs) != 5 || main.pid == 0 {
		t.Fatalf("want 5 processes (main, 3 children, a grandchild), got %v\n%s", procs, stdout)
	}
	return procs, main, exits
}

// docs/trace.md: without %p in SIMABI_RECORD_FILE a child stops recording:
// the one trace holds the main process's calls alone.
func TestRecorderClientTraceWithoutPid(t *testing.T) {
	fake := freshFake(t, Config{Profile: ProfileTMR})
	dir := t.TempDir()
	_, main, _ := clientReport(t, runClient(t, fake, dir, "trace.ops"))
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "trace.ops" {
		t.Fatalf("trace files %v, want trace.ops alone", ents)
	}
	tr := parseTrace(t, filepath.Join(dir, "trace.ops"))
	want := []string{tracevocab.Magic(TraceVersion), "# target: " + fake, "# revision: kernel", fmt.Sprintf("# pid: %d", main.pid),
		fmt.Sprintf("# image-limit: %d", DefaultImageLimit)}
	if !slices.Equal(tr.header, want) {
		t.Errorf("header %q, want %q", tr.header, want)
	}
	if len(tr.calls) != main.calls {
		t.Errorf("%d call lines, the main process made %d calls", len(tr.calls), main.calls)
	}
	checkSequence(t, "trace.ops", tr.calls, 0)
}
