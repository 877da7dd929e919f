package speed

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is what Compare measured.
type Report struct {
	Old      string `json:"old"`       // OLD's label
	New      string `json:"new"`       // NEW's label
	OldBuild string `json:"old_build"` // what OLD's child loaded
	NewBuild string `json:"new_build"` // what NEW's child loaded
	// BudgetNs is Options.Budget; ElapsedNs the time the entries took
	// (loading the builds not counted).
	BudgetNs  int64 `json:"budget_ns"`
	ElapsedNs int64 `json:"elapsed_ns"`
	// MinChange is Options.MinChange: the band's widening (Verdict).
	MinChange float64       `json:"min_change"`
	Entries   []EntryReport `json:"entries"`
}

// EntryReport is one entry's measurement. The times are of one call (one
// pair for create+destroy and register+unregister), in nanoseconds; a
// skipped entry has only its name and verdict.
type EntryReport struct {
	Name   string `json:"name"`
	Rounds int    `json:"rounds"`
	Calls  int    `json:"calls"` // per side: rounds times the calls of a round

	OldMedianNs   float64 `json:"old_median_ns"`
	NewMedianNs   float64 `json:"new_median_ns"`
	NoiseMedianNs float64 `json:"noise_median_ns"` // OLD' (OLD again)
	OldP99Ns      float64 `json:"old_p99_ns"`
	NewP99Ns      float64 `json:"new_p99_ns"`
	NoiseP99Ns    float64 `json:"noise_p99_ns"`

	// Ratio is NEW/OLD: the median over the rounds of the ratio of the
	// rounds' medians, with its 95 % confidence interval.
	Ratio   float64 `json:"ratio"`
	RatioLo float64 `json:"ratio_lo"`
	RatioHi float64 `json:"ratio_hi"`
	// Noise is OLD'/OLD the same way: what two processes of one build
	// differ by.
	Noise   float64 `json:"noise"`
	NoiseLo float64 `json:"noise_lo"`
	NoiseHi float64 `json:"noise_hi"`
	// BandLo and BandHi are what Ratio must leave to be a difference
	// (Verdict).
	BandLo float64 `json:"band_lo"`
	BandHi float64 `json:"band_hi"`

	// Each side's round times in round order (the centre of its batch),
	// the samples Ratio and Noise are made of; RoundMedian derives a
	// side's median, the HTML report plots them.
	OldRoundNs   []float64 `json:"old_round_ns,omitempty"`
	NoiseRoundNs []float64 `json:"noise_round_ns,omitempty"`
	NewRoundNs   []float64 `json:"new_round_ns,omitempty"`

	// Verdict is Same, Faster, Slower, or "skipped: " and why.
	Verdict string `json:"verdict"`
	// CrashedSide is the side whose child died or hung while the entry
	// was timed (Verdict Crashed), "" otherwise.
	CrashedSide string `json:"crashed_side,omitempty"`
}

// Skipped reports whether the entry was not timed.
func (e *EntryReport) Skipped() bool { return strings.HasPrefix(e.Verdict, "skipped") }

// Untimed reports whether the entry has no numbers: skipped, or a child
// died while it was timed.
func (e *EntryReport) Untimed() bool { return e.Skipped() || strings.HasPrefix(e.Verdict, Crashed) }

// About says how long the timing took and what the numbers are.
func (r *Report) About() string {
	return fmt.Sprintf("%v of timing (budget %v); times per call; noise: OLD' is OLD again, in a process of its own",
		time.Duration(r.ElapsedNs).Round(time.Millisecond), time.Duration(r.BudgetNs))
}

// RoundMedian is the median of one side's round times (SideOld, SideNoise
// or SideNew) with its 95 % interval, by the rule of the ratios (medianCI);
// NaN for an entry not timed or an unknown side.
func (e *EntryReport) RoundMedian(side string) (mid, lo, hi float64) {
	xs := map[string][]float64{SideOld: e.OldRoundNs, SideNoise: e.NoiseRoundNs, SideNew: e.NewRoundNs}[side]
	return medianCI(slices.Clone(xs))
}

// Differences are the entries whose verdict is Slower or Faster, and one
// during which NEW's child died or hung when no child of OLD died in any
// entry (when both die, say of a leak per call, which dies where is a
// matter of how many calls each had made, not a change).
func (r *Report) Differences() []EntryReport {
	oldDied := false
	for _, e := range r.Entries {
		oldDied = oldDied || e.CrashedSide == SideOld || e.CrashedSide == SideNoise
	}
	var out []EntryReport
	for _, e := range r.Entries {
		if e.Verdict == Slower || e.Verdict == Faster || (!oldDied && e.CrashedSide == SideNew && strings.HasPrefix(e.Verdict, Crashed)) {
			out = append(out, e)
		}
	}
	return out
}

// WriteText prints the report as a table, a line per entry timed, then
// the skipped and crashed entries with why.
func (r *Report) WriteText(w io.Writer) {
	var b strings.Builder
	fmt.Fprintf(&b, "speed: OLD %s (%s)\n", r.Old, r.OldBuild)
	fmt.Fprintf(&b, "       NEW %s (%s)\n", r.New, r.NewBuild)
	fmt.Fprintf(&b, "       %s\n", r.About())
	fmt.Fprintf(&b, "       band: min(noise, 1) / %.2f to max(noise, 1) × %.2f; NEW/OLD outside it, with its CI clear of 1, is a change\n",
		1+r.MinChange, 1+r.MinChange)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "entry\tcalls\told median\tnew median\told p99\tnew p99\tNEW/OLD [95% CI]\tnoise OLD'/OLD [95% CI]\tband\tverdict")
	var skipped []EntryReport
	for _, e := range r.Entries {
		if e.Untimed() {
			skipped = append(skipped, e)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, e.Calls,
			NsText(e.OldMedianNs), NsText(e.NewMedianNs), NsText(e.OldP99Ns), NsText(e.NewP99Ns),
			CIText(e.Ratio, e.RatioLo, e.RatioHi), CIText(e.Noise, e.NoiseLo, e.NoiseHi),
			fmt.Sprintf("[%.2f, %.2f]", e.BandLo, e.BandHi), e.Verdict+" ("+e.Why()+")")
	}
	tw.Flush()
	for _, e := range skipped {
		fmt.Fprintf(&b, "%s: %s\n", e.Name, e.Verdict)
	}
	io.WriteString(w, b.String())
}

// Why says how the entry's numbers give its verdict (Verdict's rule):
// where the ratio lies against the band, and for a ratio outside it where
// its interval lies against 1.
func (e EntryReport) Why() string {
	switch {
	case e.Verdict == Slower:
		return fmt.Sprintf("%.2f above the band, CI above 1", e.Ratio)
	case e.Verdict == Faster:
		return fmt.Sprintf("%.2f below the band, CI below 1", e.Ratio)
	case e.Verdict != Same:
		return e.Verdict
	case e.Ratio > e.BandHi:
		return fmt.Sprintf("%.2f above the band, but its CI reaches 1", e.Ratio)
	case e.Ratio < e.BandLo:
		return fmt.Sprintf("%.2f below the band, but its CI reaches 1", e.Ratio)
	}
	return fmt.Sprintf("%.2f in the band", e.Ratio)
}

// CIText is a ratio with its interval as the table prints it
// ("1.13 [1.12, 1.14]").
func CIText(x, lo, hi float64) string { return fmt.Sprintf("%.2f [%.2f, %.2f]", x, lo, hi) }

// NsText is a time in nanoseconds as the table prints it (three
// significant digits: "41ns", "1.23µs").
func NsText(ns float64) string {
	switch {
	case ns < 1e3:
		return fmt.Sprintf("%.0fns", ns)
	case ns < 1e6:
		return fmt.Sprintf("%.3gµs", ns/1e3)
	case ns < 1e9:
		return fmt.Sprintf("%.3gms", ns/1e6)
	}
	return fmt.Sprintf("%.3gs", ns/1e9)
}
