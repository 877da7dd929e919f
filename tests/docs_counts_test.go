package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/tests/commdiff"
	"github.com/simabi/simabi/tests/opfuzz"
)

// Every count a document states of what the code has (rules, clauses,
// mutants, checks, entries, hooks, fault sites, fuzz targets, ...) is one of
// docCounts, which holds it to the code, or a dated measurement: it stands
// in a paragraph or table row that names the date or the commit it was
// measured at. TestDocsCountsAreTheCode checks the first;
// TestDocsStateNoUncheckedCount finds a count that is neither.

// docCount is a count a document states and the code that knows it.
type docCount struct {
	doc    string // the document, from the repository's root
	phrase string // a regexp; its first group is the number, in digits ("1,000") or a word ("ten")
	count  func(t *testing.T) int
}

var docCounts = []docCount{
	{"README.md", `all (eleven) fuzz targets`, fuzzTargetCount},
	{"README.md", `upstream's (four) simulator runtimes`, upstreamBuildCount},
	{"docs/abicheck.md", `(four) simulation hooks`, symbolCount(abi.GroupSimHooks)},
	{"docs/abicheck.md", `the (four) kernel entries`, symbolCount(abi.GroupKernelMode)},
	{"docs/abicheck.md", `in contract\.md order \((\d+)\)`, runtimeRuleCount},
	{"docs/abicheck.md", `the (six) levels of contract\.md`, logLevelCount},
	{"docs/abicheck.md", `upstream's (four) simulator runtimes`, upstreamBuildCount},
	{"docs/abicheck.md", `clauses of docs/contract\.md: (\d+);`, clauseCount},
	{"docs/abicheck.md", `; (\d+) cannot be driven through the ABI`, undrivenClauseCount},
	{"docs/abicheck.md", `; (\d+) checked by a directed check`, checkedClauseCount},
	{"docs/abicheck.md", `mutant killed: (\d+) of the \d+ whose`, mutatedClauseCount},
	{"docs/abicheck.md", `of the (\d+) whose mutants ran`, mutatedClauseCount},
	{"docs/contract.md", `(?i)the (four) kernel entries`, symbolCount(abi.GroupKernelMode)},
	{"docs/contract.md", `the (six) log levels`, logLevelCount},
	{"docs/contract.md", `The (twelve) comm entries`, symbolCount(abi.GroupComm)},
	{"docs/contract.md", `resolves all (twelve) at init`, symbolCount(abi.GroupComm)},
	{"docs/contract.md", `models all (ten) sites`, lastFaultSite},
	{"docs/contract.md", `a site outside 1\.\.(\d+)`, lastFaultSite},
	{"docs/fake-runtime.md", `lists all (\d+) of\s+them`, mutantCount},
	{"docs/fake-runtime.md", `fault sites 1\.\.(\d+)`, lastFaultSite},
	{"docs/fake-runtime.md", "fault site `site` \\(1\\.\\.(\\d+) or its name", lastFaultSite},
	{"docs/fuzzing.md", `has (eleven) fuzz targets`, fuzzTargetCount},
	{"docs/fuzzing.md", `all (eleven) (?:as libFuzzer|with Go's engine)`, fuzzTargetCount},
	{"docs/fuzzing.md", `fault sites 0\.\.(\d+)`, lastFaultSite},
	{"docs/fuzzing.md", `at most (\d+) ops: handles`, func(*testing.T) int { return commdiff.MaxOps }},
	{"docs/fuzzing.md", `at most (\d+) ops, without the fill`, func(*testing.T) int { return recordedMaxOps }},
	{"docs/fuzzing.md", `stops at (\d+) ops \(\x60opfuzz\.MaxOps`, func(*testing.T) int { return opfuzz.MaxOps }},
	{"docs/fuzzing.md", `cap is (\d+) ops`, func(*testing.T) int { return opfuzz.MaxOps }},
	{"docs/fuzzing.md", `one time in ([\d,]+)\s+\(\x60opfuzz\.FillOneIn`, func(*testing.T) int { return opfuzz.FillOneIn }},
	{"docs/semantics.md", `the (six) log levels`, logLevelCount},
	{"docs/semantics.md", `each site 1\.\.(\d+)`, lastFaultSite},
	{"docs/semantics.md", `models all (ten)`, lastFaultSite},
	{"docs/trace.md", `the (four) simulation hooks`, symbolCount(abi.GroupSimHooks)},
	{"docs/upstream.md", `all (twelve) (?:entries|comm)`, symbolCount(abi.GroupComm)},
	{"docs/upstream.md", `(four) simulator (?:runtimes|builds)`, upstreamBuildCount},
}

func mutantCount(*testing.T) int { return len(emit.Mutants()) }

func symbolCount(g abi.Group) func(*testing.T) int {
	return func(*testing.T) int {
		n := 0
		for _, s := range abi.Symbols {
			if s.Group == g {
				n++
			}
		}
		return n
	}
}

func logLevelCount(*testing.T) int { return len(abi.LogLevels()) }

func lastFaultSite(*testing.T) int { return int(abi.LastSite) }

func fuzzTargetCount(t *testing.T) int { return len(moduleFuzzTargets(t)) }

// runtimeRuleCount is the number of rules a report has a result for.
func runtimeRuleCount(*testing.T) int {
	n := 0
	for _, r := range catalogue.Rules() {
		if r.Scope == catalogue.ScopeRuntime {
			n++
		}
	}
	return n
}

// The clause coverage line of abicheck mutants, counted as its
// clauseCoverage counts it for a run of every mutant.
func clauseCount(*testing.T) int { return len(catalogue.Clauses()) }

func undrivenClauseCount(*testing.T) int {
	return clausesWhere(func(c catalogue.ClauseSpec) bool { return c.Undriven != "" })
}

func checkedClauseCount(*testing.T) int {
	return clausesWhere(func(c catalogue.ClauseSpec) bool { return c.Undriven == "" && len(c.Checks) > 0 })
}

func mutatedClauseCount(*testing.T) int {
	return clausesWhere(func(c catalogue.ClauseSpec) bool { return c.Undriven == "" && len(c.Mutants) > 0 })
}

func clausesWhere(keep func(catalogue.ClauseSpec) bool) int {
	n := 0
	for _, c := range catalogue.Clauses() {
		if keep(c) {
			n++
		}
	}
	return n
}

// upstreamBuildCount is the number of builds the upstream lane makes.
func upstreamBuildCount(t *testing.T) int {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "lanes", "upstream", "run"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^builds=\$\{BUILDS:-([^}]*)\}`).FindSubmatch(b)
	if m == nil {
		t.Fatal("lanes/upstream/run has no builds=${BUILDS:-...} line")
	}
	return len(strings.Fields(string(m[1])))
}

// numberWords are the numbers documents write as words.
var numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}

// parseCount reads "1,000", "51" or "ten".
func parseCount(s string) (int, bool) {
	for i, w := range numberWords {
		if strings.EqualFold(s, w) {
			return i, true
		}
	}
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	return n, err == nil
}

func TestDocsCountsAreTheCode(t *testing.T) {
	root := repoRoot(t)
	for _, c := range docCounts {
		text, err := os.ReadFile(filepath.Join(root, c.doc))
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(c.phrase)
		ms := re.FindAllStringSubmatch(string(text), -1)
		if len(ms) == 0 {
			t.Errorf("%s no longer says %q: update or drop its row of docCounts", c.doc, c.phrase)
			continue
		}
		want := c.count(t)
		for _, m := range ms {
			if got, ok := parseCount(m[1]); !ok || got != want {
				t.Errorf("%s: %q says %s; the code has %d", c.doc, m[0], m[1], want)
			}
		}
	}
}

// countedRE is a count of what the code has: a number (not the end of an
// ID like V-PREP-1 or E-PROG.1), up to two words, and a noun of the code's
// things.
var countedRE = regexp.MustCompile("(?i)(?:^|[^\\w.-])((?:\\d{1,3}(?:,\\d{3})+|\\d+|" + strings.Join(numberWords[2:], "|") + ")" +
	"(?: [\\w`'-]+){0,2}? " +
	"(?:rules|clauses|mutants|scenarios|fuzz targets|targets|fuzzers|symbols|hooks|entries|sites|levels|checks|counters))\\b")

// datedRE marks a paragraph or table row as a dated measurement: a date or
// a commit.
var datedRE = regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b|\b(?:commit|at|simabi|upstream) [0-9a-f]{7,}\b`)

func TestDocsStateNoUncheckedCount(t *testing.T) {
	root := repoRoot(t)
	for _, f := range documents(t) {
		rel, _ := filepath.Rel(root, f)
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		var covered [][]int
		for _, c := range docCounts {
			if c.doc == rel {
				covered = append(covered, regexp.MustCompile(c.phrase).FindAllStringIndex(text, -1)...)
			}
		}
		for _, n := range notCounts {
			if n.doc != rel {
				continue
			}
			ms := regexp.MustCompile(n.phrase).FindAllStringIndex(text, -1)
			if len(ms) == 0 {
				t.Errorf("%s no longer says %q: drop its row of notCounts", rel, n.phrase)
			}
			covered = append(covered, ms...)
		}
		for _, p := range paragraphs(text) {
			if datedRE.MatchString(text[p.start:p.end]) || datedRE.MatchString(p.under) {
				continue
			}
		next:
			for _, m := range countedRE.FindAllStringSubmatchIndex(text[p.start:p.end], -1) {
				at, end := p.start+m[2], p.start+m[3]
				for _, c := range covered {
					if c[0] <= at && end <= c[1] {
						continue next
					}
				}
				line := strings.Count(text[:at], "\n") + 1
				t.Errorf("%s:%d: %q: a count that docCounts does not check and no date or commit marks as measured", rel, line, text[at:end])
			}
		}
	}
}

// paragraph is a paragraph of a document: a table row and a list item are
// paragraphs of their own.
type paragraph struct {
	start, end int
	under      string // the headings it stands under, joined
}

// paragraphs are the paragraphs of text outside its code blocks.
func paragraphs(text string) []paragraph {
	var out []paragraph
	var heads [7]string
	start, off := -1, 0
	inFence := false
	flush := func(at int) {
		if start >= 0 {
			out = append(out, paragraph{start, at, strings.Join(heads[:], " / ")})
			start = -1
		}
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "```"):
			flush(off)
			inFence = !inFence
		case inFence:
		case trimmed == "":
			flush(off)
		case headingRE.MatchString(trimmed):
			flush(off)
			level := strings.IndexByte(trimmed, ' ')
			heads[level] = trimmed
			for i := level + 1; i < len(heads); i++ {
				heads[i] = ""
			}
		case strings.HasPrefix(trimmed, "|") || strings.HasPrefix(trimmed, "- ") || listItemRE.MatchString(trimmed):
			flush(off)
			start = off
		default:
			if start < 0 {
				start = off
			}
		}
		off += len(line)
	}
	flush(off)
	return out
}

var listItemRE = regexp.MustCompile(`^\d+\. `)

// notCounts are phrases the count pattern meets that state no count of the
// code's things, each with the reason.
var notCounts = []struct{ doc, phrase, why string }{
	{"README.md", `two clauses share`, "any two clauses: a refusal shared, not a number of the contract's"},
	{"docs/abicheck.md", `two\s+clauses`, "any two clauses: a refusal shared, not a number of the contract's"},
	{"docs/abicheck.md", `cut to three rules`, "an example cut short"},
	{"docs/abicheck.md", `two targets' histories`, "a diff compares two targets"},
	{"docs/contract.md", `four checks have passed: V-INIT,`, "the sentence names the four"},
	{"docs/contract.md", `Four clauses are decisions`, "the list that follows names the four"},
	{"docs/fake-runtime.md", `the first six counters`, "D-1's six ACL calls, which the row above names"},
	{"docs/fuzzing.md", `256 signature entries`, "the shape of checked-in seed files"},
	{"docs/fuzzing.md", `0 to 32 entries`, "the shape of checked-in seed files"},
}
