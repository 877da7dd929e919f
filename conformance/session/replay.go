package session

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/report"
)

// ReplayMain is abicheck -replay FILE [LIB]: the script runs once on lib,
// else the target its header names (# target: sim:..., or # args: the
// flags that loaded its library, which argsLib parses into o, returning
// the LIB), else sim:tmr; a recorded trace replays on lib, else sim:tmr.
func ReplayMain(o *Options, lib string, argsLib func(words []string) (string, error), stdout, stderr io.Writer) int {
	b, err := os.ReadFile(o.Replay)
	if err != nil {
		return UsageError(stderr, "-replay: "+err.Error())
	}
	text := string(b)
	if IsTrace(text) {
		return replayTraceMain(o, cmp.Or(lib, "sim:tmr"), text, stdout, stderr)
	}
	var expect *report.FindingID
	ops, err := op.ParseScript(text)
	if err == nil && len(ops) == 0 {
		err = errors.New("no ops in the file")
	}
	if err == nil {
		expect, err = ExpectedFinding(text)
	}
	if err != nil {
		return UsageError(stderr, fmt.Sprintf("-replay %s: %v", o.Replay, err))
	}
	spec, from := lib, ""
	if spec == "" {
		spec, from = ScriptTarget(text), " (named by the file's header)"
	}
	if args := Header(text, "args"); spec == "" && args != "" {
		// The library the repro came from, with the flags that loaded it.
		words, err := ShellWords(args)
		if err == nil {
			if spec, err = argsLib(words); err == nil {
				err = o.Validate(spec)
			}
		}
		if err != nil {
			return UsageError(stderr, "-replay "+o.Replay+": # args: "+err.Error())
		}
	}
	if spec == "" {
		spec, from = "sim:tmr", " (the default: the file names no target)"
	}
	t, err := OpenTarget(spec, o, stderr)
	if err != nil {
		return Failed(stderr, err)
	}
	defer t.Close()
	code, err := Replay(t, o.Replay, ops, from, expect, o, stdout)
	if err != nil {
		return Failed(stderr, err)
	}
	return code
}

// replayTraceMain replays a recorded session on spec.
func replayTraceMain(o *Options, spec, text string, stdout, stderr io.Writer) int {
	t, err := OpenTarget(spec, o, stderr)
	if err != nil {
		return Failed(stderr, err)
	}
	defer t.Close()
	differ, err := ReplayTrace(t, o.Replay, text, o, stdout)
	switch {
	case err != nil:
		return UsageError(stderr, "-replay "+err.Error())
	case differ:
		return ExitFindings
	}
	return ExitOK
}

// ScriptTarget is the built-in target a repro file names in its
// "# target: sim:..." header, or "".
func ScriptTarget(text string) string {
	v := Header(text, "target")
	if IsSimSpec(v) {
		return v
	}
	return ""
}

// Header is the value of the first "# key: value" line of a script, or "".
func Header(text, key string) string {
	for line := range strings.Lines(text) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "# "+key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// ShellWords splits a command line written by ShellQuote: words separated by
// blanks, single-quoted words, and inside them a quote written as quote,
// backslash, quote, quote (the way ShellQuote writes one).
func ShellWords(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		return nil, errors.New("unterminated quote")
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

type JSONFinding struct {
	Index   int    `json:"index"`
	Op      string `json:"op"`
	Rule    string `json:"rule"`
	Verdict string `json:"verdict"`
	Detail  string `json:"detail"`
}

type JSONReplay struct {
	Target     JSONTarget    `json:"target"`
	File       string        `json:"file"`
	Ops        int           `json:"ops"`
	Verdict    string        `json:"verdict"`
	Detail     string        `json:"detail"`
	At         int           `json:"at"`
	History    []string      `json:"history"`
	Findings   []JSONFinding `json:"findings"`
	Expected   string        `json:"expected,omitempty"` // the file's "# finding:" header
	Reproduced bool          `json:"reproduced"`
}

// ExpectedFinding is the finding a repro's "# finding:" header names, nil
// for a script without one.
func ExpectedFinding(text string) (*report.FindingID, error) {
	h := Header(text, "finding")
	if h == "" {
		return nil, nil
	}
	id, err := report.ParseFindingID(h)
	if err != nil {
		return nil, fmt.Errorf("# finding: %v", err)
	}
	return &id, nil
}

// Replay runs an op script once on target t and prints what happened (a
// history, or the op log up to a crash or hang). With expect (a repro's
// "# finding:" header) it exits ExitOK only when that finding reproduced;
// without, ExitFindings when the script fails. from says how t was chosen.
func Replay(t *Target, file string, ops []op.Op, from string, expect *report.FindingID, o *Options, stdout io.Writer) (int, error) {
	out := t.Exec.Execute(ops, true)
	failed := out.Verdict != model.Pass
	var findings []model.Finding
	if out.Result != nil {
		findings = out.Result.Findings
		failed = failed || out.Result.Failed()
	}
	verdict := out.Verdict
	if out.Verdict == model.Pass && failed {
		verdict = model.Fail
	}
	got := report.OutcomeIDs(ops, out)
	reproduced := expect != nil && slices.ContainsFunc(got, expect.Matches)
	code := ExitOK
	if (expect != nil && !reproduced) || (expect == nil && failed) {
		code = ExitFindings
	}
	if o.JSON {
		j := JSONReplay{Target: t.report(), File: file, Ops: len(ops), Verdict: verdict.String(), Detail: out.Detail, At: out.At,
			History: append([]string{}, out.History...), Findings: []JSONFinding{}, Reproduced: reproduced}
		if expect != nil {
			j.Expected = expect.String()
		}
		for _, f := range findings {
			jf := JSONFinding{Index: f.Index, Rule: f.Rule.String(), Verdict: f.Verdict.String(), Detail: f.Detail}
			if f.Index >= 0 {
				jf.Op = f.Op.String()
			}
			j.Findings = append(j.Findings, jf)
		}
		return code, WriteJSONValue(stdout, j)
	}
	fmt.Fprintf(stdout, "replay %s on %s%s (revision %s, profile %s): %d ops\n", file, t.Label, from, t.Info.Revision, t.Info.Profile, len(ops))
	printReplayRun(stdout, ops, out, findings)
	fmt.Fprintln(stdout, replayVerdictLine(expect, reproduced, got, failed, verdict))
	return code, nil
}

// replayVerdictLine is the replay's last line: whether the expected finding
// reproduced and what else failed, or (without one) whether the script failed.
func replayVerdictLine(expect *report.FindingID, reproduced bool, got []report.FindingID, failed bool, verdict model.Verdict) string {
	if expect == nil {
		if failed {
			return "replay: " + strings.ToUpper(verdict.String()) + " (the script fails)"
		}
		return "replay: PASS (no failure)"
	}
	var others []string
	for _, id := range got {
		if !expect.Matches(id) {
			w := id.Rule
			if id.Death() {
				w = id.Verdict.String() + " at " + id.Op
			}
			if !slices.Contains(others, w) {
				others = append(others, w)
			}
		}
	}
	also := strings.Join(others, ", ")
	switch {
	case reproduced && also == "":
		return "replay: reproduces " + expect.String()
	case reproduced:
		return "replay: reproduces " + expect.String() + " (also fails " + also + ")"
	case also == "":
		return "replay: does not reproduce " + expect.String() + "; no failure instead"
	}
	return "replay: does not reproduce " + expect.String() + "; fails " + also + " instead"
}

// printReplayRun prints a replay's history and findings, or the ops up to
// the one that died.
func printReplayRun(stdout io.Writer, ops []op.Op, out conformance.Outcome, findings []model.Finding) {
	if out.Verdict != model.Pass {
		for i, o := range conformance.ReproPrefix(ops, out.At) {
			mark := ""
			if i == out.At {
				mark = "   <- " + out.Verdict.String()
			}
			fmt.Fprintf(stdout, "  #%d %s%s\n", i, op.Abbreviate(o.String()), mark)
		}
		fmt.Fprintf(stdout, "%s at %s: %s\n", out.Verdict, conformance.OpAt(ops, out.At), out.Detail)
		return
	}
	for _, l := range out.History {
		fmt.Fprintf(stdout, "  %s\n", op.Abbreviate(l))
	}
	if out.Result.Lost != "" {
		fmt.Fprintf(stdout, "the model lost track: %s\n", out.Result.Lost)
	}
	if len(findings) > 0 {
		fmt.Fprintln(stdout, "findings:")
		for _, f := range findings {
			fmt.Fprintf(stdout, "  %s\n", f)
		}
	}
}
