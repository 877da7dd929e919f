package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/conformance/session"
	"github.com/simabi/simabi/docs"
	"github.com/simabi/simabi/sim/emit"
)

// abicheck explain E-FIN prints the contract's outstanding-run clause from
// the embedded docs/contract.md, and names where it lives.
func TestExplainPrintsTheRule_EFIN(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "explain", "E-FIN")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"### E-FIN\n",
		"**Outstanding native run.** [E-FIN.8] A run becomes outstanding when the `simpler_prepare_run` that\nopens it succeeds.",
		"(docs/contract.md#e-fin, under \"E — entry behaviour\")",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain E-FIN lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "### E-DESTROY") {
		t.Errorf("explain E-FIN runs into the next rule:\n%s", r.stdout)
	}
}

func TestExplainErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"explain", "EFIN"}, exitUsage, "abicheck explain: \"EFIN\" is no rule or clause of the contract; did you mean E-FIN?\n"},
		{[]string{"explain", "V-PREP"}, exitUsage, "abicheck explain: \"V-PREP\" is no rule or clause of the contract; did you mean V-PREP-1, V-PREP-2?\n"},
		{[]string{"explain", "Q-9"}, exitUsage, "abicheck explain: \"Q-9\" is no rule or clause of the contract (abicheck rules lists them)\n"},
		{[]string{"explain", "E-FIN.99"}, exitUsage, "abicheck explain: \"E-FIN.99\" is no rule or clause of the contract (abicheck rules lists them)\n"},
		{[]string{"explain"}, exitUsage, explainUsage},
		{[]string{"rules", "-x"}, exitUsage, "abicheck rules: unexpected argument \"-x\" (abicheck rules -h for help)\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runCLI(t, nil, tc.args...)
			if r.code != tc.code || r.stderr != tc.err || r.stdout != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit %d, stderr %q", r.code, r.stderr, r.stdout, tc.code, tc.err)
			}
		})
	}
	// Case does not matter.
	if r := runCLI(t, nil, "explain", "v-img"); r.code != exitOK || !strings.HasPrefix(r.stdout, "### V-IMG\n") {
		t.Errorf("explain v-img: exit %d\n%s", r.code, r.stdout)
	}
}

// abicheck explain E-DESTROY.3 prints that clause of the contract, with the
// checks that judge it and the mutants that break it; explain E-DESTROY
// closes the rule's text with the table of its clauses. Both come from the
// contract's markers and the clause table (docs.Clauses, catalogue.Clauses).
func TestExplainPrintsClauses_EDESTROY(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "explain", "e-destroy.3")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	c, ok := docs.FindClause("E-DESTROY.3")
	if !ok {
		t.Fatal("no clause E-DESTROY.3 in the contract")
	}
	for _, want := range []string{
		"E-DESTROY.3 (rule E-DESTROY, docs/contract.md:",
		"  A refused destroy is logged. The context survives it",
		"checked by: e-destroy/refused-leaves-program-context",
		"broken by:  refused-destroy-drops-callables, refused-destroy-drops-residents",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain E-DESTROY.3 lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.HasPrefix(c.Text, "A refused destroy is logged.") {
		t.Errorf("clause text %q", c.Text)
	}
	r = runCLI(t, nil, "explain", "E-DESTROY")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"\nClauses:\n", "  E-DESTROY.1  ", "(cannot be driven: see abicheck explain E-DESTROY.5)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain E-DESTROY lacks %q:\n%s", want, r.stdout)
		}
	}
	if u := runCLI(t, nil, "explain", "E-DESTROY.5"); !strings.Contains(u.stdout, "cannot be driven: a freed handle") {
		t.Errorf("explain E-DESTROY.5 gives no reason:\n%s", u.stdout)
	}
}

// abicheck rules lists the catalogue: every rule with its applicability and
// its one line from the contract.
func TestRulesListsTheCatalogue(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "rules", "-json")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var got []catalogue.RuleRow
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("rules -json: %v\n%s", err, r.stdout)
	}
	sections, err := docs.Rules()
	if err != nil {
		t.Fatal(err)
	}
	var want []catalogue.RuleRow
	for _, s := range sections {
		want = append(want, catalogue.RuleRow{ID: s.ID, AppliesTo: s.AppliesTo, OneLine: s.OneLine, Anchor: "docs/contract.md#" + strings.ToLower(s.ID)})
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("abicheck rules -json (-contract +listed):\n%s", d)
	}
	table := runCLI(t, nil, "rules")
	if table.code != exitOK {
		t.Fatalf("exit %d", table.code)
	}
	lines := strings.Split(strings.TrimSpace(table.stdout), "\n")
	if len(lines) != len(want)+3 { // header, rules, blank, footer
		t.Fatalf("%d lines for %d rules:\n%s", len(lines), len(want), table.stdout)
	}
	for i, w := range want {
		f := strings.Fields(lines[i+1])
		if f[0] != w.ID || !strings.Contains(lines[i+1], w.AppliesTo) || !strings.HasSuffix(lines[i+1], w.OneLine) {
			t.Errorf("line %q, want %s / %s / %s", lines[i+1], w.ID, w.AppliesTo, w.OneLine)
		}
	}
}

// Every finding carries its rule's anchor in the contract: in the table,
// the JSON results and findings, the JUnit cases and the repro files.
func TestFindingsCarryTheRuleAnchor(t *testing.T) {
	t.Parallel()
	lib := build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: "img-trailing-ok"})
	dir := t.TempDir()
	xmlPath := filepath.Join(dir, "a.xml")
	// V-IMG's finding is a directed check's: no probes, no random sequences.
	r := runCLI(t, nil, "-q", "-no-probes", "-sequences", "0", "-repro-dir", dir, "-junit", xmlPath, lib)
	if r.code != exitFindings {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "--- V-IMG fail: ") || !strings.Contains(r.stdout, "\n    rule: docs/contract.md#v-img (abicheck explain V-IMG)\n") {
		t.Errorf("table lacks the V-IMG anchor line:\n%s", r.stdout)
	}
	repro, err := os.ReadFile(filepath.Join(dir, "repro-V-IMG.ops"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(repro), "\n# rule: docs/contract.md#v-img\n") {
		t.Errorf("repro file lacks the anchor:\n%s", repro)
	}
	b, err := os.ReadFile(xmlPath)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Suites []struct {
			Cases []struct {
				Name  string `xml:"name,attr"`
				Props []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
				Failure *struct {
					Body string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, c := range s.Suites[0].Cases {
		want := "docs/contract.md#" + strings.ToLower(c.Name)
		if c.Name == "HOOKS" {
			want = "docs/contract.md#f-1"
		}
		if len(c.Props) != 1 || c.Props[0].Name != "contract" || c.Props[0].Value != want {
			t.Errorf("case %s: properties %+v, want contract=%s", c.Name, c.Props, want)
		}
		if c.Name == "V-IMG" {
			seen = true
			if c.Failure == nil || !strings.HasPrefix(c.Failure.Body, "rule: docs/contract.md#v-img\n") {
				t.Errorf("V-IMG failure %+v, want its body to open with the anchor", c.Failure)
			}
		}
	}
	if !seen {
		t.Error("no V-IMG case")
	}
	j := runCLI(t, nil, "-json", "-no-probes", "-sequences", "0", lib)
	var rep struct {
		Results  []session.JSONResult   `json:"results"`
		Findings []report.FindingReport `json:"findings"`
	}
	if err := json.Unmarshal(onlyTarget(t, j.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Anchor != "docs/contract.md#"+strings.ToLower(f.Rule) {
			t.Errorf("finding %s %s: anchor %q", f.Rule, f.Fingerprint, f.Anchor)
		}
	}
	for _, rr := range rep.Results {
		want := "docs/contract.md#" + strings.ToLower(rr.Rule)
		if rr.Rule == "HOOKS" {
			want = "docs/contract.md#f-1"
		}
		if rr.Anchor != want {
			t.Errorf("result %s: anchor %q", rr.Rule, rr.Anchor)
		}
	}
	if len(rep.Findings) == 0 {
		t.Error("the mutant produced no findings")
	}
}
