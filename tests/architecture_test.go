package tests

import (
	"encoding/json"
	"os/exec"
	"path"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/simabi/simabi"

// production is what each package of the module may import of the module
// in its non-test files (docs/architecture.md): arrows point down only. A
// package not listed may import nothing of the module; a pattern ending in
// "/..." covers the packages under it.
var production = map[string][]string{
	"abi":                           nil,
	"abi/tracevocab":                {"abi"},
	"docs":                          nil,
	"internal/osthread":             nil,
	"internal/procmaps":             nil,
	"internal/crosscheck":           nil, // make cross's type-check, a command
	"internal/exports":              {"abi"},
	"internal/safemem":              nil,
	"internal/scratch":              nil, // what a run made for itself, undone at exit or on a signal
	"validation":                    {"abi"},
	"latch":                         {"abi"},
	"sim/semantics":                 nil,
	"sim":                           {"abi", "validation", "latch", "sim/semantics", "internal/..."},
	"sim/emit":                      {"abi", "abi/tracevocab", "validation", "latch", "sim/semantics", "internal/exports", "internal/scratch"},
	"sim/emit/emittest":             {"abi", "sim/emit", "internal/procmaps", "internal/scratch"},
	"onboard":                       {"abi", "validation", "internal/..."},
	"lifecycle":                     {"abi", "validation", "latch", "internal/..."},
	"conformance/op":                {"abi", "abi/tracevocab"},
	"conformance/model":             {"abi", "conformance/op"},                                                                                     // and the standard library: TestModelImportsOnlyTheContract
	"conformance/catalogue":         {"abi", "docs", "conformance/model", "conformance/op"},                                                        // data and pure functions: the reports read it without the runner
	"conformance":                   {"abi", "validation", "docs", "conformance/catalogue", "internal/...", "conformance/op", "conformance/model"}, // never sim or onboard: TestEngineLinksNoBackend
	"conformance/report":            {"conformance", "conformance/catalogue", "conformance/model", "conformance/op"},
	"conformance/target":            {"conformance", "sim"},
	"conformance/target/library":    {"abi", "conformance", "conformance/catalogue", "onboard", "conformance/model"},
	"conformance/target/targettest": {"conformance", "conformance/target/library", "onboard", "sim/emit"},
	"conformance/suite":             {"conformance", "conformance/catalogue", "conformance/report", "onboard", "conformance/model", "conformance/op"},
	"conformance/trace":             {"abi", "conformance", "conformance/model", "conformance/op", "conformance/report"},
	"conformance/childproc":         {"internal/scratch"}, // the checker's child processes, supervised
	"conformance/isolate":           {"abi", "validation", "conformance", "conformance/target/library", "onboard", "conformance/model", "conformance/op", "conformance/childproc", "internal/scratch"},
	"conformance/session":           {"abi", "abi/tracevocab", "validation", "docs", "conformance", "conformance/catalogue", "conformance/report", "conformance/suite", "conformance/target", "conformance/target/library", "conformance/trace", "conformance/isolate", "conformance/speed", "sim", "sim/emit", "conformance/model", "conformance/op", "internal/scratch"},
	"conformance/speed":             {"abi", "validation", "conformance", "conformance/op", "conformance/isolate", "conformance/childproc", "conformance/target", "conformance/target/library", "sim", "internal/scratch"},
	"conformance/htmlreport":        {"docs", "conformance", "conformance/catalogue", "conformance/report", "conformance/session", "conformance/speed"}, // the -html page of what session and speed report
	"cmd/abicheck":                  {"abi", "docs", "conformance", "conformance/catalogue", "conformance/childproc", "conformance/isolate", "conformance/session", "conformance/speed", "conformance/htmlreport", "sim/emit", "conformance/op", "internal/scratch"},
	"cmd/gen-fake-runtime":          {"abi", "sim/emit", "internal/scratch"},
	"lanes/upstream/mkcallable":     {"abi"},
	"lanes/consumer/mkimage":        {"abi", "sim/semantics"},
	"lanes/consumer/report":         nil,
	"lanes/unitsuite/compare":       nil,
	"lanes/consumer/chipdiff":       {"abi", "abi/tracevocab", "lifecycle", "onboard", "sim/emit", "sim/semantics"},
	"lanes/ci":                      nil, // test files only: runs .github/actions/abicheck's steps (docs/ci.md)
	"tests":                         nil, // test files only
	// The op-sequence fuzz targets: each links only what it runs, since the
	// fuzz engines walk the coverage counters of every linked package on
	// every input (tests/opfuzz/doc.go). FuzzOpsSim links no loader.
	"tests/opfuzz": {"conformance", "conformance/catalogue", "conformance/model", "conformance/op", "conformance/target", "sim"},
	"tests/opdiff": {"conformance", "conformance/model", "conformance/op", "conformance/target/library", "onboard", "sim/emit", "tests/opfuzz"},
	// FuzzCommOps: the engine, sim and the emitted runtime, for the comm family alone.
	"tests/commdiff": {"conformance", "conformance/catalogue", "conformance/model", "conformance/op", "conformance/target", "conformance/target/library", "onboard", "sim", "sim/emit", "tests/opdiff"},
}

// testing adds, per package, what its tests may import besides the
// package's production imports: the backends and fakes a test needs
// (sim, sim/emit, onboard), never a layer above the package under test
// (lifecycle's tests may not use the checker; the checker's may).
var testArrows = map[string][]string{
	"abi":               {"validation"},
	"abi/tracevocab":    nil,
	"validation":        {"sim/emit", "onboard"},
	"latch":             nil,
	"sim":               {"lifecycle", "onboard", "sim/emit"},
	"sim/emit":          {"onboard", "sim", "lifecycle", "internal/procmaps"},
	"onboard":           {"sim", "sim/emit"},
	"lifecycle":         {"sim", "sim/emit", "onboard"},
	"internal/osthread": nil,
	"internal/procmaps": nil,
	"internal/safemem":  nil,
	"docs":              nil,
	"conformance/op":    nil,
	"conformance/model": {"validation"},
	// The clause table is checked against the emitted runtime's mutants.
	"conformance/catalogue": {"sim/emit"},
	// The engine's tests run it on the backends, through their adapters
	// (conformance/target) and the emitted fake's (targettest).
	"conformance":                   {"sim", "onboard", "sim/emit", "conformance/target", "conformance/target/targettest"},
	"conformance/report":            nil,
	"conformance/target":            {"sim/emit"},
	"conformance/target/library":    nil,
	"conformance/target/targettest": nil,
	"conformance/suite":             {"conformance/model", "conformance/target", "conformance/target/targettest", "sim", "sim/emit"},
	"conformance/speed":             {"sim/emit", "sim/emit/emittest"},
	"conformance/trace":             {"sim/emit", "abi/tracevocab", "conformance/target"},
	"conformance/childproc":         nil,
	"conformance/isolate":           {"sim/emit"},
	"conformance/session":           nil,
	"cmd/abicheck":                  {"onboard", "sim", "lifecycle", "conformance/report", "conformance/model"},
	"conformance/htmlreport":        {"conformance/model", "conformance/suite", "conformance/target/library"},
	"cmd/gen-fake-runtime":          nil,
	"tests":                         {"abi", "abi/tracevocab", "validation", "latch", "docs", "sim", "sim/semantics", "sim/emit", "onboard", "lifecycle", "conformance", "conformance/catalogue", "conformance/op", "conformance/model", "conformance/report", "conformance/suite", "conformance/target", "conformance/target/library", "conformance/target/targettest", "conformance/trace", "conformance/isolate", "conformance/session", "internal/...", "tests/opfuzz", "tests/opdiff", "tests/commdiff"},
	"tests/opfuzz":                  nil,
	"tests/opdiff":                  {"sim/emit/emittest"},
	"tests/commdiff":                {"sim/emit/emittest"},
}

type listed struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
}

func allowed(rules []string, imp string) bool {
	for _, r := range rules {
		if r == imp || (strings.HasSuffix(r, "/...") && strings.HasPrefix(imp, strings.TrimSuffix(r, "..."))) {
			return true
		}
	}
	return false
}

// arrowViolations lists every import of the module's packages that the
// rules above do not allow, as "pkg -> imp (production|test)".
func arrowViolations(pkgs []listed) []string {
	var out []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		prod, known := production[rel]
		if !known {
			out = append(out, rel+": a package docs/architecture.md and this test do not place")
			continue
		}
		for _, imp := range p.Imports {
			if r, ok := strings.CutPrefix(imp, module+"/"); ok && !allowed(prod, r) {
				out = append(out, rel+" -> "+r+" (production)")
			}
		}
		test := append(append([]string{rel}, prod...), testArrows[rel]...)
		if allowed(test, "sim/emit") {
			test = append(test, "sim/emit/emittest") // the one way a test gets a fake
		}
		for _, imp := range append(append([]string(nil), p.TestImports...), p.XTestImports...) {
			if r, ok := strings.CutPrefix(imp, module+"/"); ok && !allowed(test, r) {
				out = append(out, rel+" -> "+r+" (test)")
			}
		}
	}
	sort.Strings(out)
	return out
}

func listModule(t *testing.T) []listed {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// The import arrows of docs/architecture.md hold, for production and test
// imports each with its own rule.
func TestImportArrows(t *testing.T) {
	pkgs := listModule(t)
	if v := arrowViolations(pkgs); len(v) > 0 {
		t.Errorf("imports the architecture does not allow:\n  %s", strings.Join(v, "\n  "))
	}
	// The checker ships without the project's tests.
	out, err := exec.Command("go", "list", "-deps", module+"/cmd/abicheck").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, module+"/tests") {
			t.Errorf("cmd/abicheck depends on %s", d)
		}
	}
}

// The test has teeth: a wrong arrow in either kind of import is reported.
func TestImportArrowsCatchAWrongArrow(t *testing.T) {
	p := func(rel string, imps ...string) listed {
		l := listed{ImportPath: path.Join(module, rel)}
		for _, i := range imps {
			l.Imports = append(l.Imports, path.Join(module, i))
		}
		return l
	}
	bad := []listed{p("lifecycle", "sim"), p("abi", "validation"), p("sim/emit", "sim")}
	testBad := p("onboard")
	testBad.XTestImports = []string{module + "/conformance"}
	got := arrowViolations(append(bad, testBad, p("unplaced")))
	want := []string{"abi -> validation (production)", "lifecycle -> sim (production)", "onboard -> conformance (test)",
		"sim/emit -> sim (production)", "unplaced: a package docs/architecture.md and this test do not place"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("violations\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// modelDepsAllowed is all the model may stand on besides the standard
// library: the contract's data (abi, whose trace vocabulary the op language
// reads traces with) and the op language. The model is the independent
// reading of docs/contract.md: it must not see the code it judges.
var modelDepsAllowed = []string{"abi", "abi/tracevocab", "conformance/op", "conformance/model"}

// foreignDeps lists the dependencies of the model that are neither the
// standard library nor allowed.
func foreignDeps(deps []string) []string {
	var out []string
	for _, d := range deps {
		rel, ours := strings.CutPrefix(d, module+"/")
		switch {
		case ours && allowed(modelDepsAllowed, rel):
		case !ours && d != module && !strings.Contains(strings.Split(d, "/")[0], "."):
			// the standard library
		default:
			out = append(out, d)
		}
	}
	return out
}

// The model's whole dependency closure (go list -deps), not only its direct
// imports, is the standard library, abi and the op language.
func TestModelImportsOnlyTheContract(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/conformance/model").Output()
	if err != nil {
		t.Fatal(err)
	}
	if f := foreignDeps(strings.Fields(string(out))); len(f) > 0 {
		t.Errorf("conformance/model depends on %v: it may stand only on the standard library, abi and conformance/op", f)
	}
	// The rule has teeth.
	bad := []string{"strings", module + "/abi", module + "/sim", module + "/conformance", "github.com/anishathalye/porcupine"}
	want := []string{module + "/sim", module + "/conformance", "github.com/anishathalye/porcupine"}
	if got := foreignDeps(bad); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("foreignDeps(%v) = %v, want %v", bad, got, want)
	}
}

// engineForbidden are what the engine and the layers under it (the op
// language, the model) must not link, directly or through another package:
// the backends it checks. A target reaches the engine through the Target
// interface only; the adapters live in conformance/target.
var engineForbidden = []string{"sim", "onboard"}

// backendDeps lists the deps that engineForbidden names.
func backendDeps(deps []string) []string {
	var out []string
	for _, d := range deps {
		if rel, ours := strings.CutPrefix(d, module+"/"); ours && allowed(engineForbidden, rel) {
			out = append(out, rel)
		}
	}
	return out
}

// The engine's whole dependency closure (go list -deps) holds neither
// backend: it drives targets through the Target interface.
func TestEngineLinksNoBackend(t *testing.T) {
	for _, pkg := range []string{"conformance", "conformance/op", "conformance/model"} {
		out, err := exec.Command("go", "list", "-deps", module+"/"+pkg).Output()
		if err != nil {
			t.Fatal(err)
		}
		if b := backendDeps(strings.Fields(string(out))); len(b) > 0 {
			t.Errorf("%s links %v: the engine drives a backend only through conformance.Target (conformance/target adapts them)", pkg, b)
		}
	}
	// The rule has teeth.
	deps := []string{"strings", module + "/abi", module + "/sim", module + "/sim/semantics", module + "/onboard"}
	if got := backendDeps(deps); strings.Join(got, " ") != "sim onboard" {
		t.Errorf("backendDeps(%v) = %v, want [sim onboard]", deps, got)
	}
}
