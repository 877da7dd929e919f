package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/simabi/simabi/tests/conformance"
)

// scriptTarget is the built-in target a repro file names in its
// "# target: sim:..." header, or "".
func scriptTarget(text string) string {
	v := header(text, "target")
	if isSimSpec(v) {
		return v
	}
	return ""
}

// header is the value of the first "# key: value" line of a script, or "".
func header(text, key string) string {
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "# "+key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// shellWords splits a command line written by shellQuote: words separated by
// blanks, single-quoted words, and inside them a quote written as quote,
// backslash, quote, quote (the way shellQuote writes one).
func shellWords(s string) ([]string, error) {
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

type jsonFinding struct {
	Index   int    `json:"index"`
	Op      string `json:"op"`
	Rule    string `json:"rule"`
	Verdict string `json:"verdict"`
	Detail  string `json:"detail"`
}

type jsonReplay struct {
	Target   jsonTarget    `json:"target"`
	File     string        `json:"file"`
	Ops      int           `json:"ops"`
	Verdict  string        `json:"verdict"`
	Detail   string        `json:"detail"`
	At       int           `json:"at"`
	History  []string      `json:"history"`
	Findings []jsonFinding `json:"findings"`
}

// replayMain runs an op script once on a target and prints what happened:
// exit 1 when it fails (a failure finding, a crash or a hang), 0 otherwise.
func replayMain(o *options, lib string, stdout, stderr io.Writer) int {
	text, err := os.ReadFile(o.replay)
	if err != nil {
		return usage(stderr, "-replay: "+err.Error())
	}
	ops, err := conformance.ParseScript(string(text))
	if err != nil {
		return usage(stderr, fmt.Sprintf("-replay %s: %v", o.replay, err))
	}
	if len(ops) == 0 {
		return usage(stderr, "-replay "+o.replay+": no ops in the file")
	}
	spec, from := lib, ""
	if spec == "" {
		spec, from = scriptTarget(string(text)), " (named by the file's header)"
	}
	if spec == "" && header(string(text), "args") != "" {
		// The library the repro came from, with the flags that loaded it.
		words, err := shellWords(header(string(text), "args"))
		if err != nil {
			return usage(stderr, "-replay "+o.replay+": # args: "+err.Error())
		}
		fs := newFlagSet(o)
		if err := fs.Parse(words); err != nil || fs.NArg() != 1 {
			return usage(stderr, "-replay "+o.replay+": # args: is not [flags] LIB")
		}
		if err := o.validate(fs.Arg(0)); err != nil {
			return usage(stderr, "-replay "+o.replay+": # args: "+err.Error())
		}
		spec, from = fs.Arg(0), " (named by the file's header)"
	}
	if spec == "" {
		spec, from = "sim:tmr", " (the default: the file names no target)"
	}
	var t *target
	if isSimSpec(spec) {
		t = simTarget(spec, o.caseTimeout)
	} else {
		t, err = libTarget(spec, o, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "abicheck: %v\n", err)
			return exitUsage
		}
	}
	defer t.close()
	out := t.exec.Execute(ops, true)
	failed := out.Verdict != conformance.Pass
	var findings []conformance.Finding
	if out.Result != nil {
		findings = out.Result.Findings
		failed = failed || out.Result.Failed()
	}
	verdict := out.Verdict
	if out.Verdict == conformance.Pass && failed {
		verdict = conformance.Fail
	}
	if o.json {
		i := t.info
		j := jsonReplay{Target: jsonTarget{Path: i.Path, Revision: i.Revision, Profile: i.Profile, Supported: i.Supported,
			Hooks: i.Hooks, ACL: i.ACL, Isolated: t.isolated}, File: o.replay, Ops: len(ops), Verdict: verdict.String(),
			Detail: out.Detail, At: out.At, History: out.History, Findings: []jsonFinding{}}
		if j.History == nil {
			j.History = []string{}
		}
		for _, f := range findings {
			jf := jsonFinding{Index: f.Index, Rule: f.Rule.String(), Verdict: f.Verdict.String(), Detail: f.Detail}
			if f.Index >= 0 {
				jf.Op = f.Op.String()
			}
			j.Findings = append(j.Findings, jf)
		}
		if err := writeJSONTo(stdout, j); err != nil {
			fmt.Fprintf(stderr, "abicheck: %v\n", err)
			return exitUsage
		}
	} else {
		fmt.Fprintf(stdout, "replay %s on %s%s (revision %s, profile %s): %d ops\n", o.replay, t.label, from, t.info.Revision, t.info.Profile, len(ops))
		switch out.Verdict {
		case conformance.Pass:
			for _, l := range out.History {
				fmt.Fprintf(stdout, "  %s\n", l)
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
				fmt.Fprintf(stdout, "  #%d %s%s\n", i, op, mark)
			}
			fmt.Fprintf(stdout, "%s at %s: %s\n", out.Verdict, conformance.OpAt(ops, out.At), out.Detail)
		}
		if failed {
			fmt.Fprintf(stdout, "replay: %s (the failure reproduces)\n", strings.ToUpper(verdict.String()))
		} else {
			fmt.Fprintln(stdout, "replay: PASS (no failure)")
		}
	}
	if failed {
		return exitFindings
	}
	return exitOK
}
