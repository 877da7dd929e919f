package htmlreport

import (
	"fmt"
	"html/template"

	"github.com/simabi/simabi/conformance/speed"
)

// speedView is a diff's speed comparison: the two plots, the table, and
// the entries not timed with why.
type speedView struct {
	Old, New  string
	About     string
	RatioPlot template.URL // data:image/png;base64,...
	TimePlot  template.URL
	PlotError string // why there is no plot
	Rows      []speedRow
	Skipped   []string
}

type speedRow struct {
	Entry                string
	Calls, Rounds        int
	OldMedian, NewMedian string
	OldP99, NewP99       string
	Ratio, Noise, Band   string
	Verdict, Class       string
}

// speedOf is the page's part of a speed report.
func speedOf(r *speed.Report) *speedView {
	sv := &speedView{Old: r.Old + " (" + r.OldBuild + ")", New: r.New + " (" + r.NewBuild + ")", About: r.About()}
	var timed []speed.EntryReport
	for _, e := range r.Entries {
		if e.Untimed() {
			sv.Skipped = append(sv.Skipped, e.Name+": "+e.Verdict)
			continue
		}
		timed = append(timed, e)
		sv.Rows = append(sv.Rows, speedRow{Entry: e.Name, Calls: e.Calls, Rounds: e.Rounds,
			OldMedian: speed.NsText(e.OldMedianNs), NewMedian: speed.NsText(e.NewMedianNs), OldP99: speed.NsText(e.OldP99Ns), NewP99: speed.NsText(e.NewP99Ns),
			Ratio: speed.CIText(e.Ratio, e.RatioLo, e.RatioHi), Noise: speed.CIText(e.Noise, e.NoiseLo, e.NoiseHi),
			Band: fmt.Sprintf("%.2f..%.2f", e.BandLo, e.BandHi), Verdict: e.Verdict, Class: verdictClass(e.Verdict)})
	}
	if len(timed) == 0 {
		sv.PlotError = "no entry was timed on both builds: nothing to plot"
		return sv
	}
	var err error
	if sv.RatioPlot, err = ratioPlot(timed); err == nil {
		sv.TimePlot, err = timePlot(timed)
	}
	if err != nil {
		sv.RatioPlot, sv.TimePlot, sv.PlotError = "", "", "the plot could not be drawn: "+err.Error()
	}
	return sv
}
