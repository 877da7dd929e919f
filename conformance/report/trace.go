package report

import "github.com/simabi/simabi/conformance/model"

// TraceRule names the verdict on a recorded trace itself (docs/trace.md), not
// on the runtime it recorded: a last line whose write did not finish. It is
// no rule of docs/contract.md, so no baseline accepts it (ParseBaseline
// reads the contract's rules only, and WriteBaseline leaves it out).
const TraceRule = "TRACE"

// AddTraceFault records a fault of the trace a check read, detail naming the
// file and line: a failure under TraceRule, which Finish lists after the
// contract's rules.
func (r *Report) AddTraceFault(check, detail string) {
	fr := FindingReport{Rule: TraceRule, Verdict: model.Fail, Check: check, Index: -1, Detail: detail}
	fr.Fingerprint = printOf(TraceRule + "\x00" + check + "\x00" + detail)
	r.addFinding(fr, nil)
}

// traceReport is TraceRule's verdict: ok is false when no check recorded a
// fault of its trace.
func (r *Report) traceReport() (rr RuleReport, ok bool) {
	for _, f := range r.Findings {
		if f.Rule != TraceRule {
			continue
		}
		if !ok {
			rr, ok = RuleReport{Rule: TraceRule, Verdict: model.Fail, Detail: f.Detail}, true
		}
		rr.Fails++
	}
	return rr, ok
}
