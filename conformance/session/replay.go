package session

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/simabi/simabi/conformance"
)

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
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "# "+key+":"); ok {
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
	Target   JSONTarget    `json:"target"`
	File     string        `json:"file"`
	Ops      int           `json:"ops"`
	Verdict  string        `json:"verdict"`
	Detail   string        `json:"detail"`
	At       int           `json:"at"`
	History  []string      `json:"history"`
	Findings []JSONFinding `json:"findings"`
}

// Replay runs an op script once on target t and prints what happened (a
// history, or the op log up to a crash or hang; JSON with o.JSON): failed
// when it fails (a failure finding, a crash or a hang). from says how t was
// chosen, for the first line.
func Replay(t *Target, file string, ops []op.Op, from string, o *Options, stdout io.Writer) (failed bool, err error) {
	out := t.Exec.Execute(ops, true)
	failed = out.Verdict != model.Pass
	var findings []model.Finding
	if out.Result != nil {
		findings = out.Result.Findings
		failed = failed || out.Result.Failed()
	}
	verdict := out.Verdict
	if out.Verdict == model.Pass && failed {
		verdict = model.Fail
	}
	if o.JSON {
		i := t.Info
		j := JSONReplay{Target: JSONTarget{Path: i.Path, Revision: i.Revision, Profile: i.Profile, Supported: i.Supported,
			Hooks: i.Hooks, ACL: i.ACL, Isolated: t.Isolated}, File: file, Ops: len(ops), Verdict: verdict.String(),
			Detail: out.Detail, At: out.At, History: out.History, Findings: []JSONFinding{}}
		if j.History == nil {
			j.History = []string{}
		}
		for _, f := range findings {
			jf := JSONFinding{Index: f.Index, Rule: f.Rule.String(), Verdict: f.Verdict.String(), Detail: f.Detail}
			if f.Index >= 0 {
				jf.Op = f.Op.String()
			}
			j.Findings = append(j.Findings, jf)
		}
		if err := WriteJSONValue(stdout, j); err != nil {
			return failed, err
		}
	} else {
		fmt.Fprintf(stdout, "replay %s on %s%s (revision %s, profile %s): %d ops\n", file, t.Label, from, t.Info.Revision, t.Info.Profile, len(ops))
		switch out.Verdict {
		case model.Pass:
			for _, l := range out.History {
				fmt.Fprintf(stdout, "  %s\n", shortOp(l))
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
		default:
			for i, op := range conformance.ReproPrefix(ops, out.At) {
				mark := ""
				if i == out.At {
					mark = "   <- " + out.Verdict.String()
				}
				fmt.Fprintf(stdout, "  #%d %s%s\n", i, shortOp(op.String()), mark)
			}
			fmt.Fprintf(stdout, "%s at %s: %s\n", out.Verdict, conformance.OpAt(ops, out.At), out.Detail)
		}
		if failed {
			fmt.Fprintf(stdout, "replay: %s (the failure reproduces)\n", strings.ToUpper(verdict.String()))
		} else {
			fmt.Fprintln(stdout, "replay: PASS (no failure)")
		}
	}
	return failed, nil
}
