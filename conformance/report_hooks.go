package conformance

// HooksReport is the verdict of docs/contract.md's simulation hooks (their own
// statuses), which Finish leaves out of Rules: ok is false when nothing
// notable happened to them (no failure, warning, crash or hang).
func (r *Report) HooksReport() (rr RuleReport, ok bool) {
	t := r.tally[RHooks]
	f := r.first[RHooks]
	if f == nil || f.Verdict == Pass || f.Verdict == Skip {
		return RuleReport{}, false
	}
	rr = RuleReport{Rule: RHooks.String(), Anchor: ruleAnchor(RHooks), Verdict: f.Verdict, Detail: f.Detail, Passes: t[Pass],
		Fails: t[Fail] + t[Crash] + t[Hang], Warns: t[Warn], Skips: t[Skip]}
	if f.Index >= 0 {
		rr.Detail = "#" + itoa(int32(f.Index)) + " " + f.Op.String() + ": " + f.Detail
	}
	if f.Verdict != Warn {
		rr.Repro = opLines(r.repro[RHooks])
	}
	return rr, true
}
