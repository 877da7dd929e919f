package speed

import (
	"math"
	"slices"
)

// Verdicts of an entry (Report's EntryReport.Verdict); a skipped entry's
// verdict is "skipped: " and why.
const (
	Same   = "same"
	Faster = "faster"
	Slower = "slower"
)

// DefaultMinChange is the least relative change Verdict calls a
// difference by default (Options.MinChange): 25 %.
const DefaultMinChange = 0.25

// Verdict decides an entry from the ratio NEW/OLD with its 95 % interval
// [lo, hi] and the noise, the ratio OLD'/OLD, and returns the band the
// ratio must leave to be a difference.
//
// The rule: NEW is slower when its interval lies above 1 (lo > 1) and its
// ratio above the band, faster when its interval lies below 1 (hi < 1) and
// its ratio below the band. The band runs from the noise to 1 (whichever
// is lower to whichever is higher), widened by the factor 1+minChange on
// each side: [min(noise, 1)/(1+minChange), max(noise, 1)*(1+minChange)].
//
// Why: the interval excluding 1 says the rounds agree that NEW differs from
// OLD; it is not enough, since OLD and NEW run in different processes, and
// two processes of one build differ by a little where the allocator and
// the loader put things, or by more on a shared machine (a neighbour
// trashing the caches in some time slices more than in others). The noise
// measures that offset for OLD against OLD': a ratio within it is no
// evidence of a change, and when OLD is the odd process NEW and OLD' move
// together and the band follows. The band takes the noise's ratio, not its
// interval: how much the rounds scatter is in NEW's own interval already,
// and a noise reference whose rounds scatter widely (a loaded machine)
// would otherwise hide a change twice as large. When NEW is the odd
// process, nothing tells it from a change: the widening is the least
// change called a difference. On the 2-core virtual machine this was
// written on, shared with other builds, with the three children on one
// CPU, the processes of one build differed by up to 12 % (by more than 5 %
// in about one ratio in thirty), so the default is 25 %; a build slowed
// down twice came out at 1.9 or more.
func Verdict(ratio, lo, hi, noise, minChange float64) (verdict string, bandLo, bandHi float64) {
	bandLo = math.Min(noise, 1) / (1 + minChange)
	bandHi = math.Max(noise, 1) * (1 + minChange)
	switch {
	case lo > 1 && ratio > bandHi:
		return Slower, bandLo, bandHi
	case hi < 1 && ratio < bandLo:
		return Faster, bandLo, bandHi
	}
	return Same, bandLo, bandHi
}

// medianCI returns the median of xs and a confidence interval of at least
// 95 % for the median of the distribution xs are drawn from. It sorts xs.
//
// xs are per-round ratios (NEW's median over OLD's median in one round):
// the round is the unit that is independent, since the calls of one batch
// share the machine's state of the moment (its clock, its caches, what else
// runs), and taking both medians of one round cancels what drifted between
// rounds. A median per round is robust against the outliers a batch has
// (a collection, a preemption), which the p99 reports instead. The
// interval is the distribution-free one of order statistics: for n rounds
// it is [x(k), x(n+1-k)] with the largest k such that P(B <= k-1) <= 2.5 %
// for B ~ Binomial(n, 1/2) (for 20 rounds x(6) and x(15), 95.9 %). Unlike a
// bootstrap it needs no resampling and no seed, so that a report is a
// function of its samples; it assumes only that the rounds are independent
// draws of one distribution. Fewer than 6 rounds give no such interval: the
// whole range is returned (its coverage is then 1 - 2^(1-n)).
func medianCI(xs []float64) (mid, lo, hi float64) {
	n := len(xs)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	slices.Sort(xs)
	k := orderCI(n)
	return medianSorted(xs), xs[k-1], xs[n-k]
}

// orderCI is the k of medianCI for n values (1-based), at least 1.
func orderCI(n int) int {
	k := 1
	cdf, p := 0.0, math.Pow(0.5, float64(n)) // p: P(B = j-1)
	for j := 1; j <= (n+1)/2; j++ {
		cdf += p // P(B <= j-1)
		if cdf > 0.025 {
			break
		}
		k = j
		p = p * float64(n-j+1) / float64(j)
	}
	return k
}

// medianSorted is the median of sorted xs (the mean of the middle two for
// an even count).
func medianSorted(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// centre is what a batch's calls take, for the ratio of a round: the
// interquartile mean of ns (the mean of the middle half; it sorts ns). A
// batch's median would do, but a fast call takes a few ticks of the clock
// (a tick was 10 ns on a call of 40 ns where this was written), so that its
// median is one tick or the next, a step of 25 %, and two processes of one
// build can sit on either side of it. The mean of the middle half sees the
// share of calls on each side, which is not quantized, and, like the
// median, leaves out the slowest quarter where a batch's outliers are (a
// collection, a preemption), which p99 reports.
func centre(ns []int64) float64 {
	slices.Sort(ns)
	n := len(ns)
	lo, hi := n/4, n-n/4
	if hi <= lo {
		return median(ns)
	}
	var sum float64
	for _, v := range ns[lo:hi] {
		sum += float64(v)
	}
	return sum / float64(hi-lo)
}

// median is the median of ns (sorted in place).
func median(ns []int64) float64 {
	if len(ns) == 0 {
		return math.NaN()
	}
	slices.Sort(ns)
	n := len(ns)
	if n%2 == 1 {
		return float64(ns[n/2])
	}
	return float64(ns[n/2-1]+ns[n/2]) / 2
}

// p99 is the 99th percentile of sorted ns by nearest rank: the smallest
// sample at least 99 % of the samples do not exceed.
func p99(sorted []int64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(0.99*float64(len(sorted)))) - 1
	return float64(sorted[max(i, 0)])
}
