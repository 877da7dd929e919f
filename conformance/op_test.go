package conformance

import (
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func genCtx(t *rapid.T, label string) int8 {
	return rapid.Int8Range(-1, op.MaxSlots-1).Draw(t, label)
}

func genImage(t *rapid.T, label string) op.ImageRecipe {
	switch rapid.IntRange(0, 9).Draw(t, label+".base") {
	case 0:
		return op.ImageRecipe{Base: op.ImgNull}
	case 1:
		return op.ImageRecipe{Base: op.ImgHuge}
	}
	r := op.ImageRecipe{
		T: uint16(rapid.IntRange(0, 128).Draw(t, label+".t")),
		S: uint16(rapid.IntRange(0, 128).Draw(t, label+".s")),
		C: uint16(rapid.IntRange(0, 1024).Draw(t, label+".c")),
		B: rapid.Uint32Range(0, 1<<30).Draw(t, label+".b"),
		X: rapid.Uint16().Draw(t, label+".x"),
	}
	r.NoSC = rapid.Bool().Draw(t, label+".nosc")
	r.Defect = op.ImgDefect(rapid.IntRange(0, int(op.NumDefects)-1).Draw(t, label+".defect"))
	r.Mis = uint8(rapid.IntRange(0, 15).Draw(t, label+".mis"))
	r.Short = rapid.Uint32().Draw(t, label+".short")
	r.Long = rapid.Uint32Range(0, 1<<20).Draw(t, label+".long")
	if r.Poke = op.PokeKind(rapid.IntRange(0, 2).Draw(t, label+".poke")); r.Poke != op.PokeNone {
		r.PokeOff = rapid.Uint32().Draw(t, label+".off")
		r.PokeVal = rapid.Uint32().Draw(t, label+".val")
		if r.Poke == op.PokeByte {
			r.PokeVal &= 0xFF
		}
	}
	return r
}

func genCfg(t *rapid.T, label string, allowNull bool) op.CfgRecipe {
	if allowNull && rapid.IntRange(0, 9).Draw(t, label+".null") == 0 {
		return op.CfgRecipe{Null: true}
	}
	c := op.CfgRecipe{
		Threads: rapid.Int8().Draw(t, label+".threads"),
		Swim:    rapid.Int8().Draw(t, label+".swim"),
		DepGen:  rapid.Bool().Draw(t, label+".depgen"),
		PMU:     rapid.Bool().Draw(t, label+".pmu"),
		Dump:    rapid.Bool().Draw(t, label+".dump"),
		Scope:   rapid.Bool().Draw(t, label+".scope"),
		Anchors: rapid.Bool().Draw(t, label+".anchors"),
		Ring:    op.RingRecipe(rapid.IntRange(0, int(op.NumRings)-1).Draw(t, label+".ring")),
	}
	switch rapid.IntRange(0, 2).Draw(t, label+".prefix") {
	case 1:
		c.Prefix = true
	case 2:
		c.Unterm = true
	}
	return c
}

func genArgs(t *rapid.T) op.ArgsRecipe {
	a := op.ArgsRecipe{Mode: op.ArgsMode(rapid.IntRange(0, 2).Draw(t, "args.mode"))}
	if a.Mode == op.ArgsNull {
		return a
	}
	a.T = rapid.Int16().Draw(t, "args.t")
	a.S = rapid.Int16().Draw(t, "args.s")
	a.Host = rapid.Bool().Draw(t, "args.host")
	switch rapid.IntRange(0, 2).Draw(t, "args.last") {
	case 1:
		a.Alien = true
	case 2:
		a.HostLast = true
	}
	a.Junk = rapid.Bool().Draw(t, "args.junk")
	return a
}

func genSpans(t *rapid.T, n int) [4]op.SpanRecipe {
	var s [4]op.SpanRecipe
	for i := 0; i < n; i++ {
		s[i] = op.SpanRecipe(rapid.IntRange(0, int(op.NumSpans)-1).Draw(t, op.SpanKey(i)))
	}
	return s
}

// genOp draws a well-formed op: every field its kind does not use is zero.
func genOp(t *rapid.T) op.Op {
	k := op.Kind(rapid.IntRange(int(op.KindCreate), int(op.NumKinds)-1).Draw(t, "kind"))
	o := op.Op{Kind: k}
	rep := func() {
		if rapid.Bool().Draw(t, "hasrep") {
			o.Rep = rapid.Uint32Range(1, 1<<20).Draw(t, "rep")
		}
	}
	switch k {
	case op.KindCreate:
		o.C = rapid.Int8Range(0, op.MaxSlots-1).Draw(t, "c")
	case op.KindDestroy, op.KindSupported, op.KindFinalize, op.KindCommitted:
		o.C = genCtx(t, "c")
	case op.KindKInit:
		o.C = genCtx(t, "c")
		o.Dev = rapid.Int32().Draw(t, "dev")
		o.Gen = rapid.Uint64().Draw(t, "gen")
		o.Cfg = genCfg(t, "cfg", true)
		o.Spans = genSpans(t, 3)
	case op.KindPInit:
		o.C = genCtx(t, "c")
		o.Dev = rapid.Int32().Draw(t, "dev")
		o.Spans = genSpans(t, 4)
		if o.Prewarm = rapid.Bool().Draw(t, "prewarm"); o.Prewarm {
			o.Cfg = genCfg(t, "cfg", false)
		}
	case op.KindACL:
		o.C = genCtx(t, "c")
		o.Dev = rapid.Int32().Draw(t, "dev")
	case op.KindPrepare:
		o.C = genCtx(t, "c")
		o.Img = genImage(t, "img")
		o.OutNull = rapid.Bool().Draw(t, "outnull")
		rep()
	case op.KindLaunch:
		o.C = genCtx(t, "c")
		o.ID = rapid.Int32().Draw(t, "id")
		o.Args = genArgs(t)
		o.Stream = rapid.Int8Range(-1, op.MaxStreams-1).Draw(t, "stream")
		rep()
	case op.KindProg:
		o.C = genCtx(t, "c")
		o.Fn = op.ProgFn(rapid.IntRange(0, int(op.NumFns)-1).Draw(t, "fn"))
	case op.KindDevAlloc, op.KindDevWrite, op.KindDevRead, op.KindDevFree:
		o.C = rapid.Int8Range(0, op.MaxSlots-1).Draw(t, "c")
		o.A = rapid.Int8Range(0, op.MaxAllocs-1).Draw(t, "a")
		switch k {
		case op.KindDevAlloc:
			o.Size = rapid.Uint32Range(1, op.MaxDevSize).Draw(t, "size")
		case op.KindDevWrite:
			o.Seed = rapid.Uint8().Draw(t, "seed")
		}
	case op.KindSetDev:
		o.Dev = rapid.Int32Range(-1, 1<<30).Draw(t, "dev")
	case op.KindSync:
		o.Stream = rapid.Int8Range(-1, op.MaxStreams-1).Draw(t, "stream")
	case op.KindInject:
		o.Site = rapid.Int32().Draw(t, "site")
		o.Count = rapid.Int32().Draw(t, "count")
		o.Code = rapid.Int32().Draw(t, "code")
	case op.KindClobber:
		o.Img = genImage(t, "img")
	case op.KindHoldLaunch:
		o.C = rapid.Int8Range(0, op.MaxSlots-1).Draw(t, "c")
		o.Ms = rapid.Int32Range(0, 1000).Draw(t, "ms")
		o.Img = genImage(t, "img")
		o.ID = rapid.Int32().Draw(t, "id")
		o.Args = genArgs(t)
		o.Stream = rapid.Int8Range(-1, op.MaxStreams-1).Draw(t, "stream")
	case op.KindHoldPrepare:
		o.C = rapid.Int8Range(0, op.MaxSlots-1).Draw(t, "c")
		o.Ms = rapid.Int32Range(0, 1000).Draw(t, "ms")
		o.Img = genImage(t, "img")
		o.Img2 = genImage(t, "img2")
	case op.KindRaceKInit:
		o.C = rapid.Int8Range(0, op.MaxSlots-1).Draw(t, "c")
		o.C2 = rapid.Int8Range(0, op.MaxSlots-1).Filter(func(c int8) bool { return c != o.C }).Draw(t, "c2")
		o.Dev = rapid.Int32().Draw(t, "dev")
		o.Gen = rapid.Uint64().Draw(t, "gen")
	case op.KindCommTimeout:
		o.Ms = rapid.Int32Range(1, 1<<31-1).Draw(t, "ms")
	default:
		if k.CommCodes() || k == op.KindCommMem {
			o.Comm = genComm(t, k)
		}
		if k == op.KindCommCopy {
			o.C = rapid.Int8Range(0, op.MaxSlots-1).Draw(t, "c")
			o.Comm = genComm(t, op.KindCommMem) // a cmem's reference, index, offset and word
		}
	}
	// Recipes the parser refuses are not ops: keep the image within its limits.
	for _, img := range []*op.ImageRecipe{&o.Img, &o.Img2} {
		if int(img.T)+int(img.S) > 256 {
			img.T = 256 - img.S
		}
	}
	if o.Args.Mode == op.ArgsMatch && o.Args == (op.ArgsRecipe{Mode: op.ArgsMatch}) {
		o.Args = op.ArgsRecipe{}
	}
	return o
}

// genComm draws a comm op's arguments: every field its kind does not use
// is zero.
func genComm(t *rapid.T, k op.Kind) op.CommRecipe {
	var c op.CommRecipe
	h := func(nullable bool) int8 {
		lo := int8(0)
		if nullable {
			lo = -1
		}
		return rapid.Int8Range(lo, op.MaxCommHandles-1).Draw(t, "h")
	}
	ids := func() op.IDsRecipe {
		switch rapid.IntRange(0, 2).Draw(t, "ids") {
		case 1:
			return op.IDsRecipe{Null: true}
		case 2:
			return op.IDsRecipe{Fill: rapid.Uint32().Draw(t, "fill"), AtSet: true, At: rapid.Uint8().Draw(t, "at"), Val: rapid.Uint32().Draw(t, "val")}
		}
		return op.IDsRecipe{Fill: rapid.Uint32().Draw(t, "fill")}
	}
	u64 := func(label string) uint64 { return rapid.Uint64().Draw(t, label) }
	switch k {
	case op.KindCommInit:
		c.H = h(false)
		c.Rank = int64(rapid.Int32().Draw(t, "rank"))
		c.NRanks = rapid.Int32().Draw(t, "nranks")
		c.Path = rapid.Int8Range(-1, op.MaxCommPaths-1).Draw(t, "path")
		c.Stream = rapid.Int8Range(-1, op.MaxStreams-1).Draw(t, "stream")
	case op.KindCommAlloc:
		c.H, c.Win, c.NullOut = h(true), u64("win"), rapid.Bool().Draw(t, "nullout")
	case op.KindCommBase, op.KindCommSize:
		c.H, c.NullOut = h(true), rapid.Bool().Draw(t, "nullout")
	case op.KindCommBarrier, op.KindCommDestroy:
		c.H = h(true)
	case op.KindCommDerive, op.KindCommDomainAlloc:
		c.H, c.N, c.Rank, c.Win, c.IDs = h(true), u64("n"), int64(rapid.Uint32().Draw(t, "rank")), u64("win"), ids()
		c.NullOut = rapid.Bool().Draw(t, "nullout")
		if k == op.KindCommDerive {
			c.Off = u64("off")
		} else {
			c.ID, c.NullBase = rapid.Uint8().Draw(t, "a"), rapid.Bool().Draw(t, "nullbase")
		}
	case op.KindCommDomainRelease:
		c.H, c.ID, c.N, c.Rank = h(true), rapid.Uint8().Draw(t, "a"), u64("n"), int64(rapid.Uint32().Draw(t, "rank"))
	case op.KindCommGlobalPrepare:
		c.ID, c.Rank, c.N, c.Win = rapid.Uint8().Draw(t, "d"), int64(rapid.Uint32().Draw(t, "rank")), uint64(rapid.Uint32().Draw(t, "n")), u64("win")
		c.Profile = rapid.Uint32().Draw(t, "profile")
		c.NullOut, c.NullBase = rapid.Bool().Draw(t, "nullout"), rapid.Bool().Draw(t, "nullbase")
	case op.KindCommGlobalImport:
		c.ID, c.NullOut = rapid.Uint8().Draw(t, "d"), rapid.Bool().Draw(t, "nullout")
		if rapid.Bool().Draw(t, "descsnull") {
			c.Descs.Null = true
		} else {
			c.Descs.N = uint8(rapid.IntRange(0, op.MaxCommDescs).Draw(t, "ndescs"))
			for i := range int(c.Descs.N) {
				d := op.DescRecipe{Src: rapid.Uint8().Draw(t, "src"), Field: op.DescField(rapid.IntRange(0, int(op.DescBadName)).Draw(t, "field"))}
				switch d.Field {
				case op.DescAsIs, op.DescBadName:
				case op.DescSize:
					d.Val = u64("val")
				default:
					d.Val = uint64(rapid.Uint32().Draw(t, "val"))
				}
				c.Descs.D[i] = d
			}
		}
		if c.CountSet = rapid.Bool().Draw(t, "countset"); c.CountSet {
			c.Count = u64("count")
		}
	case op.KindCommGlobalRelease:
		c.ID = rapid.Uint8().Draw(t, "d")
	case op.KindCommMem:
		c.Ref = op.MemRefKind(rapid.IntRange(0, int(op.RefLocal)).Draw(t, "ref"))
		if c.Ref <= op.RefDomain {
			c.H = h(false)
		} else {
			c.ID = rapid.Uint8().Draw(t, "d")
		}
		if c.Ref == op.RefDerived || c.Ref == op.RefDomain {
			c.K = rapid.Uint8().Draw(t, "k")
		}
		c.Idx, c.Off = rapid.Uint8().Draw(t, "idx"), u64("off")&^7
		if c.Put = rapid.Bool().Draw(t, "put"); c.Put {
			c.Val = u64("val")
		}
	}
	return c
}

// TestOpTextRoundTrip checks Parse(op.String()) == op for every op.
func TestOpTextRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := genOp(t)
		text := o.String()
		if strings.ContainsAny(text, "\n\t") {
			t.Fatalf("op text %q spans more than one line", text)
		}
		got, err := op.Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q): %v", text, err)
		}
		if got != o {
			t.Fatalf("Parse(%q) = %#v, want %#v", text, got, o)
		}
	})
}

// TestGeneratedOpsRoundTrip checks the generator only makes ops whose text
// parses back.
func TestGeneratedOpsRoundTrip(t *testing.T) {
	for seed := uint64(0); seed < 30; seed++ {
		ops := Generate(GenOptions{Seed: seed, Ops: 300, Caps: ^catalogue.Caps(0), HoldMs: 20, Profile: []model.Profile{model.ProfileTMR, model.ProfileRefusing}[seed%2]})
		back, err := op.ParseScript(op.FormatOps(ops))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for i := range ops {
			if back[i] != ops[i] {
				t.Fatalf("seed %d op %d: %q parses to %#v, want %#v", seed, i, ops[i], back[i], ops[i])
			}
		}
	}
}

func TestGenerateDeterministic(t *testing.T) {
	a := Generate(GenOptions{Seed: 7, Ops: 200, Caps: ^catalogue.Caps(0)})
	b := Generate(GenOptions{Seed: 7, Ops: 200, Caps: ^catalogue.Caps(0)})
	if op.FormatOps(a) != op.FormatOps(b) {
		t.Fatal("the same seed generated two sequences")
	}
	if len(a) != 200 {
		t.Fatalf("generated %d ops, want 200", len(a))
	}
}

func TestParseExamples(t *testing.T) {
	for _, line := range []string{
		"prepare c0 img=valid(t=2,s=1) out=null",
		"launch c1 id=3 stream=s0",
		"inject site=3 count=1 code=-1234",
		"setdev 1",
		"setdev none",
		"kinit c0 dev=0 gen=1 cfg=threads=4+swim=2+prefix aicpu=bytes",
		"pinit c2 dev=1 sdma=halfsize prewarm=ring=badheap",
		"prepare c0 img=valid(c=2,b=64,x=3,nosc)+defect(fid-dup)+mis(4)+short(8)+long(64)+u32(9292,5) rep=3",
		"holdlaunch c0 ms=150 img=valid() id=0 args=match(dt=-1,host) stream=s1",
		"holdprepare c0 ms=100 img=valid(x=1) img2=valid(x=2)",
		"racekinit c0 c1 dev=0 gen=1",
		"prog null fn=comm_destroy",
		"clobber img=valid(t=2,s=1)",
		"launch c0 id=0 args=exact(t=0,s=0) stream=null",
		"launch c0 id=0 args=match(hostlast) stream=s0",
		"launch c0 id=0 args=exact(t=2,s=1,hostlast) stream=s0",
		"kinit c0 dev=0 gen=1 cfg=threads=4+ring=good3",
		"kinit c0 dev=0 gen=1 cfg=ring=badheap1",
		"kinit c0 dev=0 gen=1 cfg=ring=baddep2",
		"dev_alloc c0 a=3 size=4096",
		"dev_write c1 a=0 seed=255",
		"dev_read c0 a=1",
		"dev_free c2 a=2",
	} {
		op, err := op.Parse(line)
		if err != nil {
			t.Errorf("Parse(%q): %v", line, err)
			continue
		}
		if op.String() != line {
			t.Errorf("Parse(%q).String() = %q", line, op.String())
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, line := range []string{
		"",
		"frobnicate c0",
		"create null",
		"create c16",
		"create c0 c1",
		"prepare c0",
		"prepare c0 img=valid(t=300)",
		"prepare c0 img=valid(t=200,s=100)",
		"prepare c0 img=valid()+mis(0)",
		"prepare c0 img=valid()+mis(16)",
		"prepare c0 img=valid()+defect(nonsense)",
		"prepare c0 img=valid()+mis(1)+mis(2)",
		"prepare c0 img=valid()+byte(1,2)+u32(3,4)",
		"prepare c0 img=valid()+byte(1,256)",
		"prepare c0 img=null+mis(1)",
		"prepare c0 img=valid(t=1,t=2)",
		"prepare c0 img=valid() out=maybe",
		"prepare c0 img=valid() rep=0",
		"prepare c0 img=valid() img=valid()",
		"launch c0 id=0",
		"launch c0 id=0 stream=s8",
		"launch c0 id=0 args=match() stream=s0",
		"launch c0 id=0 args=exact(t=1) stream=s0",
		"launch c0 id=0 args=match(t=1) stream=s0",
		"launch c0 id=x stream=s0",
		"launch c0 id=0 args=match(alien,hostlast) stream=s0",
		"kinit c0 dev=0 gen=1 cfg=ring=good4",
		"kinit c0 dev=0",
		"kinit c0 dev=0 gen=1 cfg=threads=0",
		"kinit c0 dev=0 gen=1 cfg=null+pmu",
		"kinit c0 dev=0 gen=1 cfg=prefix+unterm",
		"kinit c0 dev=0 gen=1 cfg=wat",
		"kinit c0 dev=0 gen=1 aicpu=half",
		"pinit c0 dev=0 prewarm=null+pmu",
		"setdev -1",
		"setdev x",
		"inject site=1 count=1",
		"holdlaunch c0 ms=-1 img=valid() id=0 stream=s0",
		"racekinit c0 c0 dev=0 gen=1",
		"racekinit c0 null dev=0 gen=1",
		"holdlaunch null ms=5 img=valid() id=0 stream=s0",
		"prog c0 fn=nope",
		"supported c0 extra=1",
		"getdev now",
		"dev_alloc null a=0 size=64",
		"dev_alloc c0 a=4 size=64",
		"dev_alloc c0 a=0 size=-1",
		"dev_alloc c0 a=0 size=1048577",
		"dev_alloc c0 a=0",
		"dev_write c0 a=0",
		"dev_write c0 a=0 seed=256",
		"dev_read c0 a=-1",
		"dev_read c0",
		"dev_free c0 a=0 seed=1",
	} {
		if _, err := op.Parse(line); err == nil {
			t.Errorf("Parse(%q) succeeded, want a syntax error", line)
		} else if !errors.Is(err, op.ErrSyntax) {
			t.Errorf("Parse(%q): error %v does not wrap ErrSyntax", line, err)
		}
	}
}

func TestParseScriptNamesLine(t *testing.T) {
	_, err := op.ParseScript("create c0 # a comment\n\nsetdev 0\nbogus\n")
	if err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("ParseScript error %v, want one naming line 4", err)
	}
}
