package emit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi"
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
type Knobs struct {
	// Status fixes the status an int-returning entry returns, after the
	// invalid-handle check. A fixed prepare still writes -1 first and, when the
	// fixed status is 0 and prepare writes ids, writes the context's next
	// minted id (0, 1, 2, ... per context).
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
	case !dotted && key == "prepare_writes_id":
		b, err := parseBool()
		if err != nil {
			return err
		}
		k.PrepareNoID = !b
	case !dotted && key == "fatal_device":
		b, err := parseBool()
		if err != nil {
			return err
		}
		k.FatalDevice = b
	case !dotted && key == "strict":
		b, err := parseBool()
		if err != nil {
			return err
		}
		k.Strict = b
	case !dotted && key == "must_not_call":
		for _, e := range strings.Split(val, ",") {
			if e = strings.TrimSpace(e); e != "" && !slices.Contains(k.MustNotCall, e) {
				k.MustNotCall = append(k.MustNotCall, e)
			}
		}
	default:
		return bad("unknown knob (status.<entry>, fail.<site>, prepare_writes_id, fatal_device, strict, must_not_call, crash.<entry>, hang.<entry>, null.<entry>)")
	}
	return nil
}

// parseSite accepts a site number 1..9 or its abi.SiteNames name.
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
			return fmt.Errorf("emit: knob fail.%d=%d:%d: simabi_inject would refuse it (%v)", site, f.Count, f.Code, st)
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
