package report

import (
	"fmt"
	"strings"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// FindingID is what a repro must reproduce: the rule, the verdict, the kind
// of op (and its program entry) and what differed. Two are the same when
// these match with numbers and slots masked (a shrunk repro reaches it at
// another position, context or id).
type FindingID struct {
	Rule    string
	Verdict model.Verdict
	Op      string // op kind, "prog fn=..." for a program entry, "setup" or "cleanup"
	What    string // "" for a crash or a hang
}

// IDOf is the identity of a model finding.
func IDOf(f model.Finding) FindingID {
	what := f.Key
	if what == "" {
		what = f.Detail
	}
	return FindingID{Rule: f.Rule.String(), Verdict: f.Verdict, Op: opKey("random", f.Op), What: oneLine(what)}
}

// DeathID is the identity of a crash or hang at position at of ops.
func DeathID(rule model.Rule, v model.Verdict, ops []op.Op, at int) FindingID {
	var o *op.Op
	if at >= 0 && at < len(ops) {
		o = &ops[at]
	}
	return FindingID{Rule: rule.String(), Verdict: v, Op: deathSite(at, o)}
}

// Death reports whether id names a crash or a hang.
func (id FindingID) Death() bool { return id.Verdict == model.Crash || id.Verdict == model.Hang }

// String is the id as a repro's "# finding:" header writes it:
// "E-FIN fail at finalize: want OK, got INVALID_STATE", "S-1 crash at launch".
func (id FindingID) String() string {
	s := id.Rule + " " + id.Verdict.String() + " at " + id.Op
	if id.What != "" {
		s += ": " + id.What
	}
	return s
}

// Matches reports whether got is the finding id names (a death on its
// verdict and op alone: a replay knows only the entry's rule).
func (id FindingID) Matches(got FindingID) bool {
	if id.Verdict != got.Verdict || id.Op != got.Op {
		return false
	}
	if id.Death() {
		return true
	}
	return id.Rule == got.Rule && maskNumbers(id.What) == maskNumbers(got.What)
}

// ParseFindingID reads what FindingID.String wrote.
func ParseFindingID(s string) (FindingID, error) {
	bad := func(why string) (FindingID, error) {
		return FindingID{}, fmt.Errorf("finding %q: %s (want \"RULE VERDICT at OP[: WHAT]\")", s, why)
	}
	rule, rest, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok || rule == "" {
		return bad("no verdict")
	}
	vs, rest, ok := strings.Cut(rest, " at ")
	if !ok {
		return bad("no \" at \"")
	}
	v, ok := model.ParseVerdict(vs)
	if !ok || !v.Bad() {
		return bad("verdict " + vs + " is not fail, crash or hang")
	}
	where, what, _ := strings.Cut(rest, ": ")
	if where == "" {
		return bad("no op")
	}
	return FindingID{Rule: rule, Verdict: v, Op: where, What: what}, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// OutcomeIDs are the findings a run of ops showed: its death, then its
// failures.
func OutcomeIDs(ops []op.Op, out conformance.Outcome) []FindingID {
	var got []FindingID
	if out.Verdict == model.Crash || out.Verdict == model.Hang {
		got = append(got, DeathID(model.RuleNone, out.Verdict, ops, out.At))
	}
	if out.Result != nil {
		for _, f := range out.Result.Findings {
			if f.Verdict == model.Fail {
				got = append(got, IDOf(f))
			}
		}
	}
	return got
}
