package report

import (
	"github.com/simabi/simabi/conformance"

	"strconv"
)

// HooksReport is the verdict of docs/contract.md's simulation hooks (their own
// statuses), which Finish leaves out of Rules: ok is false when nothing
// notable happened to them (no failure, warning, crash or hang).
func (r *Report) HooksReport() (rr RuleReport, ok bool) {
	t := r.tally[conformance.RHooks]
	f := r.first[conformance.RHooks]
	if f == nil || f.Verdict == conformance.Pass || f.Verdict == conformance.Skip {
		return RuleReport{}, false
	}
	rr = RuleReport{Rule: conformance.RHooks.String(), Anchor: conformance.RuleAnchor(conformance.RHooks), Verdict: f.Verdict, Detail: f.Detail, Passes: t[conformance.Pass],
		Fails: t[conformance.Fail] + t[conformance.Crash] + t[conformance.Hang], Warns: t[conformance.Warn], Skips: t[conformance.Skip]}
	if f.Index >= 0 {
		rr.Detail = "#" + strconv.Itoa(f.Index) + " " + f.Op.String() + ": " + f.Detail
	}
	if f.Verdict != conformance.Warn {
		rr.Repro = conformance.OpLines(r.repro[conformance.RHooks])
	}
	return rr, true
}
