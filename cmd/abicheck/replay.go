package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/simabi/simabi/tests/conformance"
)

// scriptTarget is the built-in target a repro file names in its
// "# target: sim:..." header, or "".
func scriptTarget(text string) string {
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "# target:"); ok {
			if v = strings.TrimSpace(v); isSimSpec(v) {
				return v
			}
			return ""
		}
	}
	return ""
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
	spec := lib
	if spec == "" {
		spec = scriptTarget(string(text))
	}
	if spec == "" {
		spec = "sim:tmr"
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
		fmt.Fprintf(stdout, "replay %s on %s (revision %s, profile %s): %d ops\n", o.replay, t.label, t.info.Revision, t.info.Profile, len(ops))
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
