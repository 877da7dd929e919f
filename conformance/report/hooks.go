package report

import (
	"github.com/simabi/simabi/conformance/model"

	"github.com/simabi/simabi/conformance"

	"strconv"
)

// HooksReport is the verdict of docs/contract.md's simulation hooks (their own
// statuses), which Finish leaves out of Rules: ok is false when nothing
// notable happened to them (no failure, warning, crash or hang).
func (r *Report) HooksReport() (rr RuleReport, ok bool) {
	t := r.tally[model.RHooks]
	f := r.first[model.RHooks]
	if f == nil || f.Verdict == model.Pass || f.Verdict == model.Skip {
		return RuleReport{}, false
	}
	rr = RuleReport{Rule: model.RHooks.String(), Anchor: conformance.RuleAnchor(model.RHooks), Verdict: f.Verdict, Detail: f.Detail, Passes: t[model.Pass],
		Fails: t[model.Fail] + t[model.Crash] + t[model.Hang], Warns: t[model.Warn], Skips: t[model.Skip]}
	if f.Index >= 0 {
		rr.Detail = "#" + strconv.Itoa(f.Index) + " " + f.Op.String() + ": " + f.Detail
	}
	if f.Verdict != model.Warn {
		rr.Repro = conformance.OpLines(r.repro[model.RHooks])
	}
	return rr, true
}
