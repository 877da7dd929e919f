package emit

import (
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
)

// The recorder configurations the tests build: both revisions, with and
// without the hooks.
var recorderConfigs = []RecorderConfig{
	{},
	{NoHooks: true},
	{Revision: abi.RevLegacy},
	{Revision: abi.RevLegacy, NoHooks: true},
}

func (cfg RecorderConfig) String() string {
	s := RevisionName(cfg.Revision)
	if cfg.NoHooks {
		s += "-nohooks"
	}
	if cfg.ImageLimit != 0 {
		s += fmt.Sprintf("-limit%d", cfg.ImageLimit)
	}
	return s
}

func buildRecorder(t testing.TB, cfg RecorderConfig) *RecorderArtifacts {
	t.Helper()
	needCC(t)
	art, err := BuildRecorder(cfg, BuildOptions{CacheDir: testCacheDir})
	if err != nil {
		t.Fatalf("BuildRecorder(%v): %v", cfg, err)
	}
	return art
}

// docs/trace.md "The recording runtime": the recorder exports exactly the
// symbol table of its revision (simpler_host_log_bind_state included), the
// four hooks unless -hooks=false, and nothing else; it builds warning-free
// (-Wall -Wextra -Werror) and needs no ACL (it dlopens its target).
func TestRecorderExportsTheSymbolTable(t *testing.T) {
	t.Parallel()
	for _, cfg := range recorderConfigs {
		t.Run(cfg.String(), func(t *testing.T) {
			art := buildRecorder(t, cfg)
			defined, needed, _ := dynamicSymbols(t, art.RuntimePath)
			rev := cfg.Revision
			if rev == 0 {
				rev = abi.RevKernel
			}
			var want, got []string
			for _, s := range abi.Symbols {
				if s.Revisions.Has(rev) && !(cfg.NoHooks && s.Group == abi.GroupSimHooks) {
					want = append(want, s.Name)
				}
			}
			for name := range defined {
				if !strings.HasPrefix(name, "_") {
					got = append(got, name)
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(want, got) {
				t.Errorf("exports\n  %v\nwant the table's\n  %v", got, want)
			}
			var fromTable []string
			for _, s := range RecorderSymbols(cfg) {
				fromTable = append(fromTable, s.Name)
			}
			slices.Sort(fromTable)
			if !slices.Equal(fromTable, want) {
				t.Errorf("RecorderSymbols = %v, want %v", fromTable, want)
			}
			if !slices.Contains(got, abi.EntryHostLogBindState.Name()) {
				t.Errorf("no %s", abi.EntryHostLogBindState.Name())
			}
			if slices.Contains(needed, ACLLibName) {
				t.Errorf("DT_NEEDED = %v: the recorder must not link an ACL", needed)
			}
		})
	}
}

// The C of every configuration also builds warning-free with clang, when it
// is installed.
func TestRecorderBuildsWithClang(t *testing.T) {
	t.Parallel()
	needCC(t)
	if _, err := exec.LookPath("clang"); err != nil {
		t.Skip("skipping: no clang")
	}
	for _, cfg := range recorderConfigs {
		if _, err := BuildRecorder(cfg, BuildOptions{CC: "clang", CacheDir: testCacheDir}); err != nil {
			t.Errorf("clang, %v: %v", cfg, err)
		}
	}
}

// Every entry of the table is a generated stub that forwards all its
// parameters, in order, to the target's entry of the same name; every op
// the recorder describes names an entry of the table.
func TestRecorderStubsForwardEveryParameter(t *testing.T) {
	for _, cfg := range recorderConfigs {
		src, err := RecorderSource(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range RecorderSymbols(cfg) {
			p, err := parseProto(s.ProtoIn(cfg.Revision))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, q := range p.Params {
				names = append(names, q.Name)
			}
			call := "t_" + s.Name + "(" + strings.Join(names, ", ") + ");"
			if n := strings.Count(src, call); n != 2 {
				t.Errorf("%v: %s: the forwarded call %q appears %d times, want 2 (recording and not)", cfg, s.Name, call, n)
			}
			if !strings.Contains(src, "SIMABI_EXPORT\n"+s.ProtoIn(cfg.Revision)+"\n{") {
				t.Errorf("%v: %s: no stub with the table's prototype", cfg, s.Name)
			}
			if !strings.Contains(src, fmt.Sprintf("rec_sym(h, %q, &t_%s);", s.Name, s.Name)) {
				t.Errorf("%v: %s is not resolved in the target", cfg, s.Name)
			}
		}
	}
}

// The op words are those of docs/trace.md's table; an entry the table of
// docs/trace.md does not name is "call NAME".
func TestRecorderOpWords(t *testing.T) {
	src, err := RecorderSource(RecorderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		abi.EntryCreateDeviceContext.Name(): `"create"`, abi.EntryDestroyDeviceContext.Name(): `"destroy"`, abi.EntryKernelSupported.Name(): `"supported"`,
		abi.EntryKernelInit.Name(): `"kinit"`, abi.EntrySimplerInit.Name(): `"pinit"`, abi.EntryEnsureACLReady.Name(): `"acl"`,
		abi.EntryKernelPrepare.Name(): `"prepare"`, abi.EntryKernelLaunch.Name(): `"launch"`, abi.EntryFinalizeDevice.Name(): `"finalize"`,
		abi.EntryCommittedDeviceMemory.Name(): `"committed"`, abi.EntryGetPipelineContract.Name(): `"contract"`,
		abi.EntryRegisterCallable.Name(): `"register"`, abi.EntryUnregisterCallable.Name(): `"unregister"`,
		abi.EntryPrepareRun.Name(): `"prepare_run"`, abi.EntryRun.Name(): `"run"`, abi.EntryLaunchRun.Name(): `"launch_run"`,
		abi.EntryPollRun.Name(): `"poll_run"`, abi.EntryWaitRun.Name(): `"wait_run"`, abi.EntryFinalizeRun.Name(): `"finalize_run"`,
		abi.EntrySimSetCurrentDevice.Name(): `"setdev"`, abi.EntrySimCurrentDevice.Name(): `"getdev"`, abi.EntrySimSyncStream.Name(): `"sync"`,
		abi.EntrySimInject.Name():        `"inject"`,
		abi.EntryDeviceMemoryInfo.Name(): `" fn=meminfo"`, abi.EntryCopyToDevice.Name(): `" fn=copy_to"`, abi.EntryCopyFromDevice.Name(): `" fn=copy_from"`,
		abi.EntryDeviceMalloc.Name(): `" fn=malloc"`, abi.EntryDeviceFree.Name(): `" fn=free"`, abi.EntryAicpuDlopenCount.Name(): `" fn=aicpu_dlopen"`,
		abi.EntryHostDlopenCount.Name(): `" fn=host_dlopen"`, abi.EntryRunStreamSetCreateCount.Name(): `" fn=stream_sets"`,
		abi.EntrySupportsConcurrentPrepare.Name(): `" fn=concurrent_prepare"`, abi.EntryArenaBankGMHeapBase.Name(): `" fn=arena_base"`,
		abi.EntryRetainedTempAddr.Name(): `" fn=retained_temp"`, abi.EntryCreateCommStream.Name(): `" fn=comm_create"`,
		abi.EntryDestroyCommStream.Name(): `" fn=comm_destroy"`,
		abi.EntryCommInit.Name():          `"cinit"`, abi.EntryCommAllocWindows.Name(): `"calloc"`, abi.EntryCommGetLocalWindowBase.Name(): `"cbase"`,
		abi.EntryCommGetWindowSize.Name(): `"csize"`, abi.EntryCommDeriveContext.Name(): `"cderive"`, abi.EntryCommBarrier.Name(): `"cbarrier"`,
		abi.EntryCommDestroy.Name(): `"cdestroy"`, abi.EntryCommAllocDomainWindows.Name(): `"dalloc"`, abi.EntryCommReleaseDomainWindows.Name(): `"drelease"`,
		abi.EntryCommGlobalDomainPrepare.Name(): `"gprep"`, abi.EntryCommGlobalDomainImport.Name(): `"gimport"`, abi.EntryCommGlobalDomainRelease.Name(): `"grelease"`,
	}
	stub := regexp.MustCompile(`(?s)SIMABI_EXPORT\n[^\n]*?(\w+)\([^\n]*\n\{(.*?)\n\}\n`)
	seen := 0
	for _, m := range stub.FindAllStringSubmatch(src, -1) {
		name, body := m[1], m[2]
		seen++
		w, ok := want[name]
		if !ok {
			w = `"call");` + "\n    " + `rb_lit(&rc.b, " ");` + "\n    " + fmt.Sprintf("tv_name_name(&rc.b, %q", name)
		}
		if !strings.Contains(body, "rb_lit(&rc.b, "+w+");") {
			t.Errorf("%s: the stub does not write %s", name, w)
		}
	}
	if seen != len(RecorderSymbols(RecorderConfig{})) {
		t.Errorf("%d stubs, want %d", seen, len(RecorderSymbols(RecorderConfig{})))
	}
}

func TestRecorderConfigErrors(t *testing.T) {
	if _, err := RecorderSource(RecorderConfig{Revision: abi.RevKernel | abi.RevLegacy}); err == nil {
		t.Error("a recorder of both revisions was accepted")
	}
	if _, err := ParseRevision("new"); err == nil {
		t.Error("ParseRevision(new) accepted")
	}
	a, _ := RecorderSource(RecorderConfig{})
	b, _ := RecorderSource(RecorderConfig{ImageLimit: DefaultImageLimit})
	if a != b {
		t.Error("ImageLimit 0 is not the default limit")
	}
}

// The template spells no word of the trace by hand: every spelling comes
// from the vocabulary (abi/tracevocab) through the generated writers and
// words (vocabC). A C string literal of the template (comments aside) that
// holds a spelling of the vocabulary is a second definition of it. The
// names of the template's writers ("result done") are not C.
func TestRecorderTemplateSpellsNoTraceWord(t *testing.T) {
	code := regexp.MustCompile(`(?s)/\*.*?\*/`).ReplaceAllString(recorderTemplateText, "")
	code = regexp.MustCompile(`\{\{(-? *(?:define|write)) "[^"]*"`).ReplaceAllString(code, "{{$1")
	var words []string
	for _, f := range tracevocab.Forms() {
		for _, v := range f.Variants() {
			for _, p := range v.Pieces {
				if p.Hole == 0 && len(strings.TrimSpace(p.Lit)) >= 3 {
					words = append(words, p.Lit)
				}
			}
		}
	}
	words = append(words, tracevocab.HeaderMagic, tracevocab.LineArrow, tracevocab.LineDevKey, tracevocab.Missing,
		tracevocab.ForkedAt, tracevocab.InflightSuffix, tracevocab.InflightMagic)
	for _, k := range tracevocab.HeaderKeys {
		words = append(words, tracevocab.Comment+k)
	}
	ops := map[string]bool{}
	for _, e := range tracevocab.Entries(abi.RevKernel) {
		ops[e.Op] = true
	}
	for _, m := range regexp.MustCompile(`"((?:[^"\\\n]|\\.)*)"`).FindAllStringSubmatch(code, -1) {
		if ops[strings.TrimSpace(m[1])] {
			t.Errorf("the template spells the op %s by hand", m[0])
		}
		for _, w := range words {
			if strings.Contains(m[1], w) {
				t.Errorf("the template spells %q by hand in %s", w, m[0])
			}
		}
	}
}
