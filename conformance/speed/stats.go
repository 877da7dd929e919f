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
// [lo, hi] and the noise OLD'/OLD: NEW is slower when lo > 1 and the ratio
// is above the band [min(noise, 1)/(1+minChange), max(noise, 1)*(1+minChange)],
// faster when hi < 1 and it is below. Why a band: two processes of one build
// differ a little (where the allocator and the loader put things), more on a
// shared machine; the noise measures that, and when OLD is the odd process
// the band follows. It takes the noise's ratio, not its interval (the
// rounds' scatter is in NEW's interval already). When NEW is the odd process
// nothing tells it from a change: the widening is the least change called a
// difference. On the shared 2-core machine this was written on, two
// processes of one build differed by up to 12 %, hence the default 25 %; a
// build slowed down twice came out at 1.9 or more.
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

// medianCI is the median of xs (sorted in place: per-round ratios, the
// round being the independent unit) and a distribution-free interval of at
// least 95 % for it from order statistics: [x(k), x(n+1-k)] with the largest
// k such that P(B <= k-1) <= 2.5 % for B ~ Binomial(n, 1/2) (20 rounds: x(6),
// x(15), 95.9 %); no resampling, so a report is a function of its samples.
// Under 6 rounds it is the whole range (coverage 1 - 2^(1-n)).
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
func medianSorted[T int64 | float64](xs []T) float64 {
	n := len(xs)
	if n%2 == 1 {
		return float64(xs[n/2])
	}
	return float64(xs[n/2-1]+xs[n/2]) / 2
}

// centre is a batch's time for the ratio of a round: the mean of the
// middle half of ns (it sorts ns). A median of a fast call is quantized by
// the clock (a tick was 10 ns on a call of 40 ns here: a step of 25 %, and
// two processes of one build can sit either side of it); the middle half's
// mean sees the share of calls on each side and, like the median, leaves
// out the slowest quarter where the outliers are.
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
	return medianSorted(ns)
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
