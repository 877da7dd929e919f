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
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
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
// (the "# simabi trace v2" header line).
const TraceVersion = tracevocab.Version

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

// What a stub records is the entry's line in the trace vocabulary
// (tracevocab.EntryOf); this file turns it into C. The spellings of the
// vocabulary's forms become C writer functions (vocabC), which the
// template's helpers and the stubs call, so no spelling is written by hand
// in C.

// noneAnswers are what a stub answers when it cannot forward (a symbol the
// target lacks, no target), where the return type's default (NULL, 0 for an
// unsigned value, INTERNAL) is not it.
var noneAnswers = map[string]string{
	abi.SymKernelSupported:           "0",
	abi.SymSupportsConcurrentPrepare: "0",
	abi.SymSimCurrentDevice:          "-1",
}

// unloadedAnswers override noneAnswers when no target is loaded.
var unloadedAnswers = map[string]string{abi.SymHostLogBindState: "HOST_BIND_REFUSED"}

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
	Vocab      string // the vocabulary's writers and words (vocabC)
	Stubs      []recStub
	Resolve    []string // every symbol dlsym'd in the target
	ImageLimit uint64
}

// cLit is s as a C string literal.
func cLit(s string) string { return strconv.Quote(s) }

func recStubFor(s abi.Symbol, rev abi.Revision) (recStub, error) {
	protoText := tracevocab.Proto(s, rev)
	p, err := parseProto(protoText)
	if err != nil {
		return recStub{}, err
	}
	if p.Name != s.Name {
		return recStub{}, fmt.Errorf("emit: prototype of %s names %s", s.Name, p.Name)
	}
	e := tracevocab.EntryOf(s, rev)
	st := recStub{Name: s.Name, Proto: protoText, Ret: p.Ret, Void: p.isVoid()}
	st.Typedef = "typedef " + regexp.MustCompile(`\b`+s.Name+`\(`).ReplaceAllString(protoText, "(*rec_fn_"+s.Name+")(") + ";"
	names := make([]string, len(p.Params))
	for i, q := range p.Params {
		names[i] = q.Name
	}
	st.Call = strings.Join(names, ", ")

	switch {
	case p.isVoid():
		st.None = ""
	case noneAnswers[s.Name] != "":
		st.None = noneAnswers[s.Name]
	case p.isPointer():
		st.None = "NULL"
	case e.Result == tracevocab.Uint:
		st.None = "0"
	default:
		st.None = "PTO_RUNTIME_ERR_INTERNAL"
	}
	st.Unloaded = st.None
	if u := unloadedAnswers[s.Name]; u != "" {
		st.Unloaded = u
	}

	// The op text. An op without a payload (image, CallConfig, descriptor)
	// resolves its names under one hold of the lock; one with a payload
	// takes the lock per name, so that no hex is formatted under it.
	named, payload := false, false
	for _, a := range e.Args {
		switch a.Form {
		case tracevocab.Ctx, tracevocab.Stream, tracevocab.Storage:
			named = true
		case tracevocab.Cfg, tracevocab.Img, tracevocab.RegImg, tracevocab.Desc:
			payload = true
		}
	}
	locked := ""
	if named && !payload {
		locked = "_locked"
		st.Pre = append(st.Pre, "pthread_mutex_lock(&g_mu);")
	}
	st.Pre = append(st.Pre, fmt.Sprintf("rb_lit(&rc.b, %s);", cLit(e.Op)))
	for _, a := range e.Args {
		q, ok := p.param(a.Param)
		if !ok && a.Form != tracevocab.Name {
			return recStub{}, fmt.Errorf("emit: recorder: %s has no parameter %s", s.Name, a.Param)
		}
		size := ""
		if a.Size != "" {
			if _, ok := p.param(a.Size); !ok {
				return recStub{}, fmt.Errorf("emit: recorder: %s has no parameter %s", s.Name, a.Size)
			}
			size = a.Size
		}
		key := cLit(tracevocab.ArgSep)
		if a.Key != "" {
			key = cLit(tracevocab.ArgSep + a.Key + tracevocab.KeySep)
		}
		var c string
		switch a.Form {
		case tracevocab.Ctx:
			c = fmt.Sprintf("rb_ctx%s(&rc.b, %s, %s);", locked, key, q.Name)
		case tracevocab.Int:
			c = fmt.Sprintf("rb_lit(&rc.b, %s);\n    tv_int_n(&rc.b, (int64_t)%s);", key, q.Name)
		case tracevocab.Uint:
			c = fmt.Sprintf("rb_lit(&rc.b, %s);\n    tv_uint_n(&rc.b, (uint64_t)%s);", key, q.Name)
		case tracevocab.Span:
			c = fmt.Sprintf("rb_key_span(&rc.b, %s, %s, (uint64_t)%s);", key, q.Name, size)
		case tracevocab.Cfg:
			c = fmt.Sprintf("rb_key_cfg(&rc.b, %s, %s);", key, q.Name)
		case tracevocab.Img:
			c = fmt.Sprintf("rb_key_img(&rc.b, %s, %s, (uint64_t)%s);", key, q.Name, size)
		case tracevocab.RegImg:
			c = fmt.Sprintf("rb_key_regimg(&rc.b, %s, %s);", key, q.Name)
		case tracevocab.Args:
			if a.Late {
				c = "size_t rec_args_at = rc.b.n;"
				st.Post = append(st.Post, fmt.Sprintf("rb_insert_args(&rc.b, rec_args_at, %s, %s, r == 0);", key, q.Name))
				st.Missing = append(st.Missing, fmt.Sprintf("rb_insert_args(&rc.b, rec_args_at, %s, %s, 0);", key, q.Name))
			} else {
				c = fmt.Sprintf("rb_key_args(&rc.b, %s, %s, 0);", key, q.Name)
			}
		case tracevocab.Stream:
			c = fmt.Sprintf("rb_key_stream%s(&rc.b, %s, %s);", locked, key, q.Name)
		case tracevocab.Storage:
			c = fmt.Sprintf("rb_key_st%s(&rc.b, %s, %s);", locked, key, q.Name)
		case tracevocab.Desc:
			c = fmt.Sprintf("rb_key_desc(&rc.b, %s, %s);", key, q.Name)
		case tracevocab.NullFlag:
			if !a.WhenNull {
				return recStub{}, fmt.Errorf("emit: recorder: %s: %s= is a flag written only when NULL", s.Name, a.Key)
			}
			c = fmt.Sprintf("if (%s == NULL) {\n        rb_lit(&rc.b, %s);\n        tv_nullflag_null(&rc.b);\n    }", q.Name, key)
		case tracevocab.Device:
			c = fmt.Sprintf("rb_devpos(&rc.b, %s, (int64_t)%s);", key, q.Name)
		case tracevocab.Name:
			c = fmt.Sprintf("rb_lit(&rc.b, %s);\n    tv_name_name(&rc.b, %s);", key, cLit(s.Name))
		default:
			return recStub{}, fmt.Errorf("emit: recorder: %s: no C writer for an argument of form %s", s.Name, a.Form.Name())
		}
		st.Pre = append(st.Pre, c)
	}
	if e.Fn != "" {
		st.Pre = append(st.Pre, fmt.Sprintf("rb_lit(&rc.b, %s);", cLit(tracevocab.ArgSep+tracevocab.FnKey+tracevocab.KeySep+e.Fn)))
	}
	if locked != "" {
		st.Pre = append(st.Pre, "pthread_mutex_unlock(&g_mu);")
	}

	// The result text.
	switch e.Result {
	case tracevocab.Int:
		if p.isVoid() || p.isPointer() {
			return recStub{}, fmt.Errorf("emit: recorder: %s returns %s, which cannot be recorded as a number", s.Name, p.Ret)
		}
		st.Post = append(st.Post, "rec_res_i64(&rc, (int64_t)r);")
	case tracevocab.Uint:
		if p.isVoid() || p.isPointer() {
			return recStub{}, fmt.Errorf("emit: recorder: %s returns %s, which cannot be recorded as a number", s.Name, p.Ret)
		}
		st.Post = append(st.Post, "rec_res_u64(&rc, (uint64_t)r);")
	case tracevocab.Ptr:
		if !p.isPointer() {
			return recStub{}, fmt.Errorf("emit: recorder: %s returns %s, not a pointer", s.Name, p.Ret)
		}
		st.Post = append(st.Post, "rec_res_ptr(&rc, (const void *)r);")
	case tracevocab.Done:
		if !p.isVoid() {
			return recStub{}, fmt.Errorf("emit: recorder: %s returns %s, not void", s.Name, p.Ret)
		}
		st.Post = append(st.Post, "rec_res_done(&rc);")
	case tracevocab.Ctx:
		if !p.isPointer() {
			return recStub{}, fmt.Errorf("emit: recorder: %s returns %s, not a pointer", s.Name, p.Ret)
		}
		st.Post = append(st.Post, "rec_res_create(&rc, (const void *)r);")
	default:
		return recStub{}, fmt.Errorf("emit: recorder: %s: no C writer for a result of form %s", s.Name, e.Result.Name())
	}
	for _, x := range e.Extras {
		key := cLit(tracevocab.ArgSep + x.Key + tracevocab.KeySep)
		switch {
		case x.Key == "out" && x.Form == tracevocab.Int:
			st.Post = append(st.Post, fmt.Sprintf("if (%s != NULL) {\n        rb_lit(&rc.b, %s);\n        tv_int_n(&rc.b, (int64_t)*%s);\n    }", x.Param, key, x.Param))
		case x.Key == "accepted" && x.Form == tracevocab.Int:
			st.Post = append(st.Post, fmt.Sprintf("if (r == 0) {\n        rec_accepted(&rc, %s, %s);\n    }", key, x.Param))
		default:
			return recStub{}, fmt.Errorf("emit: recorder: %s: no C writer for the result field %s=", s.Name, x.Key)
		}
	}
	if s.Name == abi.SymPrepareRun {
		// A successful prepare_run remembers its descriptor's accepted_state
		// for the accepted= of the storage's launch_run.
		st.Post = append(st.Post, "if (r == 0) {\n        rec_remember_descriptor(runtime, descriptor);\n    }")
	}
	return st, nil
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
	if err := vocabularyWritten(); err != nil {
		return "", err
	}
	src, _, err := renderRecorder(cfg)
	return src, err
}

// vocabularyWritten checks that the full recorder (the kernel revision,
// with the hooks) writes every spelling of the vocabulary: a writer or a
// word the rest of its source never uses is a form the parser reads and the
// recorder cannot write (or one the template lost).
var vocabularyWritten = sync.OnceValue(func() error {
	src, vocab, err := renderRecorder(RecorderConfig{Revision: abi.RevKernel, ImageLimit: DefaultImageLimit})
	if err != nil {
		return err
	}
	_, names := vocabC()
	rest := strings.Replace(src, vocab, "", 1)
	for _, n := range names {
		if !regexp.MustCompile(`\b` + n + `\b`).MatchString(rest) {
			return fmt.Errorf("emit: recorder: the vocabulary's %s is never written (abi/tracevocab defines it; the template must write it, or the vocabulary drop it)", n)
		}
	}
	return nil
})

// renderRecorder is the recorder's source of a normalized cfg, and its
// vocabulary block.
func renderRecorder(cfg RecorderConfig) (src, vocab string, err error) {
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
	c("REC_MAX_TENSORS", tracevocab.ArgsMaxSpaces, "ARGS records the address space of this many tensors at most")
	c("REC_DEFAULT_IMAGE_LIMIT", fmt.Sprintf("%dull", cfg.ImageLimit), "-image-limit")
	syms := RecorderSymbols(cfg)
	for _, s := range syms {
		st, err := recStubFor(s, cfg.Revision)
		if err != nil {
			return "", "", err
		}
		d.Stubs = append(d.Stubs, st)
		d.Resolve = append(d.Resolve, s.Name)
	}
	d.Vocab, _ = vocabC()
	tmpl, err := recorderTemplate()
	if err != nil {
		return "", "", err
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, d); err != nil {
		return "", "", fmt.Errorf("emit: recorder.c.tmpl: %w", err)
	}
	src = b.String()
	defined := map[string]int{}
	for _, m := range definitionRE.FindAllStringSubmatch(src, -1) {
		defined[m[1]]++
	}
	for _, s := range syms {
		if defined[s.Name] != 1 {
			return "", "", fmt.Errorf("emit: internal error: %s is defined %d times in the recorder", s.Name, defined[s.Name])
		}
	}
	if len(defined) != len(syms) {
		return "", "", fmt.Errorf("emit: internal error: the recorder exports %d symbols, the table lists %d", len(defined), len(syms))
	}
	return src, d.Vocab, nil
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
