package abi_test

import (
	"math"
	"math/big"
	"testing"

	"pgregory.net/rapid"

	"github.com/simabi/simabi/abi"
)

// E-COMM.15: both sides of the window's end, and a sum that wraps past 2^64
// (which upstream's size_t arithmetic lets through) refused.
func TestCommDeriveRangeRefused_ECOMM15(t *testing.T) {
	for _, tc := range []struct {
		off, size, win uint64
		want           bool
	}{
		{0, 64, 64, false},
		{63, 1, 64, false},
		{64, 0, 64, false},
		{32, 32, 64, false},
		{0, 0, 0, false},
		{1, 64, 64, true},
		{0, 65, 64, true},
		{65, 0, 64, true},
		{math.MaxUint64, 1, 64, true},
		{1, math.MaxUint64, 64, true},
		{math.MaxUint64, math.MaxUint64, math.MaxUint64, true},
		{math.MaxUint64, 0, math.MaxUint64, false},
	} {
		if got := abi.CommDeriveRangeRefused(tc.off, tc.size, tc.win); got != tc.want {
			t.Errorf("E-COMM.15: CommDeriveRangeRefused(%d, %d, %d) = %v, want %v", tc.off, tc.size, tc.win, got, tc.want)
		}
	}
}

// E-COMM.15 against the exact sum: refused exactly when offset + size,
// computed without overflow, exceeds winSize.
func TestCommDeriveRangeRefused_ECOMM15_exactSum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		off, size, win := rapid.Uint64().Draw(t, "off"), rapid.Uint64().Draw(t, "size"), rapid.Uint64().Draw(t, "win")
		end := new(big.Int).Add(new(big.Int).SetUint64(off), new(big.Int).SetUint64(size))
		want := end.Cmp(new(big.Int).SetUint64(win)) > 0
		if got := abi.CommDeriveRangeRefused(off, size, win); got != want {
			t.Fatalf("E-COMM.15: CommDeriveRangeRefused(%d, %d, %d) = %v, want %v", off, size, win, got, want)
		}
	})
}
