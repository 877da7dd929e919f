package tests

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// docs/trace.md's example trace is what the recorder writes for the session
// it describes: the session is run here through the recorder over the
// emitted fake and compared line by line with the example ("…" in the
// example stands for hex digits; the target and pid header lines vary), and
// the recorded trace checks clean.
func TestDocs_traceExampleIsWhatTheRecorderWrites(t *testing.T) {
	doc, err := os.ReadFile("../docs/trace.md")
	if err != nil {
		t.Fatal(err)
	}
	example := codeBlockAfter(t, string(doc), "Example (a kernel-mode session")

	path, fake := recordExampleSession(t)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gotLines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	wantLines := strings.Split(strings.TrimSuffix(example, "\n"), "\n")
	if len(gotLines) != len(wantLines) {
		t.Fatalf("the recorder wrote %d lines, the example has %d:\n%s", len(gotLines), len(wantLines), op.Abbreviate(string(got)))
	}
	for i, w := range wantLines {
		g := gotLines[i]
		switch {
		case strings.HasPrefix(w, "# target: "):
			w = "# target: " + fake
		case strings.HasPrefix(w, "# pid: "):
			w = fmt.Sprintf("# pid: %d", os.Getpid())
		}
		parts := strings.Split(w, "…")
		for k := range parts {
			parts[k] = regexp.QuoteMeta(parts[k])
		}
		if !regexp.MustCompile("^" + strings.Join(parts, "[0-9a-f]*") + "$").MatchString(g) {
			t.Errorf("line %d: the recorder wrote\n  %s\nthe example says\n  %s", i+1, op.Abbreviate(g), w)
		}
	}

	_, tc := judgeTraceFile(t, path)
	for _, rr := range tc.Report().Rules {
		if rr.Verdict == model.Fail {
			t.Errorf("the example session is flagged: %s %s", rr.Rule, op.Abbreviate(rr.Detail))
		}
	}
}

// recordExampleSession runs docs/trace.md's example session through the
// recorder over the emitted fake: the trace's path, and the fake's (the
// trace's target).
func recordExampleSession(t *testing.T) (path, fake string) {
	t.Helper()
	fake = emittest.Path(t, emit.Config{Profile: emit.ProfileTMR})
	recPath := privateRecorder(t, emit.RecorderConfig{})
	path = filepath.Join(t.TempDir(), "session.ops")
	t.Setenv("SIMABI_RECORD_TARGET", fake)
	t.Setenv("SIMABI_RECORD_FILE", path)
	t.Setenv("SIMABI_RECORD_PRELOAD", "")
	t.Setenv("SIMABI_RECORD_IMAGE_LIMIT", "")

	img := emittest.Image("noop") // 9635 bytes: the example's image
	args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
	cfg := (&abi.CallConfig{}).Bytes()
	const stream abi.Stream = 0x5A00

	// The session, on a fresh OS thread (no current device before setdev).
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		l, err := onboard.Open(recPath, onboard.Options{})
		if err != nil {
			done <- err
			return
		}
		h, _ := l.Hooks()
		h.SimSetCurrentDevice(0)
		c := l.CreateDeviceContext()
		l.KernelModeSupported(c)
		l.KernelModeInit(c, 0, nil, 0, nil, 0, nil, 0, abi.Ptr(cfg), 1)
		var id int32
		l.KernelModePrepareCallable(c, abi.Ptr(img), uintptr(len(img)), &id)
		l.KernelModeLaunch(c, id, args.Pointer(), stream)
		h.SimSyncStream(stream)
		l.FinalizeDevice(c)
		l.DestroyDeviceContext(c)
		done <- l.Close()
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return path, fake
}

// codeBlockAfter returns the first fenced code block after the line that
// starts with marker.
func codeBlockAfter(t *testing.T, doc, marker string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+marker)
	if i < 0 {
		t.Fatalf("no %q in the document", marker)
	}
	rest := doc[i:]
	start := strings.Index(rest, "\n```")
	if start < 0 {
		t.Fatalf("no code block after %q", marker)
	}
	rest = rest[start+4:]
	rest = rest[strings.IndexByte(rest, '\n')+1:] // past the fence's info string
	end := strings.Index(rest, "\n```")
	if end < 0 {
		t.Fatalf("the code block after %q does not end", marker)
	}
	return rest[:end+1]
}

// README's "Record a real session" block runs as written, with the
// placeholders filled in: the real runtime is the emitted fake, the
// framework a ctypes script that creates, probes and destroys a context,
// the folders private ones. The trace checks clean and replays on sim:tmr
// without a difference.
func TestREADMERecordBlockRuns(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("skipping: no python3")
	}
	doc, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := codeBlockAfter(t, string(doc), "## Record a real session")
	fake := emittest.Path(t, emit.Config{Profile: emit.ProfileTMR})
	root := repoRoot(t)
	dir := t.TempDir()
	abicheck := filepath.Join(dir, "abicheck")
	if out, err := run(t, root, nil, "go", "build", "-o", abicheck, "./cmd/abicheck"); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	consumer := filepath.Join(dir, "consumer.py")
	if err := os.WriteFile(consumer, []byte(fmt.Sprintf(`import ctypes
lib = ctypes.CDLL(%q)
lib.create_device_context.restype = ctypes.c_void_p
lib.simpler_kernel_mode_supported.argtypes = [ctypes.c_void_p]
lib.destroy_device_context.argtypes = [ctypes.c_void_p]
ctx = lib.create_device_context()
assert lib.simpler_kernel_mode_supported(ctypes.c_void_p(ctx)) == 1
lib.destroy_device_context(ctypes.c_void_p(ctx))
`, filepath.Join(dir, "rec", "libhost_runtime.so"))), 0o644); err != nil {
		t.Fatal(err)
	}
	script := strings.NewReplacer(
		"/path/to/real/libhost_runtime.so", fake,
		"python3 my_framework_test.py", py+" "+consumer,
		"/tmp/rec", filepath.Join(dir, "rec"),
		"/tmp/traces/session-1234.ops", `"$(ls `+filepath.Join(dir, "traces")+`/session-*.ops | head -1)"`,
		"/tmp/traces", filepath.Join(dir, "traces"),
		"./abicheck", abicheck,
	).Replace(block)
	out, err := run(t, root, nil, "bash", "-euo", "pipefail", "-c", script)
	if err != nil {
		t.Fatalf("the README block failed: %v\nscript:\n%s\noutput:\n%s", err, script, out)
	}
	for _, want := range []string{"3 pass, 0 fail", "3 of 3 calls replayed, 0 answered differently from the recording"} {
		if !strings.Contains(out, want) {
			t.Errorf("the README block's output has no %q:\n%s", want, out)
		}
	}
}

// docs/trace.md's vocabulary tables are abi/tracevocab's definition, the
// one the recorder's C is generated from and the trace parser lexes with:
// the block between the markers is tracevocab.Markdown().
// SIMABI_UPDATE_DOCS=1 rewrites it.
func TestDocs_traceVocabularyTable(t *testing.T) {
	const begin, end = "<!-- vocabulary: generated by tracevocab.Markdown -->\n", "<!-- end of vocabulary -->"
	doc, err := os.ReadFile("../docs/trace.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("docs/trace.md has no %q ... %q block", strings.TrimSpace(begin), end)
	}
	got, want := text[i+len(begin):j], "\n"+tracevocab.Markdown()+"\n"
	if got == want {
		return
	}
	if os.Getenv("SIMABI_UPDATE_DOCS") != "" {
		if err := os.WriteFile("../docs/trace.md", []byte(text[:i+len(begin)]+want+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("docs/trace.md: the vocabulary tables rewritten")
		return
	}
	t.Errorf("docs/trace.md's vocabulary tables differ from tracevocab.Markdown() (SIMABI_UPDATE_DOCS=1 go test ./tests -run TestDocs_traceVocabularyTable rewrites them):\n%s",
		cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n")))
}
