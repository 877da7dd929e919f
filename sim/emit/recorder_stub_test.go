package emit

import (
	"maps"
	"slices"
	"testing"
	"text/template"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
)

// lacking is the recorder's template without some of its writers.
type lacking struct {
	t       *template.Template
	without map[string]bool
}

func (l lacking) Lookup(name string) *template.Template {
	if l.without[name] {
		return nil
	}
	return l.t.Lookup(name)
}

func recorderWriters(t *testing.T) *template.Template {
	t.Helper()
	tmpl, err := recorderTemplate()
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// An entry of the vocabulary the recorder cannot write is refused with an
// error naming the entry and what is wrong, never written as broken C.
func TestRecorderStubRefusesWhatItCannotWrite(t *testing.T) {
	tmpl := recorderWriters(t)
	ctx := tracevocab.Arg{Form: tracevocab.Ctx, Param: "ctx"}
	n := func(key, param string) tracevocab.Arg {
		return tracevocab.Arg{Key: key, Form: tracevocab.Int, Param: param}
	}
	entry := func(result tracevocab.Form, args ...tracevocab.Arg) tracevocab.Entry {
		return tracevocab.Entry{Symbol: "f", Op: "f", Args: args, Result: result}
	}
	withExtra := func(e tracevocab.Entry, x tracevocab.Arg) tracevocab.Entry {
		e.Extras = append(e.Extras, x)
		return e
	}
	const intProto = "int32_t f(DeviceContextHandle ctx, int32_t n, const void *p, size_t p_size)"
	tests := []struct {
		name  string
		entry tracevocab.Entry
		proto string
		w     writers
		want  string
	}{
		{"unreadable prototype", entry(tracevocab.Int), "int32_t f", tmpl,
			`emit: cannot read prototype "int32_t f"`},
		{"prototype of another entry", entry(tracevocab.Int), "int32_t g(void)", tmpl,
			"emit: prototype of f names g"},
		{"argument from a parameter the prototype lacks", entry(tracevocab.Int, ctx, n("n", "count")), intProto, tmpl,
			"emit: recorder: f has no parameter count"},
		{"size from a parameter the prototype lacks",
			entry(tracevocab.Int, tracevocab.Arg{Key: "p", Form: tracevocab.Span, Param: "p", Size: "size"}), intProto, tmpl,
			"emit: recorder: f has no parameter size"},
		{"argument of a form without a writer", entry(tracevocab.Int, tracevocab.Arg{Key: "p", Form: tracevocab.Ptr, Param: "p"}), intProto, tmpl,
			"emit: recorder: f: no C writer for an argument of form PTR"},
		{"argument whose writer the template lost", entry(tracevocab.Int, ctx), intProto,
			lacking{tmpl, map[string]bool{"arg ctx": true}},
			"emit: recorder: f: no C writer for an argument of form CTX"},
		{"late argument of a form written before the call only",
			entry(tracevocab.Int, tracevocab.Arg{Key: "n", Form: tracevocab.Int, Param: "n", Late: true}), intProto, tmpl,
			"emit: recorder: f: no C writer for an argument of form N"},
		{"late ARGS without its writer for a missing target",
			entry(tracevocab.Int, tracevocab.Arg{Key: "args", Form: tracevocab.Args, Param: "p", Late: true}), intProto,
			lacking{tmpl, map[string]bool{"late-missing args": true}},
			"emit: recorder: f: no C writer for an argument of form ARGS"},
		{"null flag written whether NULL or not",
			entry(tracevocab.Int, tracevocab.Arg{Key: "out", Form: tracevocab.NullFlag, Param: "p"}), intProto, tmpl,
			"emit: recorder: f: out= is a flag written only when NULL"},
		{"number result of a void entry", entry(tracevocab.Int), "void f(void)", tmpl,
			"emit: recorder: f returns void, which cannot be recorded as a number"},
		{"unsigned result of a pointer entry", entry(tracevocab.Uint), "void *f(void)", tmpl,
			"emit: recorder: f returns void *, which cannot be recorded as a number"},
		{"pointer result of a number entry", entry(tracevocab.Ptr), "int32_t f(void)", tmpl,
			"emit: recorder: f returns int32_t, not a pointer"},
		{"context result of a number entry", entry(tracevocab.Ctx), "uint64_t f(void)", tmpl,
			"emit: recorder: f returns uint64_t, not a pointer"},
		{"done of an entry that returns", entry(tracevocab.Done), "int32_t f(void)", tmpl,
			"emit: recorder: f returns int32_t, not void"},
		{"result of a form without a writer", entry(tracevocab.Span), "int32_t f(void)", tmpl,
			"emit: recorder: f: no C writer for a result of form SPAN"},
		{"result whose writer the template lost", entry(tracevocab.Int), "int32_t f(void)",
			lacking{tmpl, map[string]bool{"result int": true}},
			"emit: recorder: f: no C writer for a result of form N"},
		{"result field of a key without a writer", withExtra(entry(tracevocab.Int), n("zz", "n")), intProto, tmpl,
			"emit: recorder: f: no C writer for the result field zz="},
		{"result field out= of a form other than N",
			withExtra(entry(tracevocab.Int), tracevocab.Arg{Key: "out", Form: tracevocab.Uint, Param: "n"}), intProto, tmpl,
			"emit: recorder: f: no C writer for the result field out="},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := recStubFor(tc.entry, tc.proto, tc.w)
			if err == nil {
				t.Fatalf("recStubFor accepted it: %+v", st)
			}
			if err.Error() != tc.want {
				t.Errorf("error %q, want %q", err, tc.want)
			}
		})
	}
}

// Every writer of the template writes some argument, result or field of
// the recorders the tests build: a form the vocabulary no longer has, or
// one no entry records any more, leaves no dead C behind.
func TestRecorderTemplateWritersAreAllUsed(t *testing.T) {
	tmpl := recorderWriters(t)
	defined := map[string]bool{}
	for _, d := range tmpl.Templates() {
		if d.Name() != tmpl.Name() {
			defined[d.Name()] = true
		}
	}
	used := map[string]bool{}
	for _, cfg := range recorderConfigs {
		cfg, err := cfg.normalized()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range RecorderSymbols(cfg) {
			st, err := recStubFor(tracevocab.EntryOf(s, cfg.Revision), s.ProtoIn(cfg.Revision), tmpl)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range st.Args {
				used["arg "+a.Form] = true
				if a.Late {
					used["late "+a.Form] = true
					used["late-missing "+a.Form] = true
				}
			}
			used["result "+st.Result] = true
			for _, x := range st.Extras {
				used["extra "+x.Kind] = true
			}
		}
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(defined)), slices.Sorted(maps.Keys(used))); diff != "" {
		t.Errorf("the template's writers (-) and those the stubs use (+) differ:\n%s", diff)
	}
}

// The stubs are data: one entry's, in full (launch: a late ARGS, a stream
// under the lock, a numbered result), and prepare_run's, which remembers
// its descriptor.
func TestRecorderStubData(t *testing.T) {
	tmpl := recorderWriters(t)
	stub := func(name string) recStub {
		t.Helper()
		s, ok := abi.LookupSymbol(name)
		if !ok {
			t.Fatalf("no symbol %s", name)
		}
		st, err := recStubFor(tracevocab.EntryOf(s, abi.RevKernel), s.ProtoIn(abi.RevKernel), tmpl)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	launch := stub(abi.EntryKernelLaunch.Name())
	want := recStub{
		Name:    abi.EntryKernelLaunch.Name(),
		Proto:   "int simpler_kernel_mode_launch(DeviceContextHandle ctx, int32_t callable_id, const void *args, void *caller_stream)",
		Typedef: "typedef int (*rec_fn_simpler_kernel_mode_launch)(DeviceContextHandle ctx, int32_t callable_id, const void *args, void *caller_stream);",
		Call:    "ctx, callable_id, args, caller_stream",
		Ret:     "int", None: "PTO_RUNTIME_ERR_INTERNAL", Unloaded: "PTO_RUNTIME_ERR_INTERNAL",
		Op: `"launch"`, Lock: true,
		Args: []recArg{
			{Form: "ctx", Key: `" "`, Param: "ctx", Entry: `"simpler_kernel_mode_launch"`, Locked: true},
			{Form: "int", Key: `" id="`, Param: "callable_id", Entry: `"simpler_kernel_mode_launch"`, Locked: true},
			{Form: "args", Key: `" args="`, Param: "args", Entry: `"simpler_kernel_mode_launch"`, Locked: true, Late: true},
			{Form: "stream", Key: `" stream="`, Param: "caller_stream", Entry: `"simpler_kernel_mode_launch"`, Locked: true},
		},
		Result: "int",
	}
	if diff := cmp.Diff(want, launch); diff != "" {
		t.Errorf("launch's stub (-want +got):\n%s", diff)
	}
	if pr := stub(abi.EntryPrepareRun.Name()); !pr.RemembersDescriptor || pr.Lock {
		t.Errorf("prepare_run: RemembersDescriptor %v, Lock %v; want true, false (a payload is formatted unlocked)", pr.RemembersDescriptor, pr.Lock)
	}
}
