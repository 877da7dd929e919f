package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/sim/emit"
)

// What the documents say of abicheck's flags is what -h says: the flag
// table of docs/abicheck.md names every flag with its default, and every
// default a document states in prose is the one the flag has.

// helpDefaults runs abicheck with args (ending in -h) and reads each flag's
// default from the help: "" for a flag whose default is its zero value.
func helpDefaults(t *testing.T, args ...string) map[string]string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != exitOK {
		t.Fatalf("abicheck %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	defaults := map[string]string{}
	flagLine := regexp.MustCompile(`^  -([\w-]+)`)
	defaultRE := regexp.MustCompile(`\(default "?([^")]*)"?\)$`)
	name := ""
	for _, l := range strings.Split(out.String(), "\n") {
		if m := flagLine.FindStringSubmatch(l); m != nil {
			name = m[1]
			defaults[name] = ""
		}
		if m := defaultRE.FindStringSubmatch(l); m != nil && name != "" {
			defaults[name] = m[1]
		}
	}
	if len(defaults) < 10 {
		t.Fatalf("abicheck %s: found %d flags in the help:\n%s", strings.Join(args, " "), len(defaults), out.String())
	}
	return defaults
}

// isSwitch reports whether abicheck's flag name is a boolean one.
func isSwitch(name string) bool {
	var o options
	f := newFlagSet(&o).Lookup(name)
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// readDoc is a document's text with every run of white space one space, so
// that a phrase matches wherever the lines break.
func readDoc(t *testing.T, doc string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", doc))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// docs/abicheck.md's flag table has a row for each flag of abicheck -h and
// none for a flag it does not have, with the default -h shows ("off" for a
// switch, empty for none).
func TestDocsFlagTableIsTheFlags(t *testing.T) {
	b, err := os.ReadFile("../../docs/abicheck.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "\n### Flags\n")
	if !ok {
		t.Fatal(`docs/abicheck.md has no "### Flags" section`)
	}
	table, _, _ = strings.Cut(table, "\n#")
	documented := map[string]string{}
	names := regexp.MustCompile("`(-[a-z][\\w-]*)")
	for _, row := range strings.Split(table, "\n") {
		cells := strings.Split(strings.ReplaceAll(row, `\|`, "/"), "|")
		if !strings.HasPrefix(row, "| `-") || len(cells) < 4 {
			continue
		}
		cells = cells[1:]
		for _, m := range names.FindAllStringSubmatch(cells[0], -1) {
			documented[m[1][1:]] = strings.TrimSpace(cells[1])
		}
	}
	want := map[string]string{}
	for name, def := range helpDefaults(t, "-h") {
		if def == "" && isSwitch(name) {
			def = "off"
		}
		want[name] = def
	}
	if d := cmp.Diff(want, documented); d != "" {
		t.Errorf("docs/abicheck.md's flag table (flag: default) differs from abicheck -h (-help +doc):\n%s", d)
	}
}

// flagFact is a default a document states in its prose.
type flagFact struct {
	doc    string   // the document
	phrase string   // a regexp whose first group is the value as the document writes it
	unit   string   // what the document leaves after the number ("s" for "10 s")
	help   []string // the command whose -h shows the flag
	flag   string
}

var flagFacts = []flagFact{
	{"README.md", `([\d,]+) sampled operator mutations`, "", []string{"mutants"}, "mechanical-count"},
	{"docs/abicheck.md", `defaults: (\d+) sequences`, "", []string{"mutants"}, "sequences"},
	{"docs/abicheck.md", `sequences × (\d+) ops within \d+ s per mutant`, "", []string{"mutants"}, "max-ops"},
	{"docs/abicheck.md", `ops within (\d+) s per mutant`, "s", []string{"mutants"}, "duration"},
	{"docs/abicheck.md", `mutants \(([\d,]+) by default; 0: all\)`, "", []string{"mutants"}, "mechanical-count"},
	{"docs/abicheck.md", "`-mechanical-diff` \\((\\d+) s\\)", "s", []string{"mutants"}, "mechanical-diff"},
	{"docs/abicheck.md", "`-mechanical-diff-sequences` \\(([\\d,]+)\\)", "", []string{"mutants"}, "mechanical-diff-sequences"},
	{"docs/abicheck.md", `(\d+) random sequences × \d+ ops each`, "", nil, "sequences"},
	{"docs/abicheck.md", `random sequences × (\d+) ops each`, "", nil, "max-ops"},
	{"docs/performance.md", `up to (\d+) random sequences of \d+ ops`, "", []string{"mutants"}, "sequences"},
	{"docs/performance.md", `random sequences of (\d+) ops within \d+ s per mutant`, "", []string{"mutants"}, "max-ops"},
	{"docs/performance.md", `ops within (\d+) s per mutant`, "s", []string{"mutants"}, "duration"},
}

func TestDocsStateTheFlagDefaults(t *testing.T) {
	for _, f := range flagFacts {
		text := readDoc(t, f.doc)
		ms := regexp.MustCompile(f.phrase).FindAllStringSubmatch(text, -1)
		if len(ms) == 0 {
			t.Errorf("%s no longer says %q: update or drop its row of flagFacts", f.doc, f.phrase)
			continue
		}
		want := helpDefaults(t, append(slices.Clone(f.help), "-h")...)[f.flag]
		for _, m := range ms {
			if got := strings.ReplaceAll(m[1], ",", "") + f.unit; got != want {
				t.Errorf("%s: %q: abicheck %s -h says -%s defaults to %q", f.doc, m[0], strings.Join(f.help, " "), f.flag, want)
			}
		}
	}
	// Not a flag: the length of a mechanical survivor's sequences.
	doc := readDoc(t, "docs/abicheck.md")
	m := regexp.MustCompile(`random sequences of (\d+) ops \(every second one`).FindStringSubmatch(doc)
	if m == nil || m[1] != strconv.Itoa(mechanicalDiffOps) {
		t.Errorf("docs/abicheck.md: a mechanical survivor's sequences are %v ops long; mechanicalDiffOps is %d", m, mechanicalDiffOps)
	}
}

// -replay's help says where FILE runs, in replayMain's order: LIB, else the
// target a repro's header names, else sim:tmr (TestReplay runs all three).
func TestReplayHelpSaysWhereItRuns(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-h"}, &out, &errb); code != exitOK {
		t.Fatalf("-h: exit %d", code)
	}
	help := strings.Join(strings.Fields(out.String()), " ")
	want := "-replay FILE run the op script FILE once and print its history: on LIB; without LIB, a repro on the target " +
		"its header names (# target: sim:..., or # args: with the flags that loaded its library), else on sim:tmr; " +
		"a recorded trace (docs/trace.md) on sim:tmr -repro-dir"
	if !strings.Contains(help, want) {
		t.Errorf("abicheck -h does not say where -replay runs; want %q in\n%s", want, out.String())
	}
}

// diff's usage lists every flag that describes a build, the ones -old- and
// -new- take too.
func TestDiffUsageNamesEveryBuildFlag(t *testing.T) {
	defaults := helpDefaults(t, "diff", "-h")
	usage := strings.Join(strings.Fields(diffUsage), " ")
	n := 0
	for name := range defaults {
		side, ok := strings.CutPrefix(name, "old-")
		if !ok {
			continue
		}
		n++
		if !strings.Contains(usage, "-"+side+",") && !strings.Contains(usage, "-"+side+")") {
			t.Errorf("diff's usage does not name -%s among the flags that describe a build", side)
		}
	}
	if n < 7 {
		t.Errorf("diff has %d -old- flags", n)
	}
}

// docs/abicheck.md's repro file has the header lines abicheck writes, in
// their order: the ones -replay reads to choose its target among them.
func TestDocsReproFileIsWhatIsWritten(t *testing.T) {
	t.Parallel()
	lib := build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: "img-trailing-ok"})
	dir := t.TempDir()
	// V-IMG's repro is a directed check's, its header that of any finding's.
	if r := runCLI(t, nil, "-q", "-no-probes", "-sequences", "0", "-repro-dir", dir, lib); r.code != exitFindings {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	written, err := os.ReadFile(filepath.Join(dir, "repro-V-IMG.ops"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../docs/abicheck.md")
	if err != nil {
		t.Fatal(err)
	}
	_, example, ok := strings.Cut(string(b), "With `-repro-dir out` the file is written")
	_, example, _ = strings.Cut(example, "```\n")
	example, _, _ = strings.Cut(example, "```")
	if !ok || example == "" {
		t.Fatal("docs/abicheck.md has no example repro file after \"With `-repro-dir out` the file is written\"")
	}
	keys := func(text string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`(?m)^# ([\w ]+):`).FindAllStringSubmatch(text, -1) {
			out = append(out, m[1])
		}
		return out
	}
	if d := cmp.Diff(keys(string(written)), keys(example)); d != "" {
		t.Errorf("the example repro file's header lines differ from what abicheck writes (-written +doc):\n%s\nwritten:\n%s", d, written)
	}
}

// docs/abicheck.md's synopses of abicheck mutants (the hand-written and the
// mechanical one) name every flag of abicheck mutants -h between them.
func TestDocsMutantsSynopsisNamesEveryFlag(t *testing.T) {
	b, err := os.ReadFile("../../docs/abicheck.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("(?ms)^```\n(abicheck mutants .*?)^```").FindAllStringSubmatch(string(b), -1) {
		for _, f := range regexp.MustCompile(`\[-([\w-]+)|^abicheck mutants -([\w-]+)`).FindAllStringSubmatch(m[1], -1) {
			named[f[1]+f[2]] = true
		}
	}
	var missing []string
	for name := range helpDefaults(t, "mutants", "-h") {
		if !named[name] {
			missing = append(missing, "-"+name)
		}
		delete(named, name)
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("docs/abicheck.md's abicheck mutants synopses do not name %s", strings.Join(missing, ", "))
	}
	for name := range named {
		t.Errorf("docs/abicheck.md's abicheck mutants synopses name -%s, which abicheck mutants does not have", name)
	}
}
