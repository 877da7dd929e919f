package conformance_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

var updateOps = flag.Bool("update-ops", false, "rewrite testdata/ops.golden and testdata/errors.golden from the catalogue, the generator and the op parser")

// The text form is what users keep (op scripts, repro files): every op of
// every catalogue check and of the generated sequences of a few seeds
// formats exactly as testdata/ops.golden holds, and parses back to itself.
// A catalogue or generator change that is meant rewrites the file with
// -update-ops (this lives here, not in conformance/op, whose tests may not
// import the engine: tests/architecture_test.go); a change of the op language that is not shows here.
func TestOpTextGolden(t *testing.T) {
	var b strings.Builder
	for _, c := range catalogue.Checks() {
		fmt.Fprintf(&b, "# %s\n%s", c.Name, op.FormatOps(c.Ops()))
	}
	for seed := uint64(0); seed < 6; seed++ {
		ops := conformance.Generate(conformance.GenOptions{Seed: seed, Ops: 400, Caps: ^catalogue.Caps(0), HoldMs: 20,
			Comm: seed%2 == 1, Profile: []model.Profile{model.ProfileTMR, model.ProfileRefusing}[seed%2]})
		fmt.Fprintf(&b, "# seed %d\n%s", seed, op.FormatOps(ops))
	}
	text := b.String()
	for i, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		o, err := op.Parse(line)
		if err != nil || o.String() != line {
			t.Fatalf("line %d %q: parses to %q, %v", i+1, line, o, err)
		}
	}
	golden(t, "testdata/ops.golden", text)
}

// Parse errors name the kind and the argument at fault; their text is
// pinned in testdata/errors.golden.
func TestParseErrorsGolden(t *testing.T) {
	var b strings.Builder
	for _, line := range badLines {
		_, err := op.Parse(line)
		fmt.Fprintf(&b, "%s\n\t%v\n", line, err)
	}
	golden(t, "testdata/errors.golden", b.String())
}

// golden compares got with the file at path, or rewrites it with -update-ops.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *updateOps {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

var badLines = []string{
	"", "frobnicate c0", "create null", "create c16", "create c0 c1", "create cx", "prepare c0",
	"prepare c0 img=valid(t=300)", "prepare c0 img=valid(t=200,s=100)", "prepare c0 img=valid()+mis(0)",
	"prepare c0 img=valid()+mis(16)", "prepare c0 img=valid()+defect(nonsense)", "prepare c0 img=valid()+mis(1)+mis(2)",
	"prepare c0 img=valid()+byte(1,2)+u32(3,4)", "prepare c0 img=valid()+byte(1,256)", "prepare c0 img=null+mis(1)",
	"prepare c0 img=valid(t=1,t=2)", "prepare c0 img=valid() out=maybe", "prepare c0 img=valid() rep=0",
	"prepare c0 img=valid() rep=x", "prepare c0 img=valid() img=valid()", "prepare c0 img=prog", "prepare c0 img=",
	"launch c0 id=0", "launch c0 id=0 stream=s8", "launch c0 id=0 args=match() stream=s0",
	"launch c0 id=0 args=exact(t=1) stream=s0", "launch c0 id=0 args=match(t=1) stream=s0", "launch c0 id=x stream=s0",
	"launch c0 id=0 args=match(alien,hostlast) stream=s0", "launch c0 id=2147483648 stream=s0",
	"kinit c0 dev=0 gen=1 cfg=ring=good4", "kinit c0 dev=0", "kinit c0 dev=0 gen=1 cfg=threads=0",
	"kinit c0 dev=0 gen=1 cfg=null+pmu", "kinit c0 dev=0 gen=1 cfg=prefix+unterm", "kinit c0 dev=0 gen=1 cfg=wat",
	"kinit c0 dev=0 gen=1 aicpu=half", "kinit c0 dev=0 gen=-1", "kinit c0 dev=0 gen=1 sdma=bytes",
	"pinit c0 dev=0 prewarm=null+pmu", "pinit c0 dev=0 prewarm=wat", "setdev -1", "setdev x", "setdev", "inject site=1 count=1",
	"holdlaunch c0 ms=-1 img=valid() id=0 stream=s0", "racekinit c0 c0 dev=0 gen=1", "racekinit c0 null dev=0 gen=1",
	"holdlaunch null ms=5 img=valid() id=0 stream=s0", "holdprepare c0 ms=5 img=valid()", "prog c0 fn=nope",
	"prog c0", "supported c0 extra=1", "getdev now", "sync s9", "sync", "clobber", "unload now", "contract c0",
	"hostlog", "hostlog null threshold=1", "hostlog threshold=x", "hostlog threshold=1 size=2147483648", "hostlog foo",
	"register c0 id=0 img=huge+mis(1)", "register c0", "unregister c0 id=", "prepare_run c0 st=4 id=0",
	"prepare_run c0 st=0 id=0 cfg=ok", "run c0 st=0 id=0 desc=x", "launch_run c0", "poll_run c0 st=x",
	"dev_alloc null a=0 size=64", "dev_alloc c0 a=4 size=64", "dev_alloc c0 a=0 size=-1", "dev_alloc c0 a=0 size=1048577",
	"dev_alloc c0 a=0", "dev_write c0 a=0", "dev_write c0 a=0 seed=256", "dev_read c0 a=-1", "dev_read c0",
	"dev_free c0 a=0 seed=1", "dev_read c0 a=0 off=1", "dev_read c0 a=0 len=1", "dev_read c0 a=0 cross=0",
	"dev_read c0 a=0 cross=1 off=0", "dev_read c0 a=0 off=1048577 len=1", "dev_write c0 a=0 seed=1 host=x",
	"dev_free c0 a=0 at=0", "dev_free c0 a=0 at=1 ptr=freed", "dev_free c0 a=0 ptr=base",
	"cinit h8 rank=0 nranks=1 path=p0", "cinit h0 rank=0 nranks=1", "cinit null rank=0 nranks=1 path=p0",
	"cinit h0 rank=0 nranks=1 path=p8", "cinit h0 rank=x nranks=1 path=p0", "cinit h0 rank=0 nranks=1 path=p0 stream=x",
	"calloc h0", "calloc h0 win=-1", "calloc h0 win=1 out=x",
	"cderive h0 n=1 rank=4294967296 off=0 win=1", "cderive h0 n=1 rank=0 off=0 win=1 ids=fill(1)+at(1,1)+at(2,2)",
	"cderive h0 n=1 rank=0 off=0 win=1 ids=iota", "cderive h0 n=1 off=0 win=1", "dalloc h0 a=256 n=1 rank=0 win=1",
	"dalloc h0 a=1 n=1 rank=0 win=1 base=x", "drelease h0 a=1 n=1", "gprep d=1 rank=0 n=4294967296 win=1",
	"gprep d=1 rank=0 n=1 win=1 profile=x", "gprep h0 d=1 rank=0 n=1 win=1", "gimport d=1 descs=d1,d2,d3,d4,d5",
	"gimport d=1 descs=x1", "gimport d=1 descs=d1.hs=4294967296", "gimport d=1 descs=d1.name=good",
	"gimport d=1 descs=d1.color=2", "gimport d=1 count=x", "grelease", "cbase h0 out=ptr", "cbarrier h0 out=null",
	"cmem h0 idx=0 off=4", "cmem x0 idx=0", "cmem d1.remote idx=0", "cmem h0.x1 idx=0", "cmem h0", "cmem h0 idx=0 put=x",
	"ccopy null h0 idx=0", "ccopy c0 idx=0", "ccopy c0 h0 idx=0 off=12", "ctimeout ms=0", "ctimeout", "ctimeout ms=x",
	"create c0 x=", "create c0 =1", "create c0 a=1 a=2",
}
