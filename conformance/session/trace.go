package session

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/simabi/simabi/abi/tracevocab"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/suite"
	"github.com/simabi/simabi/conformance/target/library"
	"github.com/simabi/simabi/conformance/trace"
)

// IsTrace reports whether text is a recorded session (docs/trace.md): it
// starts with the header, or is what a torn first line holds of it.
func IsTrace(text string) bool {
	return strings.HasPrefix(text, tracevocab.HeaderMagic) ||
		text != "" && !strings.Contains(text, "\n") && strings.HasPrefix(tracevocab.HeaderMagic, text)
}

// CheckTrace judges a recorded session offline (abicheck -check-trace): a
// Run like a live one, so the table, JSON, JUnit and baselines apply. The
// in-flight records its processes left beside it are read with it.
func CheckTrace(path string) (*Run, error) {
	t, err := op.ReadTraceFile(path)
	if err != nil {
		return nil, err
	}
	return traceRun(t, trace.Options{}), nil
}

// traceRun judges a trace read from its file (t.Path).
func traceRun(t *op.Trace, o trace.Options) *Run {
	tc := trace.Check(t, o)
	info := library.Info{Path: t.Target, Revision: cmp.Or(t.Revision, "kernel"), Profile: tc.Profile.String(), ProfileModel: tc.Profile.String()}
	if tc.Profile == model.ProfileTMR {
		info.Supported = 1
	}
	label := t.Path
	if t.Target != "" {
		label += " (recorded on " + t.Target + ")"
	}
	tag := strings.TrimSuffix(filepath.Base(t.Path), filepath.Ext(t.Path))
	return &Run{Target: &Target{Label: label, Info: info, Close: func() {}, FileTag: tag},
		Result: &suite.Result{Report: tc.Report()}, Trace: true}
}

// ReplayTrace drives the consumer's side of a recorded session on t and
// prints, call by call, where its answers differ from the recording:
// failed when one does, or when the trace's last line is torn (its calls
// before it are replayed, as -check-trace judges them).
func ReplayTrace(t *Target, file string, text string, o *Options, stdout io.Writer) (failed bool, err error) {
	tr, err := op.ParseTrace(strings.NewReader(text), file)
	if err != nil {
		return false, err
	}
	ops, calls, left := trace.Ops(tr)
	out := t.Exec.Execute(ops, true)
	rs := trace.CompareReplay(tr, ops, calls, left, out.History)
	differ, replayed := 0, 0
	for _, r := range rs {
		if r.Differs() {
			differ++
		}
		if r.Skipped == "" {
			replayed++
		}
	}
	torn := ""
	if tr.Torn != nil {
		torn = fmt.Sprintf("%s:%d: %s", file, tr.Torn.Line, tr.Torn.Describe("replayed"))
	}
	failed = differ > 0 || out.Verdict != model.Pass || torn != ""
	if o.JSON {
		j := struct {
			Target   JSONTarget     `json:"target"`
			File     string         `json:"file"`
			Calls    int            `json:"calls"`
			Replayed int            `json:"replayed"`
			Differ   int            `json:"differ"`
			Verdict  string         `json:"verdict"`
			Detail   string         `json:"detail"`
			Torn     string         `json:"torn,omitempty"`
			Results  []trace.Replay `json:"results"`
		}{Target: t.report(), File: file, Calls: len(tr.Calls), Replayed: replayed,
			Differ: differ, Verdict: out.Verdict.String(), Detail: out.Detail, Torn: torn, Results: rs}
		return failed, WriteJSONValue(stdout, j)
	}
	on := ""
	if tr.Target != "" {
		on = ", recorded on " + tr.Target
	}
	fmt.Fprintf(stdout, "replay of the recorded session %s (%d calls%s) on %s (revision %s, profile %s)\n",
		file, len(tr.Calls), on, t.Label, t.Info.Revision, t.Info.Profile)
	for _, r := range rs {
		if r.Differs() || r.Skipped != "" || o.Verbose {
			fmt.Fprintf(stdout, "  %s\n", op.Abbreviate(r.String()))
		}
	}
	if out.Verdict != model.Pass {
		fmt.Fprintf(stdout, "the replay %s at %s: %s\n", out.Verdict, conformance.OpAt(ops, out.At), out.Detail)
	}
	if torn != "" {
		fmt.Fprintf(stdout, "  %s\n", torn)
	}
	fmt.Fprintf(stdout, "replay: %d of %d calls replayed, %d answered differently from the recording", replayed, len(tr.Calls), differ)
	if torn != "" {
		fmt.Fprintf(stdout, ", line %d torn", tr.Torn.Line)
	}
	fmt.Fprintln(stdout)
	return failed, nil
}
