package suite

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"slices"
	"strconv"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/report"
)

// probe runs the probe cases of check c (ConformWith with Run.Probes):
// only those of refusals before the check's first failure (after it the
// check itself reported what differed). A probe that answered what the
// model did not predict is a failure of the refused entry's rules; the case
// outcome of the first such probe is returned (ok) so a Stop sees the kill.
func (st *suiteState) probe(c *conformance.Check, firstFail int) (CaseOutcome, bool) {
	var first CaseOutcome
	found := false
	for _, pc := range conformance.ProbeCases(c, st.s.Profile, st.s.Caps) {
		if firstFail >= 0 && pc.At >= firstFail {
			break
		}
		if st.blocked(pc.Ops) != "" {
			continue
		}
		out := st.x.Execute(pc.Ops, false)
		st.late(out.Prior)
		st.residue(pc.Name, pc.Ops, out.Residue)
		st.last = lastCase{name: pc.Name, ops: pc.Ops, rules: conformance.ProbeRules(pc.Refused)}
		rules := conformance.ProbeRules(pc.Refused)
		where := "the refusal at #" + strconv.Itoa(pc.At) + " " + pc.Refused.String() + " left a trace: "
		if out.Verdict != model.Pass || out.Result == nil {
			if out.Result == nil && out.Verdict == model.Pass {
				out.Verdict = model.Crash
			}
			var atOp *op.Op
			if out.At >= 0 && out.At < len(pc.Ops) {
				atOp = &pc.Ops[out.At]
			}
			detail := pc.Name + ": " + out.Verdict.String() + " at " + conformance.OpAt(pc.Ops, out.At) + readText(pc, out.At) + ": " + out.Detail
			st.rep.AddDeath(pc.Name, rules, out.Verdict, out.At, atOp, detail, conformance.ReproPrefix(pc.Ops, out.At))
			st.rep.AddCheck(report.CheckReport{Name: pc.Name, Rules: ruleNamesOf(rules), Verdict: out.Verdict, Detail: detail,
				Repro: conformance.OpLines(conformance.ReproPrefix(pc.Ops, out.At))})
			if !found {
				first, found = CaseOutcome{Name: pc.Name, Rules: rules, Verdict: out.Verdict, Broken: rules, Detail: detail, FirstFail: out.At}, true
			}
			continue
		}
		traced, reported := false, false
		for _, f := range out.Result.Findings {
			if f.Verdict != model.Fail || f.Index <= pc.At {
				continue
			}
			traced = true
			rs := append([]model.Rule(nil), rules...)
			if !slices.Contains(rs, f.Rule) {
				rs = append(rs, f.Rule)
			}
			repro := conformance.ReproPrefix(pc.Ops, f.Through())
			for _, r := range rs {
				g := f
				g.Rule, g.Detail = r, where+"#"+strconv.Itoa(f.Index)+" "+f.Op.String()+readText(pc, f.Index)+": "+f.Detail
				st.rep.AddProbeFailure(pc.Name, g, f, repro)
			}
			if !found {
				first, found = CaseOutcome{Name: pc.Name, Rules: rules, Verdict: model.Fail, Broken: rs, Detail: where + f.String() + readText(pc, f.Index), Repro: repro,
					FirstFail: f.Index}, true
			}
			if !reported {
				st.rep.AddCheck(report.CheckReport{Name: pc.Name, Rules: ruleNamesOf(rs), Verdict: model.Fail, Detail: where + f.String() + readText(pc, f.Index),
					Repro: conformance.OpLines(repro)})
				reported = true
			}
		}
		if !traced {
			st.rep.CountPass(rules[0])
		}
	}
	return first, found
}

// readText names, in a report, what op i of probe case pc reads: " (the
// probe reads the latch: ...)", or "" for an op of the check's own.
func readText(pc conformance.ProbeCase, i int) string {
	if s := pc.ReadAt(i); s != "" {
		return " (the probe " + string(s) + ")"
	}
	return ""
}

func ruleNamesOf(rs []model.Rule) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.String()
	}
	return out
}
