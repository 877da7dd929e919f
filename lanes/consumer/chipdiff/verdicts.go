package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// A verdict decides some differences of a consumer from lifecycle: its
// expectation file (consumers/NAME/verdicts) declares them and the syntax.
type verdict struct {
	ID, Kind, Rule      string
	Where               []where
	Consumer, Lifecycle shape
	Upstream, Ours, Why string
}

// where is a step a verdict covers: the step's word, in any variant or in
// the variants named.
type where struct {
	Word     *regexp.Regexp
	Variants []string
}

// shape is what one side's step shows where a verdict holds.
type shape struct {
	Answer *regexp.Regexp // nil: any
	Calls  string         // noCall, sameCalls, or "" for any
}

const (
	upstreamBreaks = "upstream-breaks"
	allowed        = "allowed"
	noCall         = "no call"
	sameCalls      = "the same calls"
)

func (s shape) holds(x, other stepResult) bool {
	if s.Answer != nil && !s.Answer.MatchString(x.answer()) {
		return false
	}
	switch s.Calls {
	case noCall:
		return len(x.Calls) == 0
	case sameCalls:
		return slices.Equal(x.Calls, other.Calls)
	}
	return true
}

// parseVerdicts reads an expectation file; name is where it came from.
func parseVerdicts(text, name string) ([]verdict, error) {
	var out []verdict
	var v *verdict
	for n, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, _ := strings.Cut(line, " ")
		bad := func(f string, a ...any) ([]verdict, error) {
			return nil, fmt.Errorf("%s:%d: %s", name, n+1, fmt.Sprintf(f, a...))
		}
		if key == "verdict" {
			out = append(out, verdict{ID: val})
			v = &out[len(out)-1]
			continue
		}
		if v == nil {
			return bad("%q before the first verdict line", line)
		}
		var err error
		switch key {
		case "kind":
			if val != upstreamBreaks && val != allowed {
				return bad("kind %q is not %s or %s", val, upstreamBreaks, allowed)
			}
			v.Kind = val
		case "rule":
			v.Rule = val
		case "at":
			word, variants, _ := strings.Cut(val, " in ")
			w := where{Variants: splitList(variants)}
			if w.Word, err = regexp.Compile(word); err != nil {
				return bad("%v", err)
			}
			v.Where = append(v.Where, w)
		case "consumer":
			v.Consumer, err = parseShape(val)
		case "lifecycle":
			v.Lifecycle, err = parseShape(val)
		case "upstream":
			v.Upstream = strings.TrimSpace(v.Upstream + " " + val)
		case "ours":
			v.Ours = strings.TrimSpace(v.Ours + " " + val)
		case "why":
			v.Why = strings.TrimSpace(v.Why + " " + val)
		default:
			return bad("unknown line %q", line)
		}
		if err != nil {
			return bad("%v", err)
		}
	}
	for _, v := range out {
		if v.Kind == "" || v.Rule == "" || len(v.Where) == 0 || v.Upstream == "" || v.Ours == "" || v.Why == "" {
			return nil, fmt.Errorf("%s: verdict %s: kind, rule, at, upstream, ours or why missing", name, v.ID)
		}
	}
	return out, nil
}

// parseShape reads "ANSWER [| CALLS]".
func parseShape(s string) (shape, error) {
	answer, calls, _ := strings.Cut(s, "|")
	re, err := regexp.Compile("^(?:" + strings.TrimSpace(answer) + ")$")
	sh := shape{Answer: re, Calls: strings.TrimSpace(calls)}
	switch sh.Calls {
	case "any calls":
		sh.Calls = ""
	case "", noCall, sameCalls:
	default:
		return sh, fmt.Errorf("calls %q is not %q, %q or \"any calls\"", sh.Calls, noCall, sameCalls)
	}
	return sh, err
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// verdictFor finds the verdict of vs that decides d, or nil.
func verdictFor(vs []verdict, d difference, theirs, ours transcript) *verdict {
	if d.Step == 0 || d.Step > len(theirs.Steps) || d.Step > len(ours.Steps) {
		return nil
	}
	c, g := theirs.Steps[d.Step-1], ours.Steps[d.Step-1]
	for i := range vs {
		v := &vs[i]
		for _, w := range v.Where {
			if w.Word.MatchString(d.Word) && (len(w.Variants) == 0 || slices.Contains(w.Variants, d.Variant)) &&
				v.Consumer.holds(c, g) && v.Lifecycle.holds(g, c) {
				return v
			}
		}
	}
	return nil
}
