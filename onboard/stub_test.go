package onboard

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/simabi/simabi/abi"
)

// stubSpec describes a tiny hand-shaped C library with the docs/contract.md symbols,
// for the loading paths the emitted runtime cannot express (a rejected
// host-log binding, an inadmissible or NULL PipelineContract, a preload) and
// as a second, independent library for the binding tests. Every entry
// returns 0 (or a fixed value); it models no rule.
type stubSpec struct {
	Omit          []string
	Legacy        bool  // the legacy shape: no kernel entries, no device_memory_info_ctx, provision
	Supported     int32 // what simpler_kernel_mode_supported returns
	HostLogReturn int32
	NullContract  bool
	NullCreate    bool                  // create_device_context returns NULL
	Contract      *abi.PipelineContract // nil: abi.SimulatedProgramContract()
	// Launch is the body of simpler_kernel_mode_launch (default "return 0;").
	Launch string
	// Extra is appended to the source.
	Extra string
}

var protoRE = regexp.MustCompile(`^(.*?)\b(\w+)\((.*)\)$`)

func (s stubSpec) source() string {
	var b strings.Builder
	b.WriteString(`#include <stdint.h>
#include <stddef.h>
typedef void *DeviceContextHandle;
typedef void *RuntimeHandle;
typedef void *CommHandle;
typedef struct CallConfig CallConfig;
typedef struct NativeRunDescriptor NativeRunDescriptor;
typedef struct DeviceMemoryInfo DeviceMemoryInfo;
typedef struct SimplerHostLogState SimplerHostLogState;
typedef struct PipelineContract PipelineContract;
typedef struct CommGlobalDomainDescriptor CommGlobalDomainDescriptor;
#define EXPORT __attribute__((visibility("default")))
static char stub_ctx_storage[64];
static int stub_host_log_calls;
static const void *stub_host_log_state;
EXPORT int stub_host_log_call_count(void) { return stub_host_log_calls; }
EXPORT const void *stub_host_log_last_state(void) { return stub_host_log_state; }
`)
	c := abi.SimulatedProgramContract()
	if s.Contract != nil {
		c = *s.Contract
	}
	raw := make([]byte, abi.PipelineContractSize)
	_ = c.Encode(raw)
	b.WriteString("static const unsigned char stub_contract[144] __attribute__((aligned(8))) = {")
	for i, x := range raw {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%d", x)
	}
	b.WriteString("};\n")
	omit := map[string]bool{}
	for _, n := range s.Omit {
		omit[n] = true
	}
	for _, sym := range abi.Symbols {
		rev := abi.RevKernel
		if s.Legacy {
			rev = abi.RevLegacy
		}
		if !sym.Revisions.Has(rev) || omit[sym.Name] {
			continue
		}
		proto := sym.Proto
		if s.Legacy && sym.Name == abi.EntrySimplerInit.Name() {
			proto = abi.LegacySimplerInitProto
		}
		m := protoRE.FindStringSubmatch(proto)
		ret := strings.TrimSpace(m[1])
		var body string
		switch sym.Name {
		case abi.EntryCreateDeviceContext.Name():
			body = "return stub_ctx_storage;"
			if s.NullCreate {
				body = "return NULL;"
			}
		case abi.EntryKernelSupported.Name():
			body = fmt.Sprintf("return %d;", s.Supported)
		case abi.EntryHostLogBindState.Name():
			body = fmt.Sprintf("stub_host_log_calls++; stub_host_log_state = state; return %d;", s.HostLogReturn)
		case abi.EntryGetPipelineContract.Name():
			if s.NullContract {
				body = "return NULL;"
			} else {
				body = "return (const PipelineContract *)stub_contract;"
			}
		case abi.EntryKernelLaunch.Name():
			body = "return 0;"
			if s.Launch != "" {
				body = s.Launch
			}
		case abi.EntrySimCurrentDevice.Name():
			body = "return -1;"
		default:
			switch {
			case ret == "void":
				body = ""
			case strings.HasSuffix(ret, "*") || ret == "DeviceContextHandle" || ret == "CommHandle":
				body = "return NULL;"
			default:
				body = "return 0;"
			}
		}
		// Name every parameter the body may not use, to keep the compiler quiet.
		fmt.Fprintf(&b, "EXPORT %s %s(%s) { %s }\n", ret, m[2], m[3], body)
	}
	b.WriteString(s.Extra)
	return b.String()
}

var (
	stubMu    sync.Mutex
	stubCache = map[string]string{}
	stubDir   string
)

// buildStub compiles spec into a shared library (cached per source) and
// returns its path; it skips the test when no C compiler is found.
func buildStub(t testing.TB, spec stubSpec) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	src := spec.source()
	stubMu.Lock()
	defer stubMu.Unlock()
	if p, ok := stubCache[src]; ok {
		return p
	}
	if stubDir == "" {
		stubDir, err = os.MkdirTemp("", "onboard-stub-")
		if err != nil {
			t.Fatal(err)
		}
	}
	n := len(stubCache)
	cfile := filepath.Join(stubDir, fmt.Sprintf("stub%d.c", n))
	so := filepath.Join(stubDir, fmt.Sprintf("libstub%d.so", n))
	if err := os.WriteFile(cfile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(cc, "-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-o", so, cfile)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out.String())
	}
	stubCache[src] = so
	return so
}
