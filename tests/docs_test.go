package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// The documents a user reads say the truth: every link resolves inside the
// repository, and every code block a user is told to run is the one a test
// runs.

// repoRoot is the module's root (this package is tests/).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// markdownFiles lists the repository's Markdown files (not build output).
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "build" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	linkRE    = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	headingRE = regexp.MustCompile(`(?m)^(#{1,6}) (.+)$`)
	fenceRE   = regexp.MustCompile("(?ms)^```.*?^```")
)

// heading is a Markdown heading outside the code blocks.
type heading struct {
	level  int    // 1 for "# ", 2 for "## ", ...
	text   string // as written, markup included
	anchor string // GitHub's link target for it
}

// headings are text's headings in order, each with GitHub's anchor: its
// slug, and "-1", "-2", ... after the slug of an earlier heading.
func headings(text string) []heading {
	var out []heading
	seen := map[string]int{}
	for _, m := range headingRE.FindAllStringSubmatch(fenceRE.ReplaceAllString(text, ""), -1) {
		h := heading{level: len(m[1]), text: strings.TrimSpace(m[2]), anchor: slug(m[2])}
		if n := seen[h.anchor]; n > 0 {
			seen[h.anchor] = n + 1
			h.anchor = fmt.Sprintf("%s-%d", h.anchor, n)
		} else {
			seen[h.anchor] = 1
		}
		out = append(out, h)
	}
	return out
}

// anchors are the GitHub anchors of a Markdown file's headings.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, h := range headings(text) {
		out[h.anchor] = true
	}
	return out
}

// slug is GitHub's heading anchor: lower case, spaces to '-', everything
// but letters, marks, digits, '_' and '-' dropped (so "S — status codes"
// is "s--status-codes").
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.Pc):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Every link of every Markdown file resolves to a file of the repository
// (and to a heading of it when it names one): no link leaves the repository.
func TestDocsLinksStayInTheRepository(t *testing.T) {
	root := repoRoot(t)
	files := markdownFiles(t, root)
	if len(files) < 5 {
		t.Fatalf("found %d Markdown files", len(files))
	}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		body := fenceRE.ReplaceAllString(string(text), "")
		for _, m := range linkRE.FindAllStringSubmatch(body, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				t.Errorf("%s: link %q leaves the repository", rel, target)
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.Clean(filepath.Join(filepath.Dir(f), path))
			}
			if r, err := filepath.Rel(root, dest); err != nil || strings.HasPrefix(r, "..") {
				t.Errorf("%s: link %q points outside the repository", rel, target)
				continue
			}
			st, err := os.Stat(dest)
			if err != nil {
				t.Errorf("%s: link %q: %v", rel, target, errors.Unwrap(err))
				continue
			}
			if frag != "" && !st.IsDir() && strings.HasSuffix(dest, ".md") {
				dt, _ := os.ReadFile(dest)
				if !anchors(string(dt))[frag] {
					t.Errorf("%s: link %q: %s has no heading #%s", rel, target, filepath.Base(dest), frag)
				}
			}
		}
	}
}

var testedRE = regexp.MustCompile("(?s)<!-- tested: (\\S+)[^>]*-->\\s*\n```[a-z+]*\n(.*?)```")

// testedBlock is the code block of doc marked as the file path.
func testedBlock(t *testing.T, doc, path string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(repoRoot(t), doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range testedRE.FindAllStringSubmatch(string(text), -1) {
		if m[1] == path {
			return m[2]
		}
	}
	t.Fatalf("%s has no code block marked <!-- tested: %s -->", doc, path)
	return ""
}

// A marked block is the tested file, byte for byte, so the two cannot drift.
func TestDocsBlocksAreTheTestedFiles(t *testing.T) {
	for _, c := range []struct{ doc, file string }{
		{"docs/fake-runtime.md", "python/tests/test_fake_runtime_docs.py"},
		{"docs/fake-runtime.md", "sim/emit/testdata/docs_example.cpp"},
		{"README.md", "python/tests/test_readme.py"},
	} {
		want, err := os.ReadFile(filepath.Join(repoRoot(t), c.file))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(string(want), testedBlock(t, c.doc, c.file)); d != "" {
			t.Errorf("%s: the block marked %s differs from the file (-file +doc):\n%s", c.doc, c.file, d)
		}
	}
}

func run(t *testing.T, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// The C++ example of docs/fake-runtime.md checks without assert: built with
// -DNDEBUG it passes on the fake and fails on a broken runtime (a mutant
// whose prepare leaves out_callable_id alone, V-PREP-1).
func TestDocsCppExampleChecksUnderNDEBUG(t *testing.T) {
	cxx, err := exec.LookPath("c++")
	if err != nil {
		t.Skip("skipping: no c++ compiler")
	}
	src := filepath.Join(t.TempDir(), "test.cpp")
	if err := os.WriteFile(src, []byte(testedBlock(t, "docs/fake-runtime.md", "sim/emit/testdata/docs_example.cpp")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mutant string
		ok     bool
	}{{"", true}, {"prep-keeps-out", false}} {
		a := emittest.Build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: c.mutant})
		dir := filepath.Dir(a.RuntimePath)
		exe := filepath.Join(t.TempDir(), "test")
		if out, err := run(t, "", nil, cxx, "-std=c++17", "-DNDEBUG", "-Wall", "-Wextra", "-I", dir, src, "-o", exe, "-L", dir,
			"-l:"+emit.RuntimeLibName, "-l:"+emit.ACLLibName, "-Wl,-rpath,"+dir); err != nil {
			t.Fatalf("c++: %v\n%s", err, out)
		}
		out, err := run(t, "", nil, exe)
		switch {
		case c.ok && (err != nil || strings.TrimSpace(out) != "ok"):
			t.Errorf("the example on the fake: %v\n%s", err, out)
		case !c.ok && err == nil:
			t.Errorf("the example passed on mutant %s under -DNDEBUG:\n%s", c.mutant, out)
		}
	}
}

// README starts with the two commands a new user runs; the test suite runs
// the first (TestDefaultRun in cmd/abicheck) and CI the second.
func TestREADMEStartsWithTheTwoCommands(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)^# simabi\n\n```sh\n(.*?)```").FindSubmatch(text)
	if m == nil {
		t.Fatal("README.md does not start with a sh block after its title")
	}
	var cmds []string
	for _, l := range strings.Split(strings.TrimSpace(string(m[1])), "\n") {
		cmd, _, _ := strings.Cut(l, "#")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	if d := cmp.Diff([]string{"go run ./cmd/abicheck", "make test"}, cmds); d != "" {
		t.Errorf("README's first commands (-want +got):\n%s", d)
	}
	ci, err := os.ReadFile(filepath.Join(repoRoot(t), ".ci", "run"))
	if err != nil || !regexp.MustCompile(`(?m)^make test$`).Match(ci) {
		t.Errorf(".ci/run does not run make test: %v", err)
	}
}

// README's Go example is an excerpt of lifecycle's Example, which go test
// runs: its lines appear there in order ("// ..." marks an elision).
func TestREADMEGoExampleIsTheTestedExample(t *testing.T) {
	root := repoRoot(t)
	block := testedBlock(t, "README.md", "lifecycle/example_test.go")
	src, err := os.ReadFile(filepath.Join(root, "lifecycle", "example_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	at := 0
	for _, want := range strings.Split(strings.TrimSpace(block), "\n") {
		want = strings.TrimSpace(want)
		if want == "" || want == "// ..." {
			continue
		}
		found := false
		for ; at < len(lines); at++ {
			if strings.TrimSpace(lines[at]) == want {
				found, at = true, at+1
				break
			}
		}
		if !found {
			t.Fatalf("README's Go example line %q is not in lifecycle/example_test.go (in order)", want)
		}
	}
}
