package emit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/semantics"
)

// Fault is the initial state of one simabi_inject site: the first Count passes
// through it fail with Code (rules F-2).
type Fault struct {
	Count int32
	Code  int32
}

// Knobs are the behaviour switches baked into an emitted runtime at generation
// (rules F-2, F-3). The zero value is the plain runtime of the profile.
//
// The CLI form of each field, as parsed by ParseKnob:
//
//	status.<entry>=<code>        Status[entry] = code
//	fail.<site>=<count>:<code>   Fail[site] = {count, code}; site is 1..9 or its name
//	prepare_writes_id=false      PrepareNoID = true
//	fatal_device=true            FatalDevice = true
//	strict=true                  Strict = true
//	must_not_call=<e>[,<e>...]   MustNotCall += entries
//	crash.<entry>=true           Crash += entry
//	hang.<entry>=true            Hang += entry
//	null.<entry>=true            Null += entry
//	comm_timeout_ms=<ms>         CommTimeoutMs = ms (>= 1)
//	poll_pending=<n>             PollPending = n (>= 0)
//	pipeline=<pipeline>          Pipeline = a name of abi.PipelineNames
type Knobs struct {
	// Status fixes the status an int-returning entry returns, after the
	// invalid-handle check. A fixed prepare still writes -1 first and, when the
	// fixed status is 0 and prepare writes ids, writes the context's next
	// minted id (0, 1, 2, ... per context). A fixed simpler_finalize_run
	// still ends the run first (E-FIN.9: whatever finalize_run returns).
	Status map[string]int32
	// Fail arms fault sites (docs/contract.md simabi_inject) from the start, as if
	// simabi_inject(site, count, code) had been called at load. tmr only.
	Fail map[int32]Fault
	// PrepareNoID makes a successful prepare leave -1 in out_callable_id
	// (prepare_writes_id=false).
	PrepareNoID bool
	// FatalDevice arms site 6 forever: every kernel finalize that reaches the
	// release step quarantines the context (D-4). tmr only.
	FatalDevice bool
	// Strict is the strict-consumer knob of F-3: supported asked on a context a
	// program init touched aborts, and so does a live (not quarantined)
	// context when the library is unloaded or the process exits.
	Strict bool
	// MustNotCall lists entries that abort the process when called (F-3).
	MustNotCall []string
	// Crash lists entries that abort the process when called (for testing a
	// checker's crash isolation).
	Crash []string
	// Hang lists entries that never return (for testing a checker's timeouts).
	Hang []string
	// Null lists pointer-returning entries that return NULL (the fixed
	// result of an entry that returns no status: a NULL context, a NULL
	// pipeline contract, for testing what a consumer or a checker does).
	Null []string
	// CommTimeoutMs bounds every wait of the comm family for its peers
	// (docs/semantics.md §14), in milliseconds; 0 is upstream's 120 s. A
	// test that drives a missing peer sets a short one instead of waiting.
	CommTimeoutMs int32
	// PollPending makes simpler_poll_run answer NOT_READY to the first
	// PollPending polls of each launched run before it completes it, as a
	// run still in flight on a real build answers (upstream's simulator:
	// not ready at the first poll after launch); wait_run completes it at
	// once. A consumer's in-flight path runs over the fake with it.
	PollPending int32
	// Pipeline selects the program pipeline the runtime presents: its
	// PipelineContract, get_runtime_size and get_runtime_alignment
	// (abi.PipelineSpecs). "" is the profile's default
	// (abi.Profile.DefaultPipeline): upstream's tensormap_and_ringbuffer
	// simulator build for legacy, the single slot for tmr and refusing.
	Pipeline abi.Pipeline
}

// ParseKnob parses one key=value knob (the CLI's -knob) into k.
func ParseKnob(kv string, k *Knobs) error {
	key, val, ok := strings.Cut(kv, "=")
	if !ok || key == "" {
		return fmt.Errorf("emit: knob %q: want key=value", kv)
	}
	bad := func(f string, a ...any) error {
		return fmt.Errorf("emit: knob %q: %s", kv, fmt.Sprintf(f, a...))
	}
	parseBool := func() (bool, error) {
		b, err := strconv.ParseBool(val)
		if err != nil {
			return false, bad("value must be true or false")
		}
		return b, nil
	}
	prefix, rest, dotted := strings.Cut(key, ".")
	switch {
	case dotted && prefix == "status":
		code, err := strconv.ParseInt(val, 0, 32)
		if err != nil {
			return bad("status must be a 32-bit integer")
		}
		if k.Status == nil {
			k.Status = map[string]int32{}
		}
		k.Status[rest] = int32(code)
	case dotted && prefix == "fail":
		site, err := parseSite(rest)
		if err != nil {
			return bad("%v", err)
		}
		cs, codeStr, ok := strings.Cut(val, ":")
		if !ok {
			return bad("want fail.<site>=<count>:<code>")
		}
		count, err1 := strconv.ParseInt(cs, 0, 32)
		code, err2 := strconv.ParseInt(codeStr, 0, 32)
		if err1 != nil || err2 != nil {
			return bad("count and code must be 32-bit integers")
		}
		if k.Fail == nil {
			k.Fail = map[int32]Fault{}
		}
		k.Fail[site] = Fault{Count: int32(count), Code: int32(code)}
	case dotted && (prefix == "crash" || prefix == "hang" || prefix == "null"):
		b, err := parseBool()
		if err != nil {
			return err
		}
		list := &k.Crash
		switch prefix {
		case "hang":
			list = &k.Hang
		case "null":
			list = &k.Null
		}
		*list = slices.DeleteFunc(*list, func(s string) bool { return s == rest })
		if b {
			*list = append(*list, rest)
		}
	case !dotted && boolKnobs(k)[key] != nil:
		b, err := parseBool()
		if err != nil {
			return err
		}
		boolKnobs(k)[key](b)
	case !dotted && key == "comm_timeout_ms":
		ms, err := strconv.ParseInt(val, 0, 32)
		if err != nil || ms < 1 {
			return bad("want a timeout of at least 1 millisecond")
		}
		k.CommTimeoutMs = int32(ms)
	case !dotted && key == "poll_pending":
		n, err := strconv.ParseInt(val, 0, 32)
		if err != nil || n < 0 {
			return bad("want a count of polls, 0 or more")
		}
		k.PollPending = int32(n)
	case !dotted && key == "pipeline":
		p, err := abi.ParsePipeline(val)
		if err != nil {
			return bad("want %s", abi.PipelineNames())
		}
		k.Pipeline = p
	case !dotted && key == "must_not_call":
		for _, e := range strings.Split(val, ",") {
			if e = strings.TrimSpace(e); e != "" && !slices.Contains(k.MustNotCall, e) {
				k.MustNotCall = append(k.MustNotCall, e)
			}
		}
	default:
		keys := make([]string, len(KnobForms))
		for i, f := range KnobForms {
			keys[i] = f.Key
		}
		return bad("unknown knob (%s)", strings.Join(keys, ", "))
	}
	return nil
}

// boolKnobs are the setters of k's true/false knobs, by key.
func boolKnobs(k *Knobs) map[string]func(bool) {
	return map[string]func(bool){
		"prepare_writes_id": func(b bool) { k.PrepareNoID = !b },
		"fatal_device":      func(b bool) { k.FatalDevice = b },
		"strict":            func(b bool) { k.Strict = b },
	}
}

// parseSite accepts a site number abi.FirstSite..abi.LastSite or its
// abi.SiteNames name.
func parseSite(s string) (int32, error) {
	if n, err := strconv.ParseInt(s, 10, 32); err == nil {
		if int32(n) < abi.FirstSite || int32(n) > abi.LastSite {
			return 0, fmt.Errorf("fault site %d outside %d..%d", n, abi.FirstSite, abi.LastSite)
		}
		return int32(n), nil
	}
	for site, name := range abi.SiteNames {
		if name == s {
			return site, nil
		}
	}
	return 0, fmt.Errorf("unknown fault site %q", s)
}

// Strings renders k as the -knob arguments that reproduce it, in a stable
// order.
func (k Knobs) Strings() []string {
	var out []string
	for _, e := range sortedKeys(k.Status) {
		out = append(out, fmt.Sprintf("status.%s=%d", e, k.Status[e]))
	}
	sites := make([]int32, 0, len(k.Fail))
	for s := range k.Fail {
		sites = append(sites, s)
	}
	slices.Sort(sites)
	for _, s := range sites {
		out = append(out, fmt.Sprintf("fail.%d=%d:%d", s, k.Fail[s].Count, k.Fail[s].Code))
	}
	if k.PrepareNoID {
		out = append(out, "prepare_writes_id=false")
	}
	if k.FatalDevice {
		out = append(out, "fatal_device=true")
	}
	if k.Strict {
		out = append(out, "strict=true")
	}
	if len(k.MustNotCall) > 0 {
		out = append(out, "must_not_call="+strings.Join(sortedCopy(k.MustNotCall), ","))
	}
	for _, e := range sortedCopy(k.Crash) {
		out = append(out, "crash."+e+"=true")
	}
	for _, e := range sortedCopy(k.Hang) {
		out = append(out, "hang."+e+"=true")
	}
	for _, e := range sortedCopy(k.Null) {
		out = append(out, "null."+e+"=true")
	}
	if k.CommTimeoutMs != 0 {
		out = append(out, fmt.Sprintf("comm_timeout_ms=%d", k.CommTimeoutMs))
	}
	if k.PollPending != 0 {
		out = append(out, fmt.Sprintf("poll_pending=%d", k.PollPending))
	}
	if k.Pipeline != "" {
		out = append(out, "pipeline="+string(k.Pipeline))
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return slices.Compact(c)
}

// validate checks k against the symbols of profile p.
func (k Knobs) validate(p Profile, exported map[string]abi.Symbol) error {
	for _, e := range sortedKeys(k.Status) {
		s, ok := exported[e]
		if !ok {
			return fmt.Errorf("emit: knob status.%s: %s is not an entry of the %s profile", e, e, p)
		}
		if !returnsStatus(s) {
			return fmt.Errorf("emit: knob status.%s: %s does not return a status (%s)", e, e, s.Proto)
		}
	}
	if (len(k.Fail) > 0 || k.FatalDevice) && p != ProfileTMR {
		return fmt.Errorf("emit: fault knobs need the tmr profile (%s models no fault site)", p)
	}
	for site, f := range k.Fail {
		if st := abi.CheckInjectArgs(site, f.Count, f.Code); st != abi.OK {
			return fmt.Errorf("emit: knob fail.%d=%d:%d: %s would refuse it (%v)", site, f.Count, f.Code, abi.EntrySimInject, st)
		}
	}
	for _, l := range []struct {
		what  string
		names []string
	}{{"must_not_call", k.MustNotCall}, {"crash", k.Crash}, {"hang", k.Hang}, {"null", k.Null}} {
		for _, e := range l.names {
			if _, ok := exported[e]; !ok {
				return fmt.Errorf("emit: knob %s: %s is not an entry of the %s profile", l.what, e, p)
			}
		}
	}
	for _, e := range k.Null {
		if s := exported[e]; !returnsPointer(s) {
			return fmt.Errorf("emit: knob null.%s: %s does not return a pointer (%s)", e, e, s.Proto)
		}
	}
	return nil
}

// returnsPointer reports whether an entry returns a pointer or a handle.
func returnsPointer(s abi.Symbol) bool {
	ret, _, _ := strings.Cut(s.Proto, "(")
	return strings.Contains(ret, "*") || strings.HasPrefix(ret, "DeviceContextHandle ") || strings.HasPrefix(ret, "CommHandle ")
}

// returnsStatus reports whether an entry returns an int status.
func returnsStatus(s abi.Symbol) bool { return strings.HasPrefix(s.Proto, "int ") }

// KnobForm is one form of -knob: its key and the value it takes.
type KnobForm struct{ Key, Value string }

// KnobForms lists the knobs ParseKnob accepts. The Python package validates
// knobs against the same list (it ships in the bundle, bundle.go).
var KnobForms = []KnobForm{
	{"status.<entry>", "<code>"},
	{"fail.<site>", "<count>:<code>"},
	{"prepare_writes_id", "false"},
	{"fatal_device", "true"},
	{"strict", "true"},
	{"must_not_call", "<entry>[,<entry>]"},
	{"crash.<entry>", "true"},
	{"hang.<entry>", "true"},
	{"null.<entry>", "true"},
	{"comm_timeout_ms", "<ms>"},
	{"poll_pending", "<n>"},
	{"pipeline", "<pipeline>"},
}

// knobText writes what the knobs of a build put into the templates (the
// template functions export, prologue, fixed and fixedPrepare, the fault
// arrays and the banner). Source writes a build's values (knobValues); the
// bundle writes markers (bundleHoles, bundle.go) that a program without Go
// fills with the same fragments, so that both produce the same C.
type knobText interface {
	export(sym string) string
	prologue(sym string) string
	fixed(sym string) string
	fixedPrepare() string
	faultArrays() (counts, codes string)
	commTimeout() string // the comm family's timeout in milliseconds
	pollPending() string // how many polls of a launched run answer NOT_READY
	// pipeline is a field of the selected pipeline (pipelineFields).
	pipeline(field string) (string, error)
	banner() []string // the lines after "Profile: ...", before the mutant's
}

// knobFragments is the C (and banner) text of each knob, with {entry},
// {code}, {entries} and {knob} to fill in.
var knobFragments = map[string]string{
	"hang":              "    knob_hang(\"{entry}\"); /* knob hang.{entry} */\n",
	"crash":             "    knob_crash(\"{entry}\"); /* knob crash.{entry} */\n",
	"must_not_call":     "    knob_must_not_call(\"{entry}\"); /* knob must_not_call [F-3] */\n",
	"null":              "    return NULL; /* knob null.{entry} */\n",
	"status":            "    return {code}; /* knob status.{entry} */\n",
	"prepare":           "    /* knob status.{entry}={code}: -1 is written; a fixed 0 writes the context's next id */\n",
	"prepare_id":        "    if (c != NULL && out_callable_id != NULL) {\n        pthread_mutex_lock(&c->gate);\n        *out_callable_id = c->fixed_next_id++;\n        pthread_mutex_unlock(&c->gate);\n    }\n",
	"prepare_return":    "    return {code};\n",
	"banner_omitted":    "Omitted (not exported): {entries}",
	"banner_knob":       "Knob: {knob}",
	"pipeline_resource": "        [{index}] = {.kind = {kind}, .resource_class = {class}, .bytes_per_copy = {bytes}},\n",
}

// prologueKnobs are the knobs an entry's prologue runs, in this order.
var prologueKnobs = []string{"hang", "crash", "must_not_call", "null"}

// fragment fills knob fragment name; vars alternate placeholder and value.
func fragment(name string, vars ...string) string {
	return strings.NewReplacer(vars...).Replace(knobFragments[name])
}

// knobValues writes the knobs of one build.
type knobValues struct{ cfg Config }

func (v knobValues) export(sym string) string {
	if slices.Contains(v.cfg.Omit, sym) {
		return "SIMABI_OMITTED"
	}
	return "SIMABI_EXPORT"
}

func (v knobValues) prologue(sym string) string {
	k := v.cfg.Knobs
	lists := map[string][]string{"hang": k.Hang, "crash": k.Crash, "must_not_call": k.MustNotCall, "null": k.Null}
	var b strings.Builder
	for _, name := range prologueKnobs {
		if slices.Contains(lists[name], sym) {
			b.WriteString(fragment(name, "{entry}", sym))
		}
	}
	return b.String()
}

func (v knobValues) fixed(sym string) string {
	code, ok := v.cfg.Knobs.Status[sym]
	if !ok {
		return ""
	}
	return fragment("status", "{entry}", sym, "{code}", fmt.Sprint(code))
}

func (v knobValues) fixedPrepare() string {
	code, ok := v.cfg.Knobs.Status[abi.EntryKernelPrepare.Name()]
	if !ok {
		return ""
	}
	vars := []string{"{entry}", abi.EntryKernelPrepare.Name(), "{code}", fmt.Sprint(code)}
	out := fragment("prepare", vars...)
	if code == 0 && !v.cfg.Knobs.PrepareNoID {
		out += fragment("prepare_id", vars...)
	}
	return out + fragment("prepare_return", vars...)
}

func (v knobValues) faultArrays() (string, string) {
	counts := make([]string, abi.LastSite+1)
	codes := make([]string, abi.LastSite+1)
	for i := range counts {
		f := v.cfg.Knobs.Fail[int32(i)]
		counts[i], codes[i] = fmt.Sprint(f.Count), fmt.Sprint(f.Code)
	}
	return strings.Join(counts, ", "), strings.Join(codes, ", ")
}

func (v knobValues) commTimeout() string { return commTimeoutOf(v.cfg.Knobs) }

func (v knobValues) pollPending() string { return fmt.Sprint(v.cfg.Knobs.PollPending) }

func (v knobValues) pipeline(field string) (string, error) {
	p := v.cfg.Knobs.Pipeline
	if p == "" {
		p = v.cfg.Profile.DefaultPipeline()
	}
	return pipelineField(p.Spec(), field)
}

// pipelineFields are what the templates ask of the selected pipeline.
var pipelineFields = []string{"depth", "resource-count", "resources", "runtime-size", "runtime-alignment"}

// pipelineField is one field of s as the C text the templates put there:
// a number, or for "resources" the initializer lines of the declared
// resources (fragment pipeline_resource each).
func pipelineField(s abi.PipelineSpec, field string) (string, error) {
	c := s.Contract
	switch field {
	case "depth":
		return fmt.Sprint(c.PipelineDepth), nil
	case "resource-count":
		return fmt.Sprint(c.ResourceCount), nil
	case "runtime-size":
		return fmt.Sprint(s.RuntimeSize), nil
	case "runtime-alignment":
		return fmt.Sprint(s.RuntimeAlignment), nil
	case "resources":
		var b strings.Builder
		for i, r := range c.Resources[:c.ResourceCount] {
			b.WriteString(fragment("pipeline_resource", "{index}", fmt.Sprint(i), "{kind}", fmt.Sprint(r.Kind),
				"{class}", fmt.Sprint(r.Class), "{bytes}", fmt.Sprint(r.BytesPerCopy)))
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("template asks for pipeline field %q (%s)", field, strings.Join(pipelineFields, ", "))
}

// commTimeoutOf is the comm timeout knobs k give, in milliseconds.
func commTimeoutOf(k Knobs) string {
	if k.CommTimeoutMs > 0 {
		return fmt.Sprint(k.CommTimeoutMs)
	}
	return fmt.Sprint(semantics.CommTimeoutMs)
}

func (v knobValues) banner() []string {
	var out []string
	if len(v.cfg.Omit) > 0 {
		out = append(out, fragment("banner_omitted", "{entries}", strings.Join(sortedCopy(v.cfg.Omit), ", ")))
	}
	for _, k := range v.cfg.Knobs.Strings() {
		out = append(out, fragment("banner_knob", "{knob}", k))
	}
	return out
}
