package speed

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/conformance/isolate"
)

// Issue #30 part 2: the interval of a median over n rounds is the
// distribution-free one of order statistics, at least 95 %.
func TestIssue30Part2_OrderCI(t *testing.T) {
	for _, c := range []struct{ n, k int }{
		{1, 1}, {5, 1}, {6, 1}, {8, 1}, {9, 2}, {10, 2}, {20, 6}, {30, 10},
	} {
		if got := orderCI(c.n); got != c.k {
			t.Errorf("orderCI(%d) = %d, want %d", c.n, got, c.k)
		}
	}
	// The coverage of [x(k), x(n+1-k)] is 1 - 2 P(B <= k-1): at least
	// 95 % from n = 6 on, and the next k would fall short of it.
	for n := 6; n <= 60; n++ {
		k := orderCI(n)
		if c := 1 - 2*binomCDF(n, k-1); c < 0.95 {
			t.Errorf("n=%d k=%d covers %.4f", n, k, c)
		}
		if c := 1 - 2*binomCDF(n, k); c >= 0.95 {
			t.Errorf("n=%d: k=%d is not the largest (k+1 covers %.4f)", n, k, c)
		}
	}
}

// binomCDF is P(B <= j) for B ~ Binomial(n, 1/2).
func binomCDF(n, j int) float64 {
	sum, c := 0.0, 1.0
	for i := 0; i <= j; i++ {
		sum += c
		c = c * float64(n-i) / float64(i+1)
	}
	return sum / math.Pow(2, float64(n))
}

func TestIssue30Part2_MedianCI(t *testing.T) {
	xs := []float64{20, 1, 19, 2, 18, 3, 17, 4, 16, 5, 15, 6, 14, 7, 13, 8, 12, 9, 11, 10}
	mid, lo, hi := medianCI(xs)
	if mid != 10.5 || lo != 6 || hi != 15 {
		t.Errorf("medianCI = %v [%v, %v], want 10.5 [6, 15]", mid, lo, hi)
	}
	if mid, lo, hi := medianCI([]float64{3, 1, 2}); mid != 2 || lo != 1 || hi != 3 {
		t.Errorf("medianCI of 3 = %v [%v, %v], want the whole range", mid, lo, hi)
	}
}

// Issue #30 part 2: a round's time is the mean of the middle half of its
// batch, which the clock's tick does not quantize as it does the median.
// A side's median over its rounds, with the interval of medianCI, and
// the recorded rounds left in their order; NaN for a side that is none.
func TestIssue37_RoundMedian(t *testing.T) {
	e := EntryReport{OldRoundNs: []float64{5, 1, 4, 2, 3, 9, 8, 7, 6, 10, 11, 12}, NewRoundNs: []float64{3, 1, 2}}
	type ci struct{ Mid, Lo, Hi float64 }
	var got [2]ci
	got[0].Mid, got[0].Lo, got[0].Hi = e.RoundMedian(SideOld)
	got[1].Mid, got[1].Lo, got[1].Hi = e.RoundMedian(SideNew)
	// 12 rounds: x(3) and x(10), 96.1 %; 3 rounds: the whole range.
	if want := [2]ci{{6.5, 3, 10}, {2, 1, 3}}; got != want {
		t.Errorf("RoundMedian = %v, want %v", got, want)
	}
	if e.OldRoundNs[0] != 5 || e.NewRoundNs[0] != 3 {
		t.Errorf("RoundMedian sorted the recorded rounds: %v, %v", e.OldRoundNs, e.NewRoundNs)
	}
	if mid, _, _ := e.RoundMedian("OLD again"); !math.IsNaN(mid) {
		t.Errorf("RoundMedian of no side = %v, want NaN", mid)
	}
}

func TestIssue30Part2_CentreIsNotQuantized(t *testing.T) {
	ns := make([]int64, 100)
	for i := range ns {
		ns[i] = 40
		if i%5 < 2 {
			ns[i] = 50 // 40 % of the calls a tick later
		}
	}
	ns[0] = 9000 // a preemption: outside the middle half
	if got := centre(append([]int64(nil), ns...)); got != 43 {
		t.Errorf("centre = %v, want 43", got)
	}
	if got := median(ns); got != 40 {
		t.Errorf("median = %v, want 40", got)
	}
	if got := p99(ns); got != 50 {
		t.Errorf("p99 = %v, want 50 (the 99th of 100; the 100th is the preemption)", got)
	}
}

// Issue #30 part 2: the verdict rule.
func TestIssue30Part2_Verdict(t *testing.T) {
	for _, c := range []struct {
		name                 string
		ratio, lo, hi, noise float64
		want                 string
	}{
		{"the same build", 1.00, 0.98, 1.02, 1.00, Same},
		{"a wobble the rounds agree on, within 25 %", 1.12, 1.10, 1.14, 1.00, Same},
		{"twice as slow", 2.00, 1.90, 2.10, 1.00, Slower},
		{"twice as fast", 0.50, 0.48, 0.52, 1.00, Faster},
		{"30 % slower beyond a quiet noise", 1.30, 1.27, 1.33, 1.00, Slower},
		{"30 % slower, as slow as OLD' is", 1.30, 1.27, 1.33, 1.30, Same},
		{"OLD the odd process: NEW and OLD' alike", 0.75, 0.72, 0.78, 0.76, Same},
		{"far out but the rounds disagree", 1.60, 0.90, 2.50, 1.00, Same},
		{"below the band but an interval above 1", 0.70, 1.01, 1.10, 1.00, Same},
	} {
		got, lo, hi := Verdict(c.ratio, c.lo, c.hi, c.noise, DefaultMinChange)
		if got != c.want {
			t.Errorf("%s: Verdict(%v [%v, %v], noise %v) = %s (band %.3f..%.3f), want %s", c.name, c.ratio, c.lo, c.hi, c.noise, got, lo, hi, c.want)
		}
	}
	if _, lo, hi := Verdict(1, 1, 1, 0.9, 0.25); math.Abs(lo-0.72) > 1e-9 || hi != 1.25 {
		t.Errorf("band %v..%v, want 0.72..1.25", lo, hi)
	}
}

func TestIssue30Part2_Options(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Entries: []string{"launch"}}, `unknown entry "launch"`},
		{Options{Rounds: 5}, "5 rounds: at least 10"},
		{Options{Calls: MaxCalls + 1}, "8193 calls a round"},
		{Options{Calls: 3}, "3 calls a round"},
	} {
		if _, err := Compare(Build{Sim: "sim:tmr"}, Build{Sim: "sim:tmr"}, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Compare with %+v: %v, want an error containing %q", c.o, err, c.want)
		}
	}
	for _, c := range []struct {
		old, new Build
		want     string
	}{
		{Build{Sim: "sim:legacy"}, Build{Sim: "sim:tmr"}, `speed: OLD: unknown built-in build "sim:legacy"`},
		{Build{Sim: "sim:tmr"}, Build{}, "speed: NEW names no build"},
		{Build{Sim: "sim:tmr", Lib: isolate.Config{Lib: "x.so"}}, Build{Sim: "sim:tmr"}, "speed: OLD names both"},
	} {
		if _, err := Compare(c.old, c.new, Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Compare(%+v, %+v): %v, want an error containing %q", c.old, c.new, err, c.want)
		}
	}
	o, err := Options{}.withDefaults()
	if err != nil || o.Budget != 3*time.Second || o.Rounds != 20 || o.Calls != 500 || o.MinChange != DefaultMinChange {
		t.Errorf("defaults %+v, %v", o, err)
	}
}

// The table shows what decides each verdict (issue #37): the ratio with
// its interval, the noise, the band, and the verdict with where the ratio
// lies against the band and its interval against 1.
func TestIssue30Part2_WriteText(t *testing.T) {
	r := &Report{Old: "sim:tmr", New: "/x/libhost_runtime.so", OldBuild: "the built-in simulator, profile tmr",
		NewBuild: "kernel revision, profile tmr", BudgetNs: int64(3 * time.Second), ElapsedNs: int64(2500 * time.Millisecond),
		MinChange: DefaultMinChange,
		Entries: []EntryReport{
			{Name: EntryCreateDestroy, Rounds: 20, Calls: 10000, OldMedianNs: 60, NewMedianNs: 1234, OldP99Ns: 4890, NewP99Ns: 2.5e6,
				Ratio: 20.5, RatioLo: 20.1, RatioHi: 21, Noise: 1, NoiseLo: 0.99, NoiseHi: 1.01, BandLo: 0.8, BandHi: 1.25, Verdict: Slower},
			{Name: EntryKernelPrepare, Rounds: 20, Calls: 10000, OldMedianNs: 100, NewMedianNs: 113, OldP99Ns: 300, NewP99Ns: 320,
				Ratio: 1.13, RatioLo: 1.12, RatioHi: 1.14, Noise: 0.94, NoiseLo: 0.9, NoiseHi: 1.0, BandLo: 0.752, BandHi: 1.25, Verdict: Same},
			{Name: EntryKernelLaunch, Verdict: "skipped: NEW: the build does not run kernel mode (not a tmr build)"},
			{Name: EntryRegister, Rounds: 20, Calls: 10000, OldMedianNs: 100, NewMedianNs: 160, OldP99Ns: 300, NewP99Ns: 900,
				Ratio: 1.6, RatioLo: 0.9, RatioHi: 2.5, Noise: 1, NoiseLo: 0.98, NoiseHi: 1.01, BandLo: 0.8, BandHi: 1.25, Verdict: Same},
			{Name: EntryRun, Rounds: 20, Calls: 10000, OldMedianNs: 140, NewMedianNs: 70, OldP99Ns: 600, NewP99Ns: 310,
				Ratio: 0.5, RatioLo: 0.48, RatioHi: 0.52, Noise: 1, NoiseLo: 0.98, NoiseHi: 1.01, BandLo: 0.8, BandHi: 1.25, Verdict: Faster},
		}}
	var b strings.Builder
	r.WriteText(&b)
	want := `speed: OLD sim:tmr (the built-in simulator, profile tmr)
       NEW /x/libhost_runtime.so (kernel revision, profile tmr)
       2.5s of timing (budget 3s); times per call; noise: OLD' is OLD again, in a process of its own
       band: min(noise, 1) / 1.25 to max(noise, 1) × 1.25; NEW/OLD outside it, with its CI clear of 1, is a change
entry                calls  old median  new median  old p99  new p99  NEW/OLD [95% CI]      noise OLD'/OLD [95% CI]  band          verdict
create+destroy       10000  60ns        1.23µs      4.89µs   2.5ms    20.50 [20.10, 21.00]  1.00 [0.99, 1.01]        [0.80, 1.25]  slower (20.50 above the band, CI above 1)
kernel_prepare       10000  100ns       113ns       300ns    320ns    1.13 [1.12, 1.14]     0.94 [0.90, 1.00]        [0.75, 1.25]  same (1.13 in the band)
register+unregister  10000  100ns       160ns       300ns    900ns    1.60 [0.90, 2.50]     1.00 [0.98, 1.01]        [0.80, 1.25]  same (1.60 above the band, but its CI reaches 1)
run                  10000  140ns       70ns        600ns    310ns    0.50 [0.48, 0.52]     1.00 [0.98, 1.01]        [0.80, 1.25]  faster (0.50 below the band, CI below 1)
kernel_launch: skipped: NEW: the build does not run kernel mode (not a tmr build)
`
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("WriteText (-want +got):\n%s", d)
	}
	var got []string
	for _, e := range r.Differences() {
		got = append(got, e.Name)
	}
	if d := cmp.Diff([]string{EntryCreateDestroy, EntryRun}, got); d != "" {
		t.Errorf("Differences (-want +got):\n%s", d)
	}
}

func TestIssue30Part2_ErrorNamesTheSide(t *testing.T) {
	e := &Error{Side: SideNoise, Build: "sim:tmr", Entry: EntryWaitRun, Err: "killed by signal SIGSEGV (segmentation fault)"}
	want := "speed: OLD' (OLD again, the noise reference) sim:tmr, entry wait_run: killed by signal SIGSEGV (segmentation fault)"
	if e.Error() != want {
		t.Errorf("%q\nwant %q", e.Error(), want)
	}
	e = &Error{Side: SideNew, Build: "/x.so", Err: "cannot load /x.so: no such file"}
	if want := "speed: NEW /x.so, loading: cannot load /x.so: no such file"; e.Error() != want {
		t.Errorf("%q\nwant %q", e.Error(), want)
	}
}
