package tracevocab

import (
	"fmt"
	"strings"
	"sync"

	"github.com/simabi/simabi/abi"
)

// Arg is one argument of an op, or one field after a result.
type Arg struct {
	// Key is written " KEY=VALUE"; "" is a positional argument (" VALUE").
	Key  string
	Form Form
	// Param is the C parameter the value is read from; Size the size
	// parameter of a SPAN or an IMG.
	Param, Size string
	// Optional: written only by a revision whose prototype has Param
	// (simpler_init's SDMA pair), or, for a field after a result, only when
	// it applies (see Entry.Extras).
	Optional bool
	// Late: read and written after the call returns (a launch's args: the
	// launch hot path makes no extra system call for them), so an entry
	// record of the call does not have it.
	Late bool
	// WhenNull: written only when Param is NULL (out=null).
	WhenNull bool
}

// Entry is what a trace line of one entry of the symbol table holds.
type Entry struct {
	// Entry is the row of abi's table the line is of; Symbol its C name.
	Entry  abi.Entry
	Symbol string
	// Op is the op word; OpCall for an entry the op grammar does not
	// model, whose one argument is its name.
	Op string
	// Fn is prog's fn=, written after the arguments.
	Fn   string
	Args []Arg
	// Result is the form of the result; every entry may also answer
	// Missing (a symbol the target lacks).
	Result Form
	// Extras are keyed fields after the result: prepare's " out=N" when
	// out_callable_id is not NULL, launch_run's " accepted=V" when the
	// call returned 0 and its storage's last prepare_run passed a
	// descriptor whose accepted_state is not NULL.
	Extras []Arg
}

// FnKey is prog's fn= key.
const FnKey = "fn"

func ctxArg() Arg               { return Arg{Form: Ctx, Param: "ctx"} }
func intArg(key, p string) Arg  { return Arg{Key: key, Form: Int, Param: p} }
func uintArg(key, p string) Arg { return Arg{Key: key, Form: Uint, Param: p} }
func spanArg(key, p, n string) Arg {
	return Arg{Key: key, Form: Span, Param: p, Size: n}
}
func stArg() Arg { return Arg{Key: "st", Form: Storage, Param: "runtime"} }

// commArg is a comm entry's handle, its first (positional) argument.
func commArg() Arg { return Arg{Form: CommHandle, Param: "h"} }

// outFlag is out=null, written when the out pointer p is NULL.
func outFlag(p string) Arg { return Arg{Key: "out", Form: NullFlag, Param: p, WhenNull: true} }

func prog(fn string) Entry { return Entry{Op: "prog", Fn: fn, Args: []Arg{ctxArg()}} }

var runArgs = []Arg{ctxArg(), stArg(), intArg("id", "callable_id"),
	{Key: "args", Form: Args, Param: "args"}, {Key: "cfg", Form: Cfg, Param: "config"},
	{Key: "desc", Form: Desc, Param: "descriptor"}}

// described are the entries with an op of their own; every other entry is
// "call NAME".
var described = map[abi.Entry]Entry{
	abi.EntryCreateDeviceContext:  {Op: "create", Result: Ctx},
	abi.EntryDestroyDeviceContext: {Op: "destroy", Args: []Arg{ctxArg()}},
	abi.EntryKernelSupported:      {Op: "supported", Args: []Arg{ctxArg()}},
	abi.EntryKernelInit: {Op: "kinit", Args: []Arg{ctxArg(), intArg("dev", "device_id"), uintArg("gen", "context_generation"),
		{Key: "cfg", Form: Cfg, Param: "config"}, spanArg("aicpu", "aicpu", "aicpu_size"),
		spanArg("aicore", "aicore", "aicore_size"), spanArg("disp", "dispatcher", "dispatcher_size")}},
	abi.EntrySimplerInit: {Op: "pinit", Args: []Arg{ctxArg(), intArg("dev", "device_id"), spanArg("aicpu", "aicpu", "aicpu_size"),
		spanArg("aicore", "aicore", "aicore_size"), spanArg("disp", "dispatcher", "dispatcher_size"),
		{Key: "prewarm", Form: Cfg, Param: "prewarm_config"},
		{Key: "sdma", Form: Span, Param: "sdma_warmup", Size: "sdma_warmup_size", Optional: true},
		{Key: "sdmaon", Form: Int, Param: "enable_sdma", Optional: true}}},
	abi.EntryEnsureACLReady: {Op: "acl", Args: []Arg{ctxArg(), intArg("dev", "device_id")}},
	abi.EntryKernelPrepare: {Op: "prepare", Args: []Arg{ctxArg(), {Key: "img", Form: Img, Param: "callable", Size: "callable_size"},
		{Key: "out", Form: NullFlag, Param: "out_callable_id", WhenNull: true}},
		Extras: []Arg{{Key: "out", Form: Int, Param: "out_callable_id", Optional: true}}},
	abi.EntryKernelLaunch: {Op: "launch", Args: []Arg{ctxArg(), intArg("id", "callable_id"),
		{Key: "args", Form: Args, Param: "args", Late: true}, {Key: "stream", Form: Stream, Param: "caller_stream"}}},
	abi.EntryFinalizeDevice:        {Op: "finalize", Args: []Arg{ctxArg()}},
	abi.EntryCommittedDeviceMemory: {Op: "committed", Args: []Arg{ctxArg()}},
	abi.EntryGetPipelineContract:   {Op: "contract"},
	abi.EntryRegisterCallable: {Op: "register", Args: []Arg{ctxArg(), intArg("id", "callable_id"),
		{Key: "img", Form: RegImg, Param: "callable"}}},
	abi.EntryUnregisterCallable: {Op: "unregister", Args: []Arg{ctxArg(), intArg("id", "callable_id")}},
	abi.EntryPrepareRun:         {Op: "prepare_run", Args: runArgs},
	abi.EntryRun:                {Op: "run", Args: runArgs},
	abi.EntryLaunchRun: {Op: "launch_run", Args: []Arg{ctxArg(), stArg()},
		Extras: []Arg{{Key: "accepted", Form: Int, Param: "runtime", Optional: true}}},
	abi.EntryPollRun:                   {Op: "poll_run", Args: []Arg{ctxArg(), stArg()}},
	abi.EntryWaitRun:                   {Op: "wait_run", Args: []Arg{ctxArg(), stArg()}},
	abi.EntryFinalizeRun:               {Op: "finalize_run", Args: []Arg{ctxArg(), stArg()}},
	abi.EntryDeviceMemoryInfo:          prog("meminfo"),
	abi.EntryCopyToDevice:              prog("copy_to"),
	abi.EntryCopyFromDevice:            prog("copy_from"),
	abi.EntryDeviceMalloc:              prog("malloc"),
	abi.EntryDeviceFree:                prog("free"),
	abi.EntryAicpuDlopenCount:          prog("aicpu_dlopen"),
	abi.EntryHostDlopenCount:           prog("host_dlopen"),
	abi.EntryRunStreamSetCreateCount:   prog("stream_sets"),
	abi.EntrySupportsConcurrentPrepare: prog("concurrent_prepare"),
	abi.EntryArenaBankGMHeapBase:       prog("arena_base"),
	abi.EntryRetainedTempAddr:          prog("retained_temp"),
	abi.EntryCreateCommStream:          prog("comm_create"),
	abi.EntryDestroyCommStream:         prog("comm_destroy"),

	abi.EntryCommInit: {Op: "cinit", Args: []Arg{intArg("rank", "rank"), intArg("nranks", "nranks"),
		{Key: "path", Form: CommPath, Param: "rootinfo_path"}, {Key: "stream", Form: Stream, Param: "stream"}}, Result: CommHandle},
	abi.EntryCommAllocWindows:       {Op: "calloc", Args: []Arg{commArg(), uintArg("win", "win_size"), outFlag("device_ctx_out")}},
	abi.EntryCommGetLocalWindowBase: {Op: "cbase", Args: []Arg{commArg(), outFlag("base_out")}},
	abi.EntryCommGetWindowSize:      {Op: "csize", Args: []Arg{commArg(), outFlag("size_out")}},
	abi.EntryCommDeriveContext: {Op: "cderive", Args: []Arg{commArg(), uintArg("n", "rank_count"), uintArg("rank", "domain_rank"),
		uintArg("off", "window_offset"), uintArg("win", "window_size"), {Key: "ids", Form: RankIDs, Param: "rank_ids", Size: "rank_count"},
		outFlag("device_ctx_out")}},
	abi.EntryCommBarrier: {Op: "cbarrier", Args: []Arg{commArg()}},
	abi.EntryCommDestroy: {Op: "cdestroy", Args: []Arg{commArg()}},
	abi.EntryCommAllocDomainWindows: {Op: "dalloc", Args: []Arg{commArg(), {Key: "a", Form: CommAlloc, Param: "allocation_id"},
		uintArg("n", "rank_count"), uintArg("rank", "domain_rank"), uintArg("win", "window_size"),
		{Key: "ids", Form: RankIDs, Param: "rank_ids", Size: "rank_count"}, outFlag("device_ctx_out"),
		{Key: "base", Form: NullFlag, Param: "local_window_base_out", WhenNull: true}}},
	abi.EntryCommReleaseDomainWindows: {Op: "drelease", Args: []Arg{commArg(), {Key: "a", Form: CommAlloc, Param: "allocation_id"},
		uintArg("n", "rank_count"), uintArg("rank", "domain_rank")}},
	abi.EntryCommGlobalDomainPrepare: {Op: "gprep", Args: []Arg{{Key: "d", Form: CommDomain, Param: "domain_id"},
		uintArg("rank", "domain_rank"), uintArg("n", "rank_count"), uintArg("win", "window_size"), uintArg("profile", "profile"),
		outFlag("descriptor_out"), {Key: "base", Form: NullFlag, Param: "local_window_base_out", WhenNull: true}}},
	abi.EntryCommGlobalDomainImport: {Op: "gimport", Args: []Arg{{Key: "d", Form: CommDomain, Param: "domain_id"},
		{Key: "descs", Form: CommDescs, Param: "descriptors", Size: "descriptor_count"}, uintArg("count", "descriptor_count"),
		outFlag("device_ctx_out")}},
	abi.EntryCommGlobalDomainRelease: {Op: "grelease", Args: []Arg{{Key: "d", Form: CommDomain, Param: "domain_id"}}},

	abi.EntrySimSetCurrentDevice: {Op: "setdev", Args: []Arg{{Form: Device, Param: "dev"}}},
	abi.EntrySimCurrentDevice:    {Op: "getdev"},
	abi.EntrySimSyncStream:       {Op: "sync", Args: []Arg{{Form: Stream, Param: "stream"}}},
	abi.EntrySimInject:           {Op: "inject", Args: []Arg{intArg("site", "site"), intArg("count", "count"), intArg("code", "code")}},
}

// ReturnType is the return type of a C prototype.
func ReturnType(proto string) string {
	i := strings.IndexByte(proto, '(')
	if i < 0 {
		return ""
	}
	head := strings.TrimSpace(proto[:i])
	j := strings.LastIndexFunc(head, func(r rune) bool { return r == ' ' || r == '*' })
	return strings.TrimSpace(head[:j+1])
}

// Params are the parameter names of a C prototype.
func Params(proto string) []string {
	i, j := strings.IndexByte(proto, '('), strings.LastIndexByte(proto, ')')
	if i < 0 || j < i {
		return nil
	}
	var out []string
	for _, p := range strings.Split(proto[i+1:j], ",") {
		p = strings.TrimSpace(p)
		k := strings.LastIndexFunc(p, func(r rune) bool {
			return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		})
		if p != "void" && p != "" && k < len(p)-1 {
			out = append(out, p[k+1:])
		}
	}
	return out
}

// resultOf is the result form a return type is written in.
func resultOf(ret string) Form {
	switch {
	case ret == "void":
		return Done
	case strings.HasSuffix(ret, "*") || strings.HasSuffix(ret, "Handle"):
		return Ptr
	case ret == "size_t" || strings.HasPrefix(ret, "uint"):
		return Uint
	}
	return Int
}

// EntryOf is what a trace line of symbol s holds in revision rev (kernel
// when 0): the arguments the revision's prototype has, the result form its
// return type is written in.
func EntryOf(s abi.Symbol, rev abi.Revision) Entry {
	if rev == 0 {
		rev = abi.RevKernel
	}
	proto := s.ProtoIn(rev)
	e, ok := described[s.Entry]
	if !ok {
		e = Entry{Op: OpCall, Args: []Arg{{Form: Name}}}
	}
	e.Entry, e.Symbol = s.Entry, s.Name
	params := map[string]bool{}
	for _, p := range Params(proto) {
		params[p] = true
	}
	args := make([]Arg, 0, len(e.Args))
	for _, a := range e.Args {
		if a.Optional && !params[a.Param] {
			continue
		}
		args = append(args, a)
	}
	e.Args = args
	if e.Result == 0 {
		e.Result = resultOf(ReturnType(proto))
	}
	return e
}

// Entries are the entries of revision rev (kernel when 0), in abi.Symbols
// order: every symbol of the revision, the simulation hooks included. The
// slice is shared: callers do not modify it.
func Entries(rev abi.Revision) []Entry {
	if rev == abi.RevLegacy {
		return legacyEntries()
	}
	return kernelEntries()
}

var (
	kernelEntries = sync.OnceValue(func() []Entry { return entriesOf(abi.RevKernel) })
	legacyEntries = sync.OnceValue(func() []Entry { return entriesOf(abi.RevLegacy) })
)

func entriesOf(rev abi.Revision) []Entry {
	var out []Entry
	for _, s := range abi.Symbols {
		if s.Revisions.Has(rev) {
			out = append(out, EntryOf(s, rev))
		}
	}
	return out
}

// Lookup finds the entry a line's op names: by op word, prog's fn, or
// call's entry name.
func Lookup(rev abi.Revision, op string, args []string) (Entry, error) {
	for _, e := range Entries(rev) {
		switch {
		case e.Op != op:
		case op == OpCall:
			if len(args) > 0 && args[0] == e.Symbol {
				return e, nil
			}
		case e.Fn != "":
			for _, a := range args {
				if a == FnKey+KeySep+e.Fn {
					return e, nil
				}
			}
		default:
			return e, nil
		}
	}
	switch {
	case op == OpCall && len(args) > 0:
		return Entry{}, fmt.Errorf("call %s: not an entry of the %s revision", args[0], rev)
	case op == "prog":
		return Entry{}, fmt.Errorf("prog: unknown fn= in %q", strings.Join(args, " "))
	}
	return Entry{}, fmt.Errorf("unknown op %q", op)
}

// Fields splits an op's arguments into keyed values and positional ones,
// checked against the entry: every key known, every argument that is
// neither optional, late (absent from an entry record) nor written only
// when NULL present, each value lexed with its form. An entry record whose
// op text was cut may lack any argument.
func (e Entry) Fields(args []string, version int, entered, cut bool) (keyed map[string]Value, pos []Value, err error) {
	keyed = map[string]Value{}
	var raw []string
	kv := map[string]string{}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, KeySep); ok {
			if _, dup := kv[k]; dup {
				return nil, nil, fmt.Errorf("%s: %s= twice", e.Op, k)
			}
			kv[k] = v
		} else {
			raw = append(raw, a)
		}
	}
	if e.Fn != "" {
		if kv[FnKey] != e.Fn {
			return nil, nil, fmt.Errorf("%s: want fn=%s", e.Op, e.Fn)
		}
		delete(kv, FnKey)
	}
	npos := 0
	for _, a := range e.Args {
		if a.Key == "" {
			if npos >= len(raw) {
				if cut {
					continue
				}
				return nil, nil, fmt.Errorf("%s: missing its %s", e.Op, a.Form.Name())
			}
			v, err := a.Form.Lex(raw[npos], version)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %v", e.Op, err)
			}
			pos = append(pos, v)
			npos++
			continue
		}
		text, ok := kv[a.Key]
		if !ok {
			if a.Optional || a.WhenNull || (a.Late && entered) || cut {
				continue
			}
			return nil, nil, fmt.Errorf("%s: missing %s=", e.Op, a.Key)
		}
		delete(kv, a.Key)
		v, err := a.Form.Lex(text, version)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s=: %v", e.Op, a.Key, err)
		}
		keyed[a.Key] = v
	}
	if npos < len(raw) {
		return nil, nil, fmt.Errorf("%s: unexpected %q", e.Op, clip(raw[npos]))
	}
	for k := range kv {
		return nil, nil, fmt.Errorf("%s: unknown argument %s=", e.Op, k)
	}
	return keyed, pos, nil
}

// ResultFields reads a result: the entry's result form, then its extras.
func (e Entry) ResultFields(fields []string, version int) (res Value, extras map[string]Value, err error) {
	if len(fields) == 0 {
		return Value{}, nil, fmt.Errorf("empty result")
	}
	if res, err = e.Result.Lex(fields[0], version); err != nil {
		return Value{}, nil, fmt.Errorf("%s: result: %v", e.Op, err)
	}
	extras = map[string]Value{}
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, KeySep)
		var x *Arg
		for i := range e.Extras {
			if e.Extras[i].Key == k {
				x = &e.Extras[i]
			}
		}
		if !ok || x == nil {
			return Value{}, nil, fmt.Errorf("%s: unexpected %q after the result", e.Op, clip(f))
		}
		if _, dup := extras[k]; dup {
			return Value{}, nil, fmt.Errorf("%s: %s= twice after the result", e.Op, k)
		}
		if extras[k], err = x.Form.Lex(v, version); err != nil {
			return Value{}, nil, fmt.Errorf("%s: %s=: %v", e.Op, k, err)
		}
	}
	return res, extras, nil
}

// Text renders the entry's op with its forms named, as docs/trace.md's
// table shows it ("kinit CTX dev=N ...").
func (e Entry) Text() string {
	var b strings.Builder
	b.WriteString(e.Op)
	for _, a := range e.Args {
		b.WriteString(ArgSep)
		if a.Form == Name {
			b.WriteString(e.Symbol)
			continue
		}
		s := a.Form.Name()
		if a.Key != "" {
			s = a.Key + KeySep + s
		}
		if a.Optional || a.WhenNull {
			s = "[" + s + "]"
		}
		b.WriteString(s)
	}
	if e.Fn != "" {
		b.WriteString(ArgSep + FnKey + KeySep + e.Fn)
	}
	return b.String()
}

// ResultText renders the entry's result ("N [out=N]").
func (e Entry) ResultText() string {
	s := e.Result.Name()
	for _, x := range e.Extras {
		s += " [" + x.Key + KeySep + x.Form.Name() + "]"
	}
	return s
}
