package suite

import (
	"slices"
	"strconv"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
)

// probe runs the probe cases of check c (Run.Probes): only those of
// refusals before the check's first failure (after it the check itself
// reported what differed). A probe that answered what the model did not
// predict is a failure of the refused entry's rules; the outcome of the
// first such probe is returned (ok) so a Stop sees the kill.
func (st *suiteState) probe(c *catalogue.Check, firstFail int) (first CaseOutcome, found bool) {
	found1 := func(co CaseOutcome) {
		if !found {
			first, found = co, true
		}
	}
	for _, pc := range conformance.ProbeCases(c, st.s.Profile, st.s.Caps) {
		if firstFail >= 0 && pc.At >= firstFail {
			break
		}
		if st.blocked(pc.Ops) != "" {
			continue
		}
		out := st.execute(pc.Name, pc.Ops)
		rules := conformance.ProbeRules(pc.Refused)
		if out.Verdict != model.Pass || out.Result == nil {
			if out.Verdict == model.Pass {
				out.Verdict = model.Crash
			}
			co := CaseOutcome{Name: pc.Name, Rules: rules, Verdict: out.Verdict, Broken: rules, FirstFail: out.At,
				Detail: pc.Name + ": " + out.Verdict.String() + " at " + conformance.OpAt(pc.Ops, out.At) + readText(pc, out.At) + ": " + out.Detail,
				Repro:  conformance.ReproPrefix(pc.Ops, out.At)}
			st.rep.AddDeath(pc.Name, rules, out.Verdict, out.At, opPtr(pc.Ops, out.At), co.Detail, co.Repro)
			st.rep.AddCheck(checkReport(co))
			found1(co)
			continue
		}
		where := "the refusal at #" + strconv.Itoa(pc.At) + " " + pc.Refused.String() + " left a trace: "
		traced := false
		for _, f := range out.Result.Findings {
			if f.Verdict != model.Fail || f.Index <= pc.At {
				continue
			}
			rs := slices.Clone(rules)
			if !slices.Contains(rs, f.Rule) {
				rs = append(rs, f.Rule)
			}
			repro := conformance.ReproPrefix(pc.Ops, f.Through())
			for _, r := range rs {
				g := f
				g.Rule, g.Detail = r, where+"#"+strconv.Itoa(f.Index)+" "+f.Op.String()+readText(pc, f.Index)+": "+f.Detail
				st.rep.AddProbeFailure(pc.Name, g, f, repro)
			}
			co := CaseOutcome{Name: pc.Name, Rules: rs, Verdict: model.Fail, Broken: rs, Detail: where + f.String() + readText(pc, f.Index),
				Repro: repro, FirstFail: f.Index}
			if !traced {
				st.rep.AddCheck(checkReport(co))
			}
			co.Rules = rules
			found1(co)
			traced = true
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
