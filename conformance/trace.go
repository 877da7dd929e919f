package conformance

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/validation"
)

// Recorded sessions (docs/trace.md): a trace is one line per call a
// consumer made through the recording runtime, with the arguments it passed
// and what the real runtime answered. ParseTrace reads one into calls in the
// op grammar with their observations, so that the model judges them
// (CheckTrace) and a runner replays the consumer's side on any runtime
// (TraceOps).

// Trace is one recorded process.
type Trace struct {
	Path       string // the file
	Target     string // the runtime that was recorded (# target:)
	Revision   string // kernel or legacy (# revision:)
	PID        int
	ForkedFrom string // "PID at @SEQ" for the trace of a forked child
	ImageLimit int
	Calls      []TraceCall
}

// TraceCall is one recorded call.
type TraceCall struct {
	Line     int    // its line in the file
	Text     string // the line as recorded
	B, E     uint64 // the call's begin and end sequence numbers
	Thread   int
	Dev      int32 // the calling thread's current device before the call (-1: none)
	DevKnown bool  // false for dev=?
	// Op is the call in the op grammar with the trace's contexts mapped to
	// slots; Obs what the runtime answered.
	Op  Op
	Obs Observation
	// Skip says why the call cannot be judged ("" when it can): a call the
	// op grammar does not model (call NAME), a context no create returned,
	// an image over the recording limit, a symbol the target lacked.
	Skip string
	// Result is the recorded result text (after "->").
	Result string
	// Want is, for a launch_run, the accepted_value of the descriptor its
	// storage's prepare_run passed (WantKnown when the trace recorded it).
	Want      int32
	WantKnown bool
}

// maxTraceSlots bounds the contexts live at once in one trace (the op
// grammar's slots).
const maxTraceSlots = MaxSlots

// ParseTrace reads a trace; an error names the file and line.
func ParseTrace(r io.Reader, path string) (*Trace, error) {
	t := &Trace{Path: path}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<30)
	p := traceParser{t: t, slots: map[string]int8{}, streams: map[string]int8{}, storages: map[string]int8{}, want: map[int8]int32{}}
	n, header := 0, false
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			if n == 1 && strings.TrimSpace(line) == "# simabi trace v1" {
				header = true
				continue
			}
			p.headerLine(line)
			continue
		}
		if !header {
			return nil, fmt.Errorf("%s:%d: not a simabi trace (the first line must be \"# simabi trace v1\")", path, n)
		}
		c, err := p.call(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		c.Line, c.Text = n, line
		t.Calls = append(t.Calls, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if !header {
		return nil, fmt.Errorf("%s: not a simabi trace (empty, or no \"# simabi trace v1\" line)", path)
	}
	return t, nil
}

type traceParser struct {
	t        *Trace
	want     map[int8]int32  // storage → accepted_value of the descriptor of its last prepare_run
	slots    map[string]int8 // trace context name → slot
	used     [maxTraceSlots]bool
	streams  map[string]int8
	storages map[string]int8
}

func (p *traceParser) headerLine(line string) {
	k, v, ok := strings.Cut(strings.TrimPrefix(line, "#"), ":")
	if !ok {
		return
	}
	v = strings.TrimSpace(v)
	switch strings.TrimSpace(k) {
	case "target":
		p.t.Target = v
	case "revision":
		p.t.Revision = v
	case "pid":
		p.t.PID, _ = strconv.Atoi(v)
	case "image-limit":
		p.t.ImageLimit, _ = strconv.Atoi(v)
	case "forked-from":
		p.t.ForkedFrom = v
	}
}

// call parses "@B-E tT dev=D OP -> RESULT".
func (p *traceParser) call(line string) (TraceCall, error) {
	var c TraceCall
	head, result, ok := strings.Cut(line, " -> ")
	if !ok {
		return c, fmt.Errorf("no \" -> \" result in %q", line)
	}
	c.Result = strings.TrimSpace(result)
	f := strings.Fields(head)
	if len(f) < 4 || !strings.HasPrefix(f[0], "@") || !strings.HasPrefix(f[1], "t") || !strings.HasPrefix(f[2], "dev=") {
		return c, fmt.Errorf("want \"@B-E tT dev=D OP -> RESULT\", got %q", line)
	}
	b, e, ok := strings.Cut(f[0][1:], "-")
	var err error
	if c.B, err = strconv.ParseUint(b, 10, 64); err != nil || !ok {
		return c, fmt.Errorf("bad sequence numbers %q", f[0])
	}
	if c.E, err = strconv.ParseUint(e, 10, 64); err != nil || c.E < c.B {
		return c, fmt.Errorf("bad sequence numbers %q", f[0])
	}
	if c.Thread, err = strconv.Atoi(f[1][1:]); err != nil || c.Thread < 0 {
		return c, fmt.Errorf("bad thread %q", f[1])
	}
	switch d := f[2][len("dev="):]; d {
	case "?":
	case "none":
		c.Dev, c.DevKnown = -1, true
	default:
		n, err := strconv.ParseInt(d, 10, 32)
		if err != nil {
			return c, fmt.Errorf("bad dev=%q", d)
		}
		c.Dev, c.DevKnown = int32(n), true
	}
	return c, p.op(&c, f[3], f[4:])
}

// op turns the recorded call into an op of the grammar and its observation.
func (p *traceParser) op(c *TraceCall, kind string, args []string) error {
	if kind == "call" {
		c.Skip = "not an entry the op grammar models"
		if len(args) > 0 {
			c.Skip = args[0] + ": " + c.Skip
		}
		return nil
	}
	if c.Result == "missing" {
		c.Skip = "the recorded runtime lacks the symbol"
	}
	k, ok := kindByName(kind)
	if !ok {
		return fmt.Errorf("unknown op %q", kind)
	}
	op := Op{Kind: k}
	kv := map[string]string{}
	var pos []string
	for _, a := range args {
		if key, v, ok := strings.Cut(a, "="); ok {
			kv[key] = v
		} else {
			pos = append(pos, a)
		}
	}
	// bad: a struct pointer the recorder could not read (it points into
	// unmapped memory). The call is not judged; its other fields parse.
	for _, key := range []string{"cfg", "prewarm", "args", "desc"} {
		if kv[key] == "bad" {
			if c.Skip == "" {
				c.Skip = key + ": a pointer the recorder could not read (unmapped memory)"
			}
			kv[key] = "null"
		}
	}
	ctx := func() error {
		if len(pos) == 0 {
			return fmt.Errorf("%s: no context", kind)
		}
		s, why := p.ctx(pos[0])
		if why != "" && c.Skip == "" {
			c.Skip = why
		}
		op.C = s
		return nil
	}
	intArg := func(key string) (int64, error) {
		v, ok := kv[key]
		if !ok {
			return 0, fmt.Errorf("%s: missing %s=", kind, key)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: bad %s=%q", kind, key, v)
		}
		return n, nil
	}
	var err error
	var n int64
	switch k {
	case KindCreate:
		// The slot is the one the result names.
	case KindKInit, KindPInit, KindACL:
		if err = ctx(); err != nil {
			return err
		}
		if n, err = intArg("dev"); err != nil {
			return err
		}
		op.Dev = int32(n)
		for i, key := range spanKeys {
			if v, ok := kv[key]; ok {
				if op.Spans[i], err = traceSpan(v); err != nil {
					return err
				}
			}
		}
		if k == KindKInit {
			g, err := intArg("gen")
			if err != nil {
				return err
			}
			op.Gen = uint64(g)
			if op.Cfg, err = traceCfg(kv["cfg"], false); err != nil {
				return err
			}
		}
		if k == KindPInit {
			if v := kv["prewarm"]; v != "" && v != "null" {
				op.Prewarm = true
				if op.Cfg, err = traceCfg(v, p.t.Revision == "legacy"); err != nil {
					return err
				}
			}
		}
	case KindPrepare, KindRegister:
		if err = ctx(); err != nil {
			return err
		}
		if op.Img, err = traceImage(kv["img"]); err != nil {
			return err
		}
		if op.Img.Base == ImgRawTrunc && c.Skip == "" {
			c.Skip = "the image is over the recording limit (its bytes are not in the trace)"
		}
		op.OutNull = kv["out"] == "null"
		if k == KindRegister {
			if n, err = intArg("id"); err != nil {
				return err
			}
			op.ID = int32(n)
		}
	case KindLaunch:
		if err = ctx(); err != nil {
			return err
		}
		if n, err = intArg("id"); err != nil {
			return err
		}
		op.ID = int32(n)
		if op.Args, err = traceArgs(kv["args"]); err != nil {
			return err
		}
		op.Stream = p.name(p.streams, kv["stream"], MaxStreams)
		if op.Stream == tooMany && c.Skip == "" {
			c.Skip = "more streams than the op grammar names"
		}
	case KindProg:
		if err = ctx(); err != nil {
			return err
		}
		found := false
		for f := ProgFn(0); f < numFns; f++ {
			if fnNames[f] == kv["fn"] {
				op.Fn, found = f, true
			}
		}
		if !found {
			return fmt.Errorf("prog: unknown fn=%q", kv["fn"])
		}
		// A recorded program entry was called with the consumer's
		// arguments, not the deliberately bad ones the model judges.
		if c.Skip == "" {
			c.Skip = "a program-side entry with the consumer's own arguments (the model judges it only with bad ones)"
		}
	case KindUnregister:
		if err = ctx(); err != nil {
			return err
		}
		if n, err = intArg("id"); err != nil {
			return err
		}
		op.ID = int32(n)
	case KindPrepareRun, KindRun, KindLaunchRun, KindPollRun, KindWaitRun, KindFinalizeRun:
		if err = ctx(); err != nil {
			return err
		}
		op.St = p.name(p.storages, "st"+kv["st"], MaxStorages)
		if op.St == tooMany && c.Skip == "" {
			c.Skip = "more run storages than the op grammar names"
			op.St = 0
		}
		if k == KindPrepareRun || k == KindRun {
			if n, err = intArg("id"); err != nil {
				return err
			}
			op.ID = int32(n)
			if op.Args, err = traceArgs(kv["args"]); err != nil {
				return err
			}
			op.Cfg.Null = kv["cfg"] == "null"
			op.OutNull = kv["desc"] == "null" // E-PROG.9: refused with IA, judged like a NULL CallConfig
			delete(p.want, op.St)
			if d := kv["desc"]; strings.HasPrefix(d, "raw(") && strings.HasSuffix(d, ")") {
				if b, err := hex.DecodeString(d[4 : len(d)-1]); err == nil {
					if nd, err := abi.DecodeNativeRunDescriptor(b); err == nil {
						p.want[op.St] = nd.AcceptedValue
					}
				}
			}
		}
		if k == KindLaunchRun {
			c.Want, c.WantKnown = p.want[op.St]
		}
	case KindDestroy, KindSupported, KindFinalize, KindCommitted:
		if err = ctx(); err != nil {
			return err
		}
	case KindSetDev:
		if len(pos) != 1 {
			return fmt.Errorf("setdev: want a device or none")
		}
		op.Dev = -1
		if pos[0] != "none" {
			if n, err = strconv.ParseInt(pos[0], 10, 32); err != nil {
				return fmt.Errorf("setdev: bad device %q", pos[0])
			}
			op.Dev = int32(n)
		}
	case KindSync:
		if len(pos) != 1 {
			return fmt.Errorf("sync: want a stream")
		}
		op.Stream = p.name(p.streams, pos[0], MaxStreams)
	case KindInject:
		s, err1 := intArg("site")
		cnt, err2 := intArg("count")
		code, err3 := intArg("code")
		if err1 != nil || err2 != nil || err3 != nil {
			return fmt.Errorf("inject: want site=, count=, code=")
		}
		op.Site, op.Count, op.Code = int32(s), int32(cnt), int32(code)
	case KindContract, KindGetDev:
	default:
		return fmt.Errorf("%s is not an op a trace records", kind)
	}
	c.Op = op
	if err := p.result(c); err != nil {
		return err
	}
	if op.Args.Mode == ArgsExact {
		// What the runtime read is what the consumer passed.
		c.Obs.Call.ArgT, c.Obs.Call.ArgS, c.Obs.Call.ArgHost = int32(op.Args.T), int32(op.Args.S), op.Args.Host
	}
	return nil
}

const tooMany int8 = -2

// name maps a trace name (s3, st7) to the op grammar's index by first
// appearance; "null" is NullRef, beyond max is tooMany.
func (p *traceParser) name(m map[string]int8, s string, max int) int8 {
	if s == "null" || s == "" {
		return NullRef
	}
	if i, ok := m[s]; ok {
		return i
	}
	if len(m) >= max {
		return tooMany
	}
	m[s] = int8(len(m))
	return m[s]
}

// ctx maps a trace context to its slot; a context never created in this
// trace (inherited across fork, or an unknown pointer) gets a slot whose
// state the model does not know.
func (p *traceParser) ctx(s string) (int8, string) {
	switch s {
	case "null":
		return NullRef, ""
	case "c?":
		return NullRef, "a context pointer no create of this process returned"
	}
	if slot, ok := p.slots[s]; ok {
		return slot, ""
	}
	slot := p.freeSlot()
	if slot < 0 {
		return NullRef, "more live contexts than the op grammar's slots"
	}
	p.slots[s], p.used[slot] = slot, true
	return slot, "" // inherited (a forked child's): adopted as unknown
}

func (p *traceParser) freeSlot() int8 {
	for i := range p.used {
		if !p.used[i] {
			return int8(i)
		}
	}
	return -1
}

// result reads the recorded result into the observation.
func (p *traceParser) result(c *TraceCall) error {
	op, res := &c.Op, strings.Fields(c.Result)
	if len(res) == 0 {
		return fmt.Errorf("empty result")
	}
	if res[0] == "missing" {
		return nil
	}
	o := &c.Obs
	num := func(s string) (int64, error) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bad result %q", s)
		}
		return n, nil
	}
	switch op.Kind {
	case KindCreate:
		if res[0] == "null" {
			op.C = p.freeSlot()
			if op.C < 0 {
				op.C = 0
			}
			return nil
		}
		slot := p.freeSlot()
		if slot < 0 {
			c.Skip = "more live contexts than the op grammar's slots"
			return nil
		}
		p.slots[res[0]], p.used[slot] = slot, true
		op.C, o.HandleCreated, o.Call.Value = slot, true, 1
	case KindDestroy:
		// The slot is free again for a later create (after this call).
		for name, s := range p.slots {
			if s == op.C && op.C >= 0 {
				delete(p.slots, name)
				p.used[s] = false
			}
		}
	case KindSupported, KindCommitted, KindGetDev:
		n, err := num(res[0])
		if err != nil {
			return err
		}
		o.Call.Value = uint64(n)
		if op.Kind == KindCommitted {
			o.Mem = uint64(n)
		}
	case KindContract:
		c.Skip = "the contract's bytes are not recorded"
	default:
		n, err := num(res[0])
		if err != nil {
			return err
		}
		o.Call.Status = abi.Status(int32(n))
		for _, kv := range res[1:] {
			k, v, _ := strings.Cut(kv, "=")
			n, err := num(v)
			if err != nil {
				return err
			}
			switch k {
			case "out":
				o.Call.Out = int32(n)
			case "accepted":
				o.Accepted = int32(n)
			}
		}
		if op.Kind == KindPrepare && op.OutNull {
			o.Call.Out = outSentinel
		}
	}
	return nil
}

// traceSpan reads SPAN := none | halfptr | halfsize | bytes(N).
func traceSpan(v string) (SpanRecipe, error) {
	switch {
	case v == "none":
		return SpanNone, nil
	case v == "halfptr":
		return SpanHalfPtr, nil
	case v == "halfsize":
		return SpanHalfSize, nil
	case strings.HasPrefix(v, "bytes(") && strings.HasSuffix(v, ")"):
		return SpanBytes, nil
	}
	return 0, fmt.Errorf("bad span %q", v)
}

// traceArgs reads ARGS := null | raw(t=T,s=S,host=H).
func traceArgs(v string) (ArgsRecipe, error) {
	switch {
	case v == "" || v == "null":
		return ArgsRecipe{Mode: ArgsNull}, nil
	case strings.HasPrefix(v, "raw(") && strings.HasSuffix(v, ")"):
		a := ArgsRecipe{Mode: ArgsExact}
		for _, f := range strings.Split(v[4:len(v)-1], ",") {
			k, val, _ := strings.Cut(f, "=")
			n, err := strconv.ParseInt(val, 10, 16)
			if err != nil {
				return a, fmt.Errorf("bad args %q", v)
			}
			switch k {
			case "t":
				a.T = int16(n)
			case "s":
				a.S = int16(n)
			case "host":
				a.Host = n != 0
			}
		}
		return a, nil
	}
	return ArgsRecipe{}, fmt.Errorf("bad args %q", v)
}

// traceCfg reads CFG := null | raw(HEX) into a recipe with the same V-CFG
// verdict (the recipe's bytes are what a replay passes).
func traceCfg(v string, legacy bool) (CfgRecipe, error) {
	if v == "" || v == "null" {
		return CfgRecipe{Null: true}, nil
	}
	if !strings.HasPrefix(v, "raw(") || !strings.HasSuffix(v, ")") {
		return CfgRecipe{}, fmt.Errorf("bad cfg %q", v)
	}
	b, err := hex.DecodeString(v[4 : len(v)-1])
	if err != nil {
		return CfgRecipe{}, fmt.Errorf("bad cfg hex: %v", err)
	}
	return cfgRecipeOf(b, legacy)
}

// cfgRecipeOf is the recipe whose V-CFG verdict is that of the recorded
// CallConfig b: each field mapped into the recipe's range by its class.
func cfgRecipeOf(b []byte, legacy bool) (CfgRecipe, error) {
	if legacy && len(b) == abi.LegacyCallConfigSize {
		// The legacy layout has no capture_clock_anchors: every later
		// field sits 4 bytes earlier.
		full := make([]byte, abi.CallConfigSize)
		copy(full, b[:abi.CfgCaptureClockAnchorsOff])
		copy(full[abi.CfgRingTaskWindowOff:], b[abi.CfgCaptureClockAnchorsOff:])
		b = full
	}
	c, err := abi.DecodeCallConfig(b)
	if err != nil {
		return CfgRecipe{}, err
	}
	r := CfgRecipe{DepGen: c.EnableDepGen != 0, PMU: c.EnablePMU != 0, Dump: c.EnableDumpArgs != 0,
		Scope: c.EnableScopeStats != 0, Anchors: c.CaptureClockAnchors != 0}
	switch t := c.AicpuThreadNum; {
	case t == 0 || (t >= 2 && t <= 4):
		r.Threads = int8(t)
	default:
		r.Threads = 1
	}
	switch s := c.EnableChipSwimlane; {
	case s >= 0 && s <= 4:
		r.Swim = int8(s)
	default:
		r.Swim = 5
	}
	if i := strings.IndexByte(string(c.OutputPrefix[:]), 0); i < 0 {
		r.Unterm = true
	} else if i > 0 {
		r.Prefix = true
	}
	any, bad := false, false
	for i := range c.RingTaskWindow {
		w, h, d := c.RingTaskWindow[i], c.RingHeap[i], c.RingDepPool[i]
		if w != 0 || h != 0 || d != 0 {
			any = true
			bad = bad || !validation.RingOK(w, h, d)
		}
	}
	switch {
	case bad:
		r.Ring = RingBadTask
	case any:
		r.Ring = RingGood
	}
	return r, nil
}

// Raw images: the bytes a trace recorded, kept process-wide by content so
// that an ImageRecipe naming them stays a comparable value.
var rawImages sync.Map // uint64 → []byte

func rawKey(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()&^(0xFF<<56) | uint64(len(b)%251)<<56
}

// RawImage is the recipe of recorded image bytes b at an address mis bytes
// past a 16-byte boundary.
func RawImage(b []byte, mis int) ImageRecipe {
	k := rawKey(b)
	rawImages.LoadOrStore(k, append([]byte(nil), b...))
	return ImageRecipe{Base: ImgRaw, Raw: k, Mis: uint8(mis % 16)}
}

// rawBytes are the bytes of a raw recipe.
func rawBytes(r ImageRecipe) []byte {
	if b, ok := rawImages.Load(r.Raw); ok {
		return b.([]byte)
	}
	return nil
}

// traceImage reads IMG := null | raw(N,A,HEX) | raw(N,A,trunc) |
// raw(?,A,trunc).
func traceImage(v string) (ImageRecipe, error) {
	if v == "null" {
		return ImageRecipe{Base: ImgNull}, nil
	}
	if !strings.HasPrefix(v, "raw(") || !strings.HasSuffix(v, ")") {
		return ImageRecipe{}, fmt.Errorf("bad img %q", v)
	}
	parts := strings.SplitN(v[4:len(v)-1], ",", 3)
	if len(parts) != 3 {
		return ImageRecipe{}, fmt.Errorf("bad img %q: want raw(N,A,HEX)", truncate(v))
	}
	a, err := strconv.Atoi(parts[1])
	if err != nil || a < 0 {
		return ImageRecipe{}, fmt.Errorf("bad img alignment %q", parts[1])
	}
	if parts[2] == "trunc" {
		n, _ := strconv.ParseUint(parts[0], 10, 32)
		return ImageRecipe{Base: ImgRawTrunc, Raw: n, Mis: uint8(a % 16)}, nil
	}
	n, err := strconv.Atoi(parts[0])
	if err != nil || n < 0 || len(parts[2]) != 2*n {
		return ImageRecipe{}, fmt.Errorf("bad img %q: the hex is not N bytes", truncate(v))
	}
	b, err := hex.DecodeString(parts[2])
	if err != nil {
		return ImageRecipe{}, fmt.Errorf("bad img hex: %v", err)
	}
	return RawImage(b, a), nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
