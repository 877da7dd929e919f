package report

import (
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
)

// HooksReport is the verdict of docs/contract.md's simulation hooks (their own
// statuses), which Finish leaves out of Rules: ok is false when nothing
// notable happened to them (no failure, warning, crash or hang).
func (r *Report) HooksReport() (rr RuleReport, ok bool) {
	f := r.first[model.RHooks]
	if f == nil || f.Verdict == model.Pass || f.Verdict == model.Skip {
		return RuleReport{}, false
	}
	rr = r.tallied(model.RHooks)
	rr.Verdict = f.Verdict
	if f.Verdict != model.Warn {
		rr.Repro = conformance.OpLines(r.repro[model.RHooks])
	}
	return rr, true
}
