package emit

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"text/template"

	"github.com/simabi/simabi/abi"
)

// The recording runtime (docs/trace.md): a libhost_runtime.so that loads the
// runtime named by SIMABI_RECORD_TARGET, forwards every call to it unchanged
// and appends one line per call to a trace. Its exports are generated from
// abi.Symbols, one forwarding stub per entry of the revision, so it cannot
// miss an entry; what each stub writes is described per entry in recOps
// (an entry without a description is recorded as "call NAME").

// RecorderConfig selects what the recording runtime exports.
type RecorderConfig struct {
	// Revision is the ABI revision of the runtime to record: abi.RevKernel
	// (the default when 0) or abi.RevLegacy.
	Revision abi.Revision
	// NoHooks leaves the four simulation hooks unexported (for a target
	// without them, so that a consumer sees what the target offers).
	NoHooks bool
	// ImageLimit is the default of SIMABI_RECORD_IMAGE_LIMIT: the most bytes
	// of one image written to the trace. 0 means DefaultImageLimit.
	ImageLimit uint64
}

// DefaultImageLimit is the image limit of a recorder built without one.
const DefaultImageLimit uint64 = 1 << 20

// TraceVersion is the version of the trace format the recorder writes
// (the "# simabi trace v1" header line).
const TraceVersion = 1

// RecorderSrcName is the file name of the recorder's C source in a build.
const RecorderSrcName = "recorder.c"

// RecorderArtifacts are the files of a built recording runtime.
type RecorderArtifacts struct {
	RuntimePath string // libhost_runtime.so, the recorder
	SourcePath  string // recorder.c
	Cached      bool   // the build came from the cache: nothing was compiled
	Key         string // the cache key (hex SHA-256)
}

// RevisionName is "kernel" or "legacy".
func RevisionName(rev abi.Revision) string {
	if rev == abi.RevLegacy {
		return "legacy"
	}
	return "kernel"
}

// ParseRevision reads "kernel" or "legacy".
func ParseRevision(s string) (abi.Revision, error) {
	switch s {
	case "kernel", "":
		return abi.RevKernel, nil
	case "legacy":
		return abi.RevLegacy, nil
	}
	return 0, fmt.Errorf("emit: unknown revision %q (kernel, legacy)", s)
}

func (cfg RecorderConfig) normalized() (RecorderConfig, error) {
	switch cfg.Revision {
	case 0:
		cfg.Revision = abi.RevKernel
	case abi.RevKernel, abi.RevLegacy:
	default:
		return cfg, fmt.Errorf("emit: recorder revision %d: want abi.RevKernel or abi.RevLegacy", cfg.Revision)
	}
	if cfg.ImageLimit == 0 {
		cfg.ImageLimit = DefaultImageLimit
	}
	return cfg, nil
}

// RecorderSymbols returns the symbols the recorder of cfg exports, in
// abi.Symbols order: every entry of the revision, simpler_host_log_bind_state
// and, unless cfg.NoHooks, the four simulation hooks.
func RecorderSymbols(cfg RecorderConfig) []abi.Symbol {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil
	}
	var out []abi.Symbol
	for _, s := range abi.Symbols {
		if !s.Revisions.Has(cfg.Revision) || (cfg.NoHooks && s.Group == abi.GroupSimHooks) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// ---- what each stub records ----

// argKind is how one parameter (or a pointer and size pair) is written.
type argKind int

const (
	argCtx    argKind = iota // " cN" | " null" | " c?"
	argInt                   // " key=V", signed decimal
	argUint                  // " key=V", unsigned decimal
	argSpan                  // " key=none|halfptr|halfsize|bytes(N)" over (Param, Size)
	argCfg                   // " key=null|raw(HEX)": the revision's CallConfig
	argImg                   // " img=null|raw(N,A,HEX|trunc)" over (Param, Size)
	argRegImg                // " img=null|raw(N,A,HEX)|raw(?,A,trunc)": size from the header
	argArgs                  // " key=null|raw(t=T,s=S,host=H)|bad"
	// argArgsLate is argArgs written after the call: read directly when
	// the call succeeded (the callee read them, so they are readable), else
	// copied with process_vm_readv. The launch hot path then makes no
	// system call for its args.
	argArgsLate
	argStream  // " key=sN|null" (key "" for the positional form)
	argSt      // " st=N|null"
	argDesc    // " desc=null|raw(HEX)"
	argOutNull // " out=null" when Param is NULL
	argDevPos  // " D" | " none" (setdev)
)

type recArg struct {
	Key   string // " dev=", ...
	Kind  argKind
	Param string // the parameter of the prototype
	Size  string // the size parameter of spans and images
	// Optional arguments are written only when the prototype of the
	// revision has the parameter (simpler_init's SDMA triple).
	Optional bool
}

// resKind is how the result is written.
type resKind int

const (
	resDefault    resKind = iota // by the return type: status, value, ptr or done
	resStatus                    // the status, decimal
	resValue                     // the value, decimal
	resPtr                       // ptr | null
	resDone                      // done (void)
	resCreate                    // the new context's name, or null
	resPrepare                   // status, then " out=N" when out is not NULL
	resPrepareRun                // status; a success remembers the descriptor's accepted_state
	resLaunchRun                 // status, then " accepted=V" (see docs/trace.md)
)

type recOp struct {
	Op     string // the op word; "" writes "call NAME"
	Fn     string // prog's fn=
	Args   []recArg
	Result resKind
	// NoneAnswer is what the stub answers when it cannot forward (missing
	// symbol, no target), when it differs from the return type's default.
	NoneAnswer string
	// UnloadedAnswer overrides NoneAnswer when no target is loaded.
	UnloadedAnswer string
}

func ctxArg() recArg               { return recArg{Kind: argCtx, Param: "ctx"} }
func intArg(key, p string) recArg  { return recArg{Key: " " + key + "=", Kind: argInt, Param: p} }
func uintArg(key, p string) recArg { return recArg{Key: " " + key + "=", Kind: argUint, Param: p} }
func spanArg(key, p, n string) recArg {
	return recArg{Key: " " + key + "=", Kind: argSpan, Param: p, Size: n}
}
func stArg() recArg { return recArg{Kind: argSt, Param: "runtime"} }

func prog(fn string) recOp { return recOp{Op: "prog", Fn: fn, Args: []recArg{ctxArg()}} }

var runArgs = []recArg{ctxArg(), stArg(), intArg("id", "callable_id"),
	{Key: " args=", Kind: argArgs, Param: "args"}, {Key: " cfg=", Kind: argCfg, Param: "config"},
	{Kind: argDesc, Param: "descriptor"}}

// recOps describes the op of every entry docs/trace.md names; the other
// entries are "call NAME".
var recOps = map[string]recOp{
	abi.SymCreateDeviceContext:  {Op: "create", Result: resCreate},
	abi.SymDestroyDeviceContext: {Op: "destroy", Args: []recArg{ctxArg()}, Result: resDone},
	abi.SymKernelSupported:      {Op: "supported", Args: []recArg{ctxArg()}, Result: resValue, NoneAnswer: "0"},
	abi.SymKernelInit: {Op: "kinit", Args: []recArg{ctxArg(), intArg("dev", "device_id"), uintArg("gen", "context_generation"),
		{Key: " cfg=", Kind: argCfg, Param: "config"}, spanArg("aicpu", "aicpu", "aicpu_size"),
		spanArg("aicore", "aicore", "aicore_size"), spanArg("disp", "dispatcher", "dispatcher_size")}},
	abi.SymSimplerInit: {Op: "pinit", Args: []recArg{ctxArg(), intArg("dev", "device_id"), spanArg("aicpu", "aicpu", "aicpu_size"),
		spanArg("aicore", "aicore", "aicore_size"), spanArg("disp", "dispatcher", "dispatcher_size"),
		{Key: " prewarm=", Kind: argCfg, Param: "prewarm_config"},
		{Key: " sdma=", Kind: argSpan, Param: "sdma_warmup", Size: "sdma_warmup_size", Optional: true},
		{Key: " sdmaon=", Kind: argInt, Param: "enable_sdma", Optional: true}}},
	abi.SymEnsureACLReady: {Op: "acl", Args: []recArg{ctxArg(), intArg("dev", "device_id")}},
	abi.SymKernelPrepare: {Op: "prepare", Args: []recArg{ctxArg(), {Kind: argImg, Param: "callable", Size: "callable_size"},
		{Kind: argOutNull, Param: "out_callable_id"}}, Result: resPrepare},
	abi.SymKernelLaunch: {Op: "launch", Args: []recArg{ctxArg(), intArg("id", "callable_id"),
		{Key: " args=", Kind: argArgsLate, Param: "args"}, {Key: " stream=", Kind: argStream, Param: "caller_stream"}}},
	abi.SymFinalizeDevice:        {Op: "finalize", Args: []recArg{ctxArg()}},
	abi.SymCommittedDeviceMemory: {Op: "committed", Args: []recArg{ctxArg()}, Result: resValue},
	abi.SymGetPipelineContract:   {Op: "contract", Result: resPtr},
	abi.SymRegisterCallable: {Op: "register", Args: []recArg{ctxArg(), intArg("id", "callable_id"),
		{Kind: argRegImg, Param: "callable"}}},
	abi.SymUnregisterCallable: {Op: "unregister", Args: []recArg{ctxArg(), intArg("id", "callable_id")}},
	abi.SymPrepareRun:         {Op: "prepare_run", Args: runArgs, Result: resPrepareRun},
	abi.SymRun:                {Op: "run", Args: runArgs},
	abi.SymLaunchRun:          {Op: "launch_run", Args: []recArg{ctxArg(), stArg()}, Result: resLaunchRun},
	abi.SymPollRun:            {Op: "poll_run", Args: []recArg{ctxArg(), stArg()}},
	abi.SymWaitRun:            {Op: "wait_run", Args: []recArg{ctxArg(), stArg()}},
	abi.SymFinalizeRun:        {Op: "finalize_run", Args: []recArg{ctxArg(), stArg()}},

	abi.SymDeviceMemoryInfo:          prog("meminfo"),
	abi.SymCopyToDevice:              prog("copy_to"),
	abi.SymCopyFromDevice:            prog("copy_from"),
	abi.SymDeviceMalloc:              prog("malloc"),
	abi.SymDeviceFree:                prog("free"),
	abi.SymAicpuDlopenCount:          prog("aicpu_dlopen"),
	abi.SymHostDlopenCount:           prog("host_dlopen"),
	abi.SymRunStreamSetCreateCount:   prog("stream_sets"),
	abi.SymSupportsConcurrentPrepare: withNone(prog("concurrent_prepare"), resValue, "0"),
	abi.SymArenaBankGMHeapBase:       prog("arena_base"),
	abi.SymRetainedTempAddr:          prog("retained_temp"),
	abi.SymCreateCommStream:          prog("comm_create"),
	abi.SymDestroyCommStream:         prog("comm_destroy"),

	abi.SymSimSetCurrentDevice: {Op: "setdev", Args: []recArg{{Kind: argDevPos, Param: "dev"}}},
	abi.SymSimCurrentDevice:    {Op: "getdev", Result: resValue, NoneAnswer: "-1"},
	abi.SymSimSyncStream:       {Op: "sync", Args: []recArg{{Kind: argStream, Param: "stream"}}},
	abi.SymSimInject:           {Op: "inject", Args: []recArg{intArg("site", "site"), intArg("count", "count"), intArg("code", "code")}},

	abi.SymHostLogBindState: {UnloadedAnswer: "HOST_BIND_REFUSED"},
}

func withNone(op recOp, r resKind, none string) recOp {
	op.Result, op.NoneAnswer = r, none
	return op
}

// ---- prototypes ----

type cParam struct{ Type, Name string }

type cProto struct {
	Ret    string
	Name   string
	Params []cParam
}

var protoRE = regexp.MustCompile(`^(.*?)\b(\w+)\((.*)\)$`)

func parseProto(proto string) (cProto, error) {
	m := protoRE.FindStringSubmatch(strings.TrimSpace(proto))
	if m == nil {
		return cProto{}, fmt.Errorf("emit: cannot read prototype %q", proto)
	}
	p := cProto{Ret: strings.TrimSpace(m[1]), Name: m[2]}
	if params := strings.TrimSpace(m[3]); params != "void" && params != "" {
		for _, part := range strings.Split(params, ",") {
			part = strings.TrimSpace(part)
			i := strings.LastIndexFunc(part, func(r rune) bool {
				return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
			})
			if i < 0 || i == len(part)-1 {
				return cProto{}, fmt.Errorf("emit: parameter %q of %s has no name", part, p.Name)
			}
			p.Params = append(p.Params, cParam{Type: strings.TrimSpace(part[:i+1]), Name: part[i+1:]})
		}
	}
	return p, nil
}

func (p cProto) param(name string) (cParam, bool) {
	for _, q := range p.Params {
		if q.Name == name {
			return q, true
		}
	}
	return cParam{}, false
}

func (p cProto) isVoid() bool { return p.Ret == "void" }
func (p cProto) isPointer() bool {
	return strings.HasSuffix(p.Ret, "*") || strings.HasSuffix(p.Ret, "Handle")
}
func (p cProto) isUnsigned() bool {
	return p.Ret == "size_t" || strings.HasPrefix(p.Ret, "uint")
}

// ---- template data ----

type recStub struct {
	Name     string
	Proto    string // the C prototype, as exported
	Typedef  string // the function pointer type of the target's entry
	Call     string // the argument list of the forwarded call
	Ret      string
	Void     bool
	None     string // the answer when the stub cannot forward
	Unloaded string // the answer when no target is loaded
	Pre      []string
	Post     []string
	Missing  []string // before the result of a symbol the target lacks
}

type recTemplateData struct {
	Banner     []string
	Revision   string
	Decls      string
	Consts     []cConst
	Stubs      []recStub
	Resolve    []string // every symbol dlsym'd in the target
	ImageLimit uint64
}

func recStubFor(s abi.Symbol, rev abi.Revision) (recStub, error) {
	protoText := s.Proto
	if rev == abi.RevLegacy && s.Name == abi.SymSimplerInit {
		protoText = abi.LegacySimplerInitProto
	}
	p, err := parseProto(protoText)
	if err != nil {
		return recStub{}, err
	}
	if p.Name != s.Name {
		return recStub{}, fmt.Errorf("emit: prototype of %s names %s", s.Name, p.Name)
	}
	st := recStub{Name: s.Name, Proto: protoText, Ret: p.Ret, Void: p.isVoid()}
	st.Typedef = "typedef " + regexp.MustCompile(`\b`+s.Name+`\(`).ReplaceAllString(protoText, "(*rec_fn_"+s.Name+")(") + ";"
	names := make([]string, len(p.Params))
	for i, q := range p.Params {
		names[i] = q.Name
	}
	st.Call = strings.Join(names, ", ")

	op, described := recOps[s.Name]
	result := op.Result
	if result == resDefault {
		switch {
		case p.isVoid():
			result = resDone
		case p.isPointer():
			result = resPtr
		case p.isUnsigned():
			result = resValue
		default:
			result = resStatus
		}
	}
	switch {
	case p.isVoid():
		st.None = ""
	case op.NoneAnswer != "":
		st.None = op.NoneAnswer
	case p.isPointer():
		st.None = "NULL"
	case result == resValue:
		st.None = "0"
	default:
		st.None = "PTO_RUNTIME_ERR_INTERNAL"
	}
	st.Unloaded = st.None
	if op.UnloadedAnswer != "" {
		st.Unloaded = op.UnloadedAnswer
	}

	// The op text. An op without a payload (image, CallConfig, descriptor)
	// resolves its names under one hold of the lock; one with a payload
	// takes the lock per name, so that no hex is formatted under it.
	named, payload := false, false
	for _, a := range op.Args {
		switch a.Kind {
		case argCtx, argStream, argSt:
			named = true
		case argCfg, argImg, argRegImg, argDesc:
			payload = true
		}
	}
	locked := ""
	if named && !payload {
		locked = "_locked"
		st.Pre = append(st.Pre, "pthread_mutex_lock(&g_mu);")
	}
	if !described || op.Op == "" {
		st.Pre = append(st.Pre, fmt.Sprintf("rb_lit(&rc.b, %q);", "call "+s.Name))
	} else {
		st.Pre = append(st.Pre, fmt.Sprintf("rb_lit(&rc.b, %q);", op.Op))
	}
	for _, a := range op.Args {
		q, ok := p.param(a.Param)
		if !ok {
			if a.Optional {
				continue
			}
			return recStub{}, fmt.Errorf("emit: recorder: %s has no parameter %s", s.Name, a.Param)
		}
		size := ""
		if a.Size != "" {
			if _, ok := p.param(a.Size); !ok {
				return recStub{}, fmt.Errorf("emit: recorder: %s has no parameter %s", s.Name, a.Size)
			}
			size = a.Size
		}
		var c string
		switch a.Kind {
		case argCtx:
			c = fmt.Sprintf("rb_ctx%s(&rc.b, %s);", locked, q.Name)
		case argInt:
			c = fmt.Sprintf("rb_key_i64(&rc.b, %q, (int64_t)%s);", a.Key, q.Name)
		case argUint:
			c = fmt.Sprintf("rb_key_u64(&rc.b, %q, (uint64_t)%s);", a.Key, q.Name)
		case argSpan:
			c = fmt.Sprintf("rb_key_span(&rc.b, %q, %s, (uint64_t)%s);", a.Key, q.Name, size)
		case argCfg:
			c = fmt.Sprintf("rb_key_cfg(&rc.b, %q, %s);", a.Key, q.Name)
		case argImg:
			c = fmt.Sprintf("rb_key_img(&rc.b, %s, (uint64_t)%s);", q.Name, size)
		case argRegImg:
			c = fmt.Sprintf("rb_key_regimg(&rc.b, %s);", q.Name)
		case argArgs:
			c = fmt.Sprintf("rb_key_args(&rc.b, %q, %s, 0);", a.Key, q.Name)
		case argArgsLate:
			c = "size_t rec_args_at = rc.b.n;"
			st.Post = append(st.Post, fmt.Sprintf("rb_insert_args(&rc.b, rec_args_at, %q, %s, r == 0);", a.Key, q.Name))
			st.Missing = append(st.Missing, fmt.Sprintf("rb_insert_args(&rc.b, rec_args_at, %q, %s, 0);", a.Key, q.Name))
		case argStream:
			c = fmt.Sprintf("rb_key_stream%s(&rc.b, %q, %s);", locked, orDefault(a.Key, " "), q.Name)
		case argSt:
			c = fmt.Sprintf("rb_key_st%s(&rc.b, %s);", locked, q.Name)
		case argDesc:
			c = fmt.Sprintf("rb_key_desc(&rc.b, %s);", q.Name)
		case argOutNull:
			c = fmt.Sprintf("if (%s == NULL) {\n        rb_lit(&rc.b, \" out=null\");\n    }", q.Name)
		case argDevPos:
			c = fmt.Sprintf("rb_devpos(&rc.b, (int64_t)%s);", q.Name)
		default:
			return recStub{}, fmt.Errorf("emit: recorder: %s: unknown argument kind %d", s.Name, a.Kind)
		}
		st.Pre = append(st.Pre, c)
	}
	if described && op.Fn != "" {
		st.Pre = append(st.Pre, fmt.Sprintf("rb_lit(&rc.b, %q);", " fn="+op.Fn))
	}
	if locked != "" {
		st.Pre = append(st.Pre, "pthread_mutex_unlock(&g_mu);")
	}

	// The result text.
	switch result {
	case resStatus:
		st.Post = append(st.Post, "rec_res_i64(&rc, (int64_t)r);")
	case resValue:
		if p.isUnsigned() {
			st.Post = append(st.Post, "rec_res_u64(&rc, (uint64_t)r);")
		} else {
			st.Post = append(st.Post, "rec_res_i64(&rc, (int64_t)r);")
		}
	case resPtr:
		st.Post = append(st.Post, "rec_res_ptr(&rc, (const void *)r);")
	case resDone:
		st.Post = append(st.Post, "rec_res_done(&rc);")
	case resCreate:
		st.Post = append(st.Post, "rec_res_create(&rc, (const void *)r);")
	case resPrepare:
		st.Post = append(st.Post, "rec_res_i64(&rc, (int64_t)r);",
			"if (out_callable_id != NULL) {\n        rb_key_i64(&rc.b, \" out=\", (int64_t)*out_callable_id);\n    }")
	case resPrepareRun:
		st.Post = append(st.Post, "rec_res_i64(&rc, (int64_t)r);",
			"if (r == 0) {\n        rec_remember_descriptor(runtime, descriptor);\n    }")
	case resLaunchRun:
		st.Post = append(st.Post, "rec_res_i64(&rc, (int64_t)r);",
			"if (r == 0) {\n        rec_accepted(&rc, runtime);\n    }")
	}
	if (result == resValue || result == resStatus || result == resPrepare || result == resPrepareRun || result == resLaunchRun) && (p.isVoid() || p.isPointer()) {
		return recStub{}, fmt.Errorf("emit: recorder: %s returns %s, which cannot be recorded as a number", s.Name, p.Ret)
	}
	if (result == resPtr || result == resCreate) && !p.isPointer() {
		return recStub{}, fmt.Errorf("emit: recorder: %s returns %s, not a pointer", s.Name, p.Ret)
	}
	if result == resDone && !p.isVoid() {
		return recStub{}, fmt.Errorf("emit: recorder: %s returns %s, not void", s.Name, p.Ret)
	}
	return st, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

//go:embed templates/recorder.c.tmpl
var recorderTemplateText string

var recorderTemplate = sync.OnceValues(func() (*template.Template, error) {
	t, err := template.New("recorder.c.tmpl").Option("missingkey=error").Parse(recorderTemplateText)
	if err != nil {
		return nil, fmt.Errorf("emit: templates/recorder.c.tmpl: %w", err)
	}
	return t, nil
})

// RecorderSource emits the C source of the recording runtime of cfg.
func RecorderSource(cfg RecorderConfig) (string, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return "", err
	}
	d := recTemplateData{
		Revision:   RevisionName(cfg.Revision),
		Decls:      abi.CDeclarations(""),
		ImageLimit: cfg.ImageLimit,
	}
	d.Banner = append(d.Banner, "Revision: "+d.Revision)
	if cfg.NoHooks {
		d.Banner = append(d.Banner, "Simulation hooks: not exported (-hooks=false)")
	}
	d.Banner = append(d.Banner, fmt.Sprintf("Default image limit: %d bytes", cfg.ImageLimit))
	cfgSize := abi.CallConfigSize
	if cfg.Revision == abi.RevLegacy {
		cfgSize = abi.LegacyCallConfigSize
	}
	c := func(name string, v any, comment string) {
		d.Consts = append(d.Consts, cConst{name, fmt.Sprint(v), comment})
	}
	c("PTO_RUNTIME_ERR_INTERNAL", fmt.Sprintf("(%d)", int32(abi.Internal)), "")
	c("HOST_BIND_REFUSED", fmt.Sprintf("(%d)", int32(abi.HostBindRefused)), "simpler_host_log_bind_state without a target")
	c("REC_CALL_CONFIG_SIZE", cfgSize, "the CallConfig of the revision")
	c("REC_DESC_SIZE", abi.NativeRunDescSize, "sizeof(NativeRunDescriptor)")
	c("CHIP_CALLABLE_SIZE", abi.ChipCallableSize, "sizeof(ChipCallable)")
	c("MAX_CHILDREN", abi.MaxChildren, "")
	c("CALLABLE_ALIGN", abi.CallableAlign, "child offsets inside an image")
	c("CORE_CODE_OFFSET", abi.CoreCodeOffset, "where a child's code starts")
	c("MAX_DERIVED_IMAGE", fmt.Sprintf("%dull", MaxDerivedImage), "bound of an image size derived from a registered header")
	c("ADDRESS_SPACE_HOST", uint8(abi.HostSpace), "ChipTensor.address_space of a HOST tensor")
	c("REC_DEFAULT_IMAGE_LIMIT", fmt.Sprintf("%dull", cfg.ImageLimit), "-image-limit")
	c("REC_TRACE_VERSION", TraceVersion, "")
	syms := RecorderSymbols(cfg)
	for _, s := range syms {
		st, err := recStubFor(s, cfg.Revision)
		if err != nil {
			return "", err
		}
		d.Stubs = append(d.Stubs, st)
		d.Resolve = append(d.Resolve, s.Name)
	}
	tmpl, err := recorderTemplate()
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, d); err != nil {
		return "", fmt.Errorf("emit: recorder.c.tmpl: %w", err)
	}
	src := b.String()
	defined := map[string]int{}
	for _, m := range definitionRE.FindAllStringSubmatch(src, -1) {
		defined[m[1]]++
	}
	for _, s := range syms {
		if defined[s.Name] != 1 {
			return "", fmt.Errorf("emit: internal error: %s is defined %d times in the recorder", s.Name, defined[s.Name])
		}
	}
	if len(defined) != len(syms) {
		return "", fmt.Errorf("emit: internal error: the recorder exports %d symbols, the table lists %d", len(defined), len(syms))
	}
	return src, nil
}

// recorderKey hashes the source, the compiler and the flags.
func recorderKey(src string, cc compilerID) string {
	h := sha256.New()
	for _, part := range []string{recorderKeySalt, src, strings.Join(cc.argv, " "), cc.version, strings.Join(CFlags, " ")} {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// BuildRecorder emits the recording runtime of cfg and compiles it, or
// returns the cached build of the same source, compiler and flags (the cache
// of Build: BuildOptions.CacheDir, $SIMABI_FAKE_CACHE, ~/.cache/simabi/fakes).
// With opt.OutDir the library and its source are copied there and the
// artifacts name the copies.
func BuildRecorder(cfg RecorderConfig, opt BuildOptions) (*RecorderArtifacts, error) {
	src, err := RecorderSource(cfg)
	if err != nil {
		return nil, err
	}
	cc, err := resolveCompiler(opt.CC)
	if err != nil {
		return nil, err
	}
	cacheDir, err := opt.cacheDir()
	if err != nil {
		return nil, err
	}
	key := recorderKey(src, cc)
	final := filepath.Join(cacheDir, "rec-"+key)
	art := &RecorderArtifacts{
		RuntimePath: filepath.Join(final, RuntimeLibName),
		SourcePath:  filepath.Join(final, RecorderSrcName),
		Key:         key,
	}
	art.Cached, err = publish(cacheDir, final, "rec-"+key, ".build-rec-"+key[:12]+"-",
		func() bool { return regular(art.RuntimePath) && regular(art.SourcePath) },
		func(tmp string) error {
			if err := os.WriteFile(filepath.Join(tmp, RecorderSrcName), []byte(src), 0o644); err != nil {
				return err
			}
			return runCC(tmp, cc, recorderLinkArgs...)
		})
	if err != nil {
		return nil, err
	}
	if opt.OutDir == "" {
		return art, nil
	}
	if err := os.MkdirAll(opt.OutDir, 0o755); err != nil {
		return nil, err
	}
	out := *art
	for _, f := range []struct {
		src string
		dst *string
	}{{art.RuntimePath, &out.RuntimePath}, {art.SourcePath, &out.SourcePath}} {
		p := filepath.Join(opt.OutDir, filepath.Base(f.src))
		if err := copyFile(f.src, p); err != nil {
			return nil, fmt.Errorf("emit: copying to %s: %w", opt.OutDir, err)
		}
		*f.dst = p
	}
	return &out, nil
}

// WriteRecorderSource writes the recorder's source into dir (the CLI's
// -emit-only) and returns its path.
func WriteRecorderSource(src, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, RecorderSrcName)
	return p, os.WriteFile(p, []byte(src), 0o644)
}

func regular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
