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

// stdHashGolden: std::hash<std::string>{}(s) as g++ 12.2 (libstdc++,
// x86-64) computed it, once, for every tail length (0 to 7 bytes beyond a
// multiple of 8), more than two words, bytes above 0x7f and a zero byte,
// and the identities upstream's comm backend hashes (E-COMM: rootinfo
// paths, "default", allocation and global-domain identities).
var stdHashGolden = []struct {
	s    string
	want uint64
}{
	{"", 0x553e93901e462a6e},
	{"a", 0x454ddee488c1ed6b},
	{"ab", 0x4c4da6cd289c737b},
	{"abc", 0x32d82bf8ed3dba39},
	{"abcd", 0xde775125acd50b28},
	{"abcde", 0x0b41619c0ed21531},
	{"abcdef", 0x22c38f395b703657},
	{"abcdefg", 0xdeee6830a3af82af},
	{"abcdefgh", 0x783db3e38db898bb},
	{"abcdefghi", 0xb4ec9257851c8aaf},
	{"abcdefghij", 0xfa624d09f1a9f8ac},
	{"abcdefghijk", 0x32f6faa7d12fbce5},
	{"abcdefghijkl", 0x16d1a3aacfc6c5c8},
	{"abcdefghijklm", 0xab4f4d29cd34f350},
	{"abcdefghijklmn", 0x0329f682efbe70b4},
	{"abcdefghijklmno", 0xcb28b790f605d1d0},
	{"abcdefghijklmnop", 0x7cf03b77a0b13a36},
	{"abcdefghijklmnopq", 0xe39652518932c15f},
	{"default", 0x94cee80424a1717e},
	{"r\u00e9seau/\u6839", 0x0656c9f909d426bd},
	{"\xff\x80\x00\x7f\xfe", 0x0fc4c7ba098a8691},
	{"/tmp/simabi/rootinfo", 0xea3ec95bfe8bf007},
	{"/simpler_00001234_89abcdef:alloc:7", 0xfbf297b0d9eafea1},
	{"1:0", 0x312d4c518b50e98e},
	{"18446744073709551615:63", 0x81c1b4a0d6a2d92a},
	{"The quick brown fox jumps over the lazy dog; the quick brown fox jumps over the lazy dog again.", 0x063d7119ddecb393},
}

func TestStdHash_ECOMM_libstdcxxGolden(t *testing.T) {
	for _, tc := range stdHashGolden {
		if got := abi.StdHash(tc.s); got != tc.want {
			t.Errorf("E-COMM: StdHash(%q) = %#016x, want libstdc++'s %#016x", tc.s, got, tc.want)
		}
	}
}

// E-COMM: the names of the three kinds of segment, upstream's formula
// (comm_sim.cpp:85-137, :775-776): "/simpler_%08x_%08x" of a pid and the
// folded std::hash of the identity.
func TestCommNames_ECOMM_upstreamFormula(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{abi.CommSessionName(0x1234, "default"), "/simpler_00001234_b06f997a"},
		{abi.CommSessionName(0xfedcba98, "/tmp/simabi/rootinfo"), "/simpler_fedcba98_14b5395c"},
		{abi.CommAllocName(0x1234, "/simpler_00001234_89abcdef", 7), "/simpler_00001234_22186911"},
		{abi.CommGlobalName(1, 1, 0), "/simpler_00000001_ba7da5df"},
		{abi.CommGlobalName(0x7fffffff, ^uint64(0), 63), "/simpler_7fffffff_57636d8a"},
	} {
		if tc.got != tc.want {
			t.Errorf("E-COMM: segment name %s, want upstream's %s", tc.got, tc.want)
		}
		if len(tc.got) != abi.CommShmNameLen {
			t.Errorf("E-COMM: segment name %s is %d bytes, want %d", tc.got, len(tc.got), abi.CommShmNameLen)
		}
	}
	for pid, want := range map[uint32]string{0x1234: "simpler_00001234_", 0xfedcba98: "simpler_fedcba98_"} {
		if got := abi.CommSegmentPrefix(pid); got != want {
			t.Errorf("E-COMM: CommSegmentPrefix(%#x) = %q, want %q", pid, got, want)
		}
	}
}
