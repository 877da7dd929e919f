package tracevocab

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
)

// Every spelling lexes back to its own variant (first match wins, so no
// variant shadows a later one of its form), and Spell writes what Lex reads.
func TestEveryVariantLexesToItself(t *testing.T) {
	for _, f := range Forms() {
		for _, v := range f.Variants() {
			version := Version
			if v.Until != 0 {
				version = v.Until - 1
			}
			got, err := f.Lex(v.Sample(), version)
			if err != nil || got.Variant != v.Name {
				t.Errorf("%s %s: Lex(%q) = %v, %v", f.Name(), v.Name, v.Sample(), got.Variant, err)
			}
			var holes []any
			for _, fld := range got.Fields {
				switch fld.Hole {
				case HoleInt:
					holes = append(holes, fld.I)
				case HoleUint:
					holes = append(holes, fld.U)
				case HoleHex:
					holes = append(holes, []byte{0xab, 0xcd})
				case HoleWord:
					holes = append(holes, fld.Text)
				}
			}
			if s, err := f.Spell(v.Name, holes...); err != nil || s != v.Sample() {
				t.Errorf("%s %s: Spell = %q, %v; want %q", f.Name(), v.Name, s, err, v.Sample())
			}
		}
	}
}

// A variant no longer written is read from older traces only.
func TestRetiredVariantsOnlyInOlderTraces(t *testing.T) {
	if _, err := Args.Lex("raw(t=1,s=0,host=1)", Version); err == nil {
		t.Error("a version 1 ARGS form is read from a current trace")
	}
	v, err := Args.Lex("raw(t=1,s=0,host=1)", 1)
	if err != nil || !v.Is("host") || v.Int(2) != 1 {
		t.Errorf("version 1 ARGS: %+v, %v", v, err)
	}
}

// Holes take only their own characters: a bad number, odd hex or a stray
// suffix is not a value.
func TestLexRejects(t *testing.T) {
	for _, c := range []struct {
		f Form
		s string
	}{
		{Ctx, "c"}, {Ctx, "cx"}, {Ctx, "c1 "}, {Span, "bytes()"}, {Span, "bytes(-1)"}, {Cfg, "raw(abc)"},
		{Cfg, "raw(AB)"}, {Img, "raw(1,0,ab"}, {Img, "raw(?,0,trunc)"}, {RegImg, "raw(1,0,trunc)"},
		{Args, "raw(t=1,s=0,as=0)"}, {Ptr, "0"}, {Done, "0"}, {Int, "1.5"}, {Uint, "-1"}, {Int, "99999999999999999999"},
		{Name, ""}, {Storage, "st=1"},
	} {
		if v, err := c.f.Lex(c.s, Version); err == nil {
			t.Errorf("%s: %q lexed as %s", c.f.Name(), c.s, v.Variant)
		}
	}
}

// Every entry of the symbol table has a line in both revisions; the ops
// and fn= values identify it, and its arguments are the prototype's.
func TestEveryEntryIsLookedUp(t *testing.T) {
	for _, rev := range []abi.Revision{abi.RevKernel, abi.RevLegacy} {
		n := 0
		for _, s := range abi.Symbols {
			if !s.Revisions.Has(rev) {
				continue
			}
			n++
			e := EntryOf(s, rev)
			var args []string
			if e.Op == OpCall {
				args = []string{s.Name}
			}
			if e.Fn != "" {
				args = []string{"c0", FnKey + KeySep + e.Fn}
			}
			got, err := Lookup(rev, e.Op, args)
			if err != nil || got.Symbol != s.Name {
				t.Errorf("%v %s: Lookup(%s %v) = %s, %v", rev, s.Name, e.Op, args, got.Symbol, err)
			}
			params := map[string]bool{}
			for _, p := range Params(s.ProtoIn(rev)) {
				params[p] = true
			}
			for _, a := range append(append([]Arg(nil), e.Args...), e.Extras...) {
				if a.Param != "" && !params[a.Param] {
					t.Errorf("%v %s: %s= reads %s, not a parameter of %q", rev, s.Name, a.Key, a.Param, s.ProtoIn(rev))
				}
			}
		}
		if got := len(Entries(rev)); got != n {
			t.Errorf("%v: %d entries, want %d", rev, got, n)
		}
	}
	// The SDMA pair is the kernel revision's only.
	k, _ := Lookup(abi.RevKernel, "pinit", nil)
	l, _ := Lookup(abi.RevLegacy, "pinit", nil)
	if !strings.Contains(k.Text(), "sdma=") || strings.Contains(l.Text(), "sdma=") {
		t.Errorf("pinit: kernel %q, legacy %q", k.Text(), l.Text())
	}
	if _, err := Lookup(abi.RevKernel, "frobnicate", nil); err == nil {
		t.Error("an unknown op was looked up")
	}
	if _, err := Lookup(abi.RevLegacy, "kinit", nil); err == nil {
		t.Error("kinit was looked up in the legacy revision")
	}
}

// A line splits into its parts; an entry record has no E and no result.
func TestSplitLine(t *testing.T) {
	l, err := SplitLine("@3-4 t1 dev=none launch c0 id=0 args=raw(t=1,s=0,as=01) stream=s0 -> -1004", Version)
	if err != nil {
		t.Fatal(err)
	}
	if l.B != 3 || l.E != 4 || l.Thread != 1 || !l.Dev.Is("none") || l.Op != "launch" || l.Entered ||
		!cmp.Equal(l.Args, []string{"c0", "id=0", "args=raw(t=1,s=0,as=01)", "stream=s0"}) || !cmp.Equal(l.Result, []string{"-1004"}) {
		t.Errorf("%+v", l)
	}
	l, err = SplitLine("@9 t0 dev=? prepare c1 img=raw(9376,0,abcd ...", Version)
	if err != nil || !l.Entered || !l.Cut || l.B != 9 || !l.Dev.Is("unknown") || len(l.Result) != 0 {
		t.Errorf("entry record: %+v, %v", l, err)
	}
	for _, bad := range []string{"@2-1 t0 dev=0 create -> c0", "@1-2 t0 create -> c0", "@1-2 tx dev=0 create -> c0", "@1-2 t0 dev=x create -> c0", "@1-2 t0 dev=0 create -> "} {
		if _, err := SplitLine(bad, Version); err == nil {
			t.Errorf("%q split", bad)
		}
	}
}

// The in-flight file as the recorder lays it out reads back as the calls
// in flight, cut at a field when the op text outgrew its slot.
func TestReadInflight(t *testing.T) {
	b := make([]byte, InflightHeaderSize+3*InflightSlotSize) // sparse: short of the last slots
	le := binary.LittleEndian
	copy(b, InflightMagic)
	le.PutUint64(b[InflightPIDOff:], 42)
	le.PutUint32(b[InflightSlotsOff:], InflightSlots)
	le.PutUint32(b[InflightSlotSizeOff:], InflightSlotSize)
	slot := func(k int, state uint32, seq uint64, dev int32, text string, n int) {
		s := b[InflightHeaderSize+k*InflightSlotSize:]
		le.PutUint32(s[SlotStateOff:], state)
		le.PutUint32(s[SlotLenOff:], uint32(n))
		le.PutUint64(s[SlotSeqOff:], seq)
		le.PutUint32(s[SlotThreadOff:], uint32(k))
		le.PutUint32(s[SlotDevOff:], uint32(dev))
		copy(s[SlotTextOff:], text)
	}
	slot(0, SlotIdle, 5, 0, "supported c0", 12)
	slot(1, SlotInCall, 9, DevNone, "launch c0 id=0 stream=s0", 24)
	long := "prepare c0 img=raw(9376,0," + strings.Repeat("ab", SlotTextMax)
	slot(2, SlotDied, 7, 3, long, len(long))
	le.PutUint32(b[InflightSignalOff:], 11)
	le.PutUint64(b[InflightSignalSeqOff:], 7)
	in, err := ReadInflight(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"# died: signal 11 in @7", "@7 t2 dev=3 prepare c0 ...", "@9 t1 dev=none launch c0 id=0 stream=s0"}
	if d := cmp.Diff(want, in.Lines()); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
	if in.PID != 42 || !in.Calls[0].Died || !in.Calls[0].Cut {
		t.Errorf("%+v", in)
	}
	if _, err := ReadInflight(b[:100]); err == nil {
		t.Error("a short file read")
	}
	sig, at, err := ParseDied("signal 6 in @12")
	if sig != 6 || at != 12 || err != nil {
		t.Errorf("ParseDied: %d %d %v", sig, at, err)
	}
}
