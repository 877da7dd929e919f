package op

import "testing"

// E-COMM's ops: every form parses back to itself, and a malformed one is
// refused with a reason, never a panic.
func TestCommOpsRoundTrip(t *testing.T) {
	for _, line := range []string{
		"cinit h0 rank=0 nranks=1 path=p0",
		"cinit h7 rank=-1 nranks=0 path=null stream=s2",
		"calloc h1 win=64",
		"calloc null win=0 out=null",
		"cbase h0", "cbase null", "csize h0 out=null",
		"cderive h0 n=64 rank=63 off=0 win=64",
		"cderive h0 n=18446744073709551615 rank=4294967295 off=18446744073709551615 win=1 ids=null out=null",
		"cderive h2 n=2 rank=1 off=8 win=8 ids=fill(0)+at(1,1)",
		"cbarrier h0", "cdestroy null",
		"dalloc h0 a=3 n=1 rank=0 win=64 ids=fill(5)",
		"dalloc null a=0 n=0 rank=0 win=0 out=null base=null",
		"drelease h0 a=3 n=1 rank=0",
		"gprep d=1 rank=0 n=2 win=64",
		"gprep d=0 rank=0 n=65 win=0 profile=2 out=null base=null",
		"gprep d=1 rank=0 n=1 win=64 profile=0",
		"gimport d=1 descs=d1,d2",
		"gimport d=1 descs=d1.ver=3,d2.hs=257,d3.name=bad,d4.size=18446744073709551615 count=2 out=null",
		"gimport d=1", "gimport d=1 descs=null",
		"grelease d=0",
		"cmem h0 idx=0", "cmem h0.d2 idx=1 off=8 put=7", "cmem h1.a3 idx=0", "cmem d1 idx=1", "cmem d1.local idx=0 off=4088 put=18446744073709551615",
	} {
		o, err := Parse(line)
		if err != nil {
			t.Errorf("Parse(%q): %v", line, err)
			continue
		}
		if got := o.String(); got != line {
			t.Errorf("Parse(%q).String() = %q", line, got)
		}
		if back, err := Parse(o.String()); err != nil || back != o {
			t.Errorf("%q does not parse back: %v", line, err)
		}
	}
	for _, bad := range []string{
		"cinit h8 rank=0 nranks=1 path=p0", "cinit h0 rank=0 nranks=1", "cinit null rank=0 nranks=1 path=p0",
		"cinit h0 rank=0 nranks=1 path=p8", "calloc h0", "calloc h0 win=-1", "calloc h0 win=1 out=x",
		"cderive h0 n=1 rank=4294967296 off=0 win=1", "cderive h0 n=1 rank=0 off=0 win=1 ids=fill(1)+at(1,1)+at(2,2)",
		"cderive h0 n=1 rank=0 off=0 win=1 ids=iota", "dalloc h0 a=256 n=1 rank=0 win=1",
		"gprep d=1 rank=0 n=4294967296 win=1", "gimport d=1 descs=d1,d2,d3,d4,d5", "gimport d=1 descs=x1",
		"gimport d=1 descs=d1.hs=4294967296", "gimport d=1 descs=d1.name=good", "gimport d=1 descs=d1.color=2",
		"cmem h0 idx=0 off=4", "cmem x0 idx=0", "cmem d1.remote idx=0", "cmem h0.x1 idx=0", "cmem h0",
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}
