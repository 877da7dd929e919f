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
	"github.com/simabi/simabi/internal/scratch"
)

// The recording runtime (docs/trace.md): a libhost_runtime.so that loads the
// runtime named by SIMABI_RECORD_TARGET, forwards every call to it unchanged
// and appends one line per call to a trace. Its exports are generated from
// abi.Symbols, one forwarding stub per entry of the revision, so it cannot
// miss an entry; what each stub writes is the entry's line of the trace
// vocabulary (abi/tracevocab: an entry without a description there is
// recorded as "call NAME").

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
// (tracevocab.EntryOf); recStubFor turns it into data, and the template's
// writers of each form turn that into C. The spellings of the vocabulary's
// forms become C writer functions (vocabC), which the template's helpers
// and writers call, so no spelling is written by hand in C.

// noneAnswers are what a stub answers when it cannot forward (a symbol the
// target lacks, no target), where the return type's default (NULL, 0 for an
// unsigned value, INTERNAL) is not it.
var noneAnswers = map[abi.Entry]string{
	abi.EntryKernelSupported:           "0",
	abi.EntrySupportsConcurrentPrepare: "0",
	abi.EntrySimCurrentDevice:          "-1",
}

// unloadedAnswers override noneAnswers when no target is loaded.
var unloadedAnswers = map[abi.Entry]string{abi.EntryHostLogBindState: "HOST_BIND_REFUSED"}

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

// A stub is data: what it forwards, and what it records as the entry's
// line of the vocabulary, argument by argument. The C of each form is the
// template's: it defines "arg FORM" (the argument, before the call), "late
// FORM" and "late-missing FORM" (an argument written after the call, and
// when the target lacks the entry), "result FORM" and "extra KEY" (a field
// after the result). A form the template defines no writer for is one the
// recorder cannot write: recStubFor refuses it.

type recStub struct {
	Name     string
	Proto    string // the C prototype, as exported
	Typedef  string // the function pointer type of the target's entry
	Call     string // the argument list of the forwarded call
	Ret      string
	Void     bool
	None     string // the answer when the stub cannot forward
	Unloaded string // the answer when no target is loaded

	Op string // the op word, a C literal
	// Lock: the stub holds g_mu over its op text. An op without a payload
	// (image, CallConfig, descriptor) resolves its names under one hold of
	// the lock; one with a payload takes the lock per name, so that no hex
	// is formatted under it.
	Lock   bool
	Args   []recArg
	Fn     string // prog's " fn=NAME", a C literal, or ""
	Result string // the result's form ("result FORM")
	Extras []recExtra
	// RemembersDescriptor: a successful prepare_run remembers its
	// descriptor's accepted_state for the accepted= of the storage's
	// launch_run.
	RemembersDescriptor bool
}

// recArg is one argument of an op's text.
type recArg struct {
	Form   string // its form's name in the template (formName)
	Key    string // " KEY=", or " " for a positional argument: a C literal
	Param  string // the C parameter it is read from
	Size   string // the size parameter of a SPAN or an IMG
	Entry  string // the entry's name, a C literal (the value of a NAME)
	Locked bool   // the stub holds g_mu: names are resolved by the _locked writers
	Late   bool   // written after the call returns
}

// recExtra is a field after the result.
type recExtra struct {
	Kind  string // "extra KIND" writes it: its key
	Key   string // " KEY=", a C literal
	Param string
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

// formName is a form's name in the template's writers ("arg ctx").
func formName(f tracevocab.Form) string { return strings.ToLower(f.GoName()) }

// writers says whether the recorder's template defines a writer: "arg ctx",
// "result int", "extra out".
type writers interface {
	Lookup(name string) *template.Template
}

func hasWriter(w writers, kind, name string) bool { return w.Lookup(kind+" "+name) != nil }

// recStubFor is the stub of entry e, whose C prototype is protoText.
func recStubFor(e tracevocab.Entry, protoText string, w writers) (recStub, error) {
	p, err := parseProto(protoText)
	if err != nil {
		return recStub{}, err
	}
	if p.Name != e.Symbol {
		return recStub{}, fmt.Errorf("emit: prototype of %s names %s", e.Symbol, p.Name)
	}
	st := recStub{Name: e.Symbol, Proto: protoText, Ret: p.Ret, Void: p.isVoid()}
	st.Typedef = "typedef " + regexp.MustCompile(`\b`+e.Symbol+`\(`).ReplaceAllString(protoText, "(*rec_fn_"+e.Symbol+")(") + ";"
	names := make([]string, len(p.Params))
	for i, q := range p.Params {
		names[i] = q.Name
	}
	st.Call = strings.Join(names, ", ")
	st.None, st.Unloaded = stubAnswers(e, p)

	st.Op, st.Lock = cLit(e.Op), namesUnderOneLock(e)
	if st.Args, err = stubArgs(e, p, st.Lock, w); err != nil {
		return recStub{}, err
	}
	if e.Fn != "" {
		st.Fn = cLit(tracevocab.ArgSep + tracevocab.FnKey + tracevocab.KeySep + e.Fn)
	}
	if st.Result, err = stubResult(e, p, w); err != nil {
		return recStub{}, err
	}
	for _, x := range e.Extras {
		if x.Form != tracevocab.Int || !hasWriter(w, "extra", x.Key) {
			return recStub{}, fmt.Errorf("emit: recorder: %s: no C writer for the result field %s=", e.Symbol, x.Key)
		}
		st.Extras = append(st.Extras, recExtra{Kind: x.Key, Key: cLit(tracevocab.ArgSep + x.Key + tracevocab.KeySep), Param: x.Param})
	}
	st.RemembersDescriptor = e.Entry == abi.EntryPrepareRun
	return st, nil
}

// stubAnswers are what the stub of e answers when it cannot forward, and
// when no target is loaded.
func stubAnswers(e tracevocab.Entry, p cProto) (none, unloaded string) {
	switch {
	case p.isVoid():
		none = ""
	case noneAnswers[e.Entry] != "":
		none = noneAnswers[e.Entry]
	case p.isPointer():
		none = "NULL"
	case e.Result == tracevocab.Uint:
		none = "0"
	default:
		none = "PTO_RUNTIME_ERR_INTERNAL"
	}
	unloaded = none
	if u := unloadedAnswers[e.Entry]; u != "" {
		unloaded = u
	}
	return none, unloaded
}

// namesUnderOneLock: e's op has names to resolve (contexts, streams,
// storages, the comm family's handles, paths and ids) and no payload to
// format (see recStub.Lock).
func namesUnderOneLock(e tracevocab.Entry) bool {
	named, payload := false, false
	for _, a := range e.Args {
		switch a.Form {
		case tracevocab.Ctx, tracevocab.Stream, tracevocab.Storage, tracevocab.CommHandle, tracevocab.CommPath,
			tracevocab.CommAlloc, tracevocab.CommDomain:
			named = true
		case tracevocab.Cfg, tracevocab.Img, tracevocab.RegImg, tracevocab.Desc, tracevocab.RankIDs, tracevocab.CommDescs:
			payload = true
		}
	}
	return named && !payload
}

// stubArgs are the arguments of e's op text, each with a writer in the
// template and read from a parameter of p; locked: the stub holds g_mu.
func stubArgs(e tracevocab.Entry, p cProto, locked bool, w writers) ([]recArg, error) {
	var out []recArg
	for _, a := range e.Args {
		q, ok := p.param(a.Param)
		if !ok && a.Form != tracevocab.Name {
			return nil, fmt.Errorf("emit: recorder: %s has no parameter %s", e.Symbol, a.Param)
		}
		if a.Size != "" {
			if _, ok := p.param(a.Size); !ok {
				return nil, fmt.Errorf("emit: recorder: %s has no parameter %s", e.Symbol, a.Size)
			}
		}
		form := formName(a.Form)
		if !hasWriter(w, "arg", form) || a.Late && !(hasWriter(w, "late", form) && hasWriter(w, "late-missing", form)) {
			return nil, fmt.Errorf("emit: recorder: %s: no C writer for an argument of form %s", e.Symbol, a.Form.Name())
		}
		if a.Form == tracevocab.NullFlag && !a.WhenNull {
			return nil, fmt.Errorf("emit: recorder: %s: %s= is a flag written only when NULL", e.Symbol, a.Key)
		}
		key := cLit(tracevocab.ArgSep)
		if a.Key != "" {
			key = cLit(tracevocab.ArgSep + a.Key + tracevocab.KeySep)
		}
		out = append(out, recArg{Form: form, Key: key, Param: q.Name, Size: a.Size, Entry: cLit(e.Symbol),
			Locked: locked, Late: a.Late})
	}
	return out, nil
}

// resultReturns is what a C function must return for its result to be
// written in a form.
var resultReturns = map[tracevocab.Form]string{
	tracevocab.CommHandle: "pointer",
	tracevocab.Int:        "number",
	tracevocab.Uint:       "number",
	tracevocab.Ptr:        "pointer",
	tracevocab.Ctx:        "pointer",
	tracevocab.Done:       "void",
}

// stubResult is the form of e's result, once p's return type can be
// written in it.
func stubResult(e tracevocab.Entry, p cProto, w writers) (string, error) {
	want, ok := resultReturns[e.Result]
	if !ok || !hasWriter(w, "result", formName(e.Result)) {
		return "", fmt.Errorf("emit: recorder: %s: no C writer for a result of form %s", e.Symbol, e.Result.Name())
	}
	switch {
	case want == "number" && (p.isVoid() || p.isPointer()):
		return "", fmt.Errorf("emit: recorder: %s returns %s, which cannot be recorded as a number", e.Symbol, p.Ret)
	case want == "pointer" && !p.isPointer():
		return "", fmt.Errorf("emit: recorder: %s returns %s, not a pointer", e.Symbol, p.Ret)
	case want == "void" && !p.isVoid():
		return "", fmt.Errorf("emit: recorder: %s returns %s, not void", e.Symbol, p.Ret)
	}
	return formName(e.Result), nil
}

//go:embed templates/recorder.c.tmpl
var recorderTemplateText string

// recorderTemplate is the recorder's template. Its "write KIND FORM DATA"
// executes the writer "KIND FORM" (a stub's argument, result or extra
// field in its form), which recStubFor has checked the template defines.
var recorderTemplate = sync.OnceValues(func() (*template.Template, error) {
	var t *template.Template
	write := func(kind, form string, data any) (string, error) {
		var b strings.Builder
		err := t.ExecuteTemplate(&b, kind+" "+form, data)
		return b.String(), err
	}
	t, err := template.New("recorder.c.tmpl").Funcs(template.FuncMap{"write": write}).Option("missingkey=error").Parse(recorderTemplateText)
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
	c("HOST_BIND_REFUSED", fmt.Sprintf("(%d)", int32(abi.HostBindRefused)), abi.EntryHostLogBindState.Name()+" without a target")
	c("REC_CALL_CONFIG_SIZE", cfgSize, "the CallConfig of the revision")
	c("REC_DESC_SIZE", abi.NativeRunDescSize, "sizeof(NativeRunDescriptor)")
	c("CHIP_CALLABLE_SIZE", abi.ChipCallableSize, "sizeof(ChipCallable)")
	c("MAX_CHILDREN", abi.MaxChildren, "")
	c("CALLABLE_ALIGN", abi.CallableAlign, "child offsets inside an image")
	c("CORE_CODE_OFFSET", abi.CoreCodeOffset, "where a child's code starts")
	c("MAX_DERIVED_IMAGE", fmt.Sprintf("%dull", MaxDerivedImage), "bound of an image size derived from a registered header")
	c("REC_MAX_TENSORS", tracevocab.ArgsMaxSpaces, "ARGS records the address space of this many tensors at most")
	c("REC_DEFAULT_IMAGE_LIMIT", fmt.Sprintf("%dull", cfg.ImageLimit), "-image-limit")
	c("REC_COMM_MAX_RANKS", abi.CommMaxRankNum, "IDS and DESCS record this many entries at most")
	c("REC_COMM_DESC_SIZE", abi.CommDescSize, "sizeof(CommGlobalDomainDescriptor)")
	c("REC_COMM_DESC_FIELDS", abi.CommDescHandleOff, "a descriptor's fields, before its handle")
	c("REC_COMM_IDS", 255, "allocation and domain ids the recorder numbers")
	c("REC_COMM_PATH_MAX", 4096, "the longest rootinfo path the recorder reads")
	tmpl, err := recorderTemplate()
	if err != nil {
		return "", "", err
	}
	syms := RecorderSymbols(cfg)
	for _, s := range syms {
		st, err := recStubFor(tracevocab.EntryOf(s, cfg.Revision), s.ProtoIn(cfg.Revision), tmpl)
		if err != nil {
			return "", "", err
		}
		d.Stubs = append(d.Stubs, st)
		d.Resolve = append(d.Resolve, s.Name)
	}
	d.Vocab, _ = vocabC()
	var b bytes.Buffer
	if err := tmpl.Execute(&b, d); err != nil {
		return "", "", fmt.Errorf("emit: recorder.c.tmpl: %w", err)
	}
	src = b.String()
	defined := map[string]int{}
	for _, name := range definedNames(src) {
		defined[name]++
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
			return runCC(tmp, cc, CFlags, recorderLinkArgs...)
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
		if err := scratch.CopyFile(f.src, p); err != nil {
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
