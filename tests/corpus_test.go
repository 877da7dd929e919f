package tests

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var exportCorpus = flag.String("fuzzcorpus.export", "",
	"TestExportFuzzCorpora: write the seed corpus of every fuzz target as libFuzzer inputs into DIR/<target>/")

// fuzzCorpora are the seed corpora of the module's fuzz targets ("go test
// fuzz v1" files, one []byte each), by target, relative to this package.
var fuzzCorpora = map[string]string{
	"FuzzOps":                         "opdiff/testdata/fuzz/FuzzOps",
	"FuzzOpsSim":                      "opfuzz/testdata/fuzz/FuzzOpsSim",
	"FuzzCommOps":                     "commdiff/testdata/fuzz/FuzzCommOps",
	"FuzzRecordedTraceAgreesWithLive": "testdata/fuzz/FuzzRecordedTraceAgreesWithLive",
	"FuzzImageCAgainstGo":             "testdata/fuzz/FuzzImageCAgainstGo",
	"FuzzImage":                       "../validation/testdata/fuzz/FuzzImage",
	"FuzzCallConfig":                  "../validation/testdata/fuzz/FuzzCallConfig",
	"FuzzOpText":                      "../conformance/testdata/fuzz/FuzzOpText",
	"FuzzBaseline":                    "../conformance/report/testdata/fuzz/FuzzBaseline",
	"FuzzTraceText":                   "../conformance/trace/testdata/fuzz/FuzzTraceText",
	"FuzzTraceTruncation":             "../conformance/session/testdata/fuzz/FuzzTraceTruncation",
}

// TestExportFuzzCorpora converts the seed corpus of every fuzz target into
// libFuzzer inputs for its go-118-fuzz-build binary (fuzz/libfuzzer,
// ClusterFuzzLite, docs/fuzzing.md): the testing shim of that tool reads a
// []byte argument with go-fuzz-headers' GetBytes, a big-endian uint32 length
// and then the bytes. Runs only with -fuzzcorpus.export=DIR, writing
// DIR/<target>/<seed>; by default it only checks that every seed file
// parses.
func TestExportFuzzCorpora(t *testing.T) {
	for target, dir := range fuzzCorpora {
		paths, err := filepath.Glob(filepath.Join(dir, "*"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no %s seeds in %s: %v", target, dir, err)
		}
		out := filepath.Join(*exportCorpus, target)
		if *exportCorpus != "" {
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range paths {
			data, err := readSeed(p)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if *exportCorpus == "" {
				continue
			}
			enc := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
			enc = append(enc, data...)
			if err := os.WriteFile(filepath.Join(out, filepath.Base(p)), enc, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

var (
	fuzzFuncRE  = regexp.MustCompile(`(?m)^func (Fuzz\w*)\(\w+ \*testing\.F\)`)
	libfuzzerRE = regexp.MustCompile(`(?m)^\s*fuzz_\w+\s+\S+\s+(Fuzz\w*)\s+\d+\s+[01]\s*$`)
)

// Every fuzz target of the module has a seed corpus here and a libFuzzer
// build in fuzz/libfuzzer's target table, and neither lists a target that
// does not exist.
func TestFuzzTargetsAreAllBuilt(t *testing.T) {
	root := repoRoot(t)
	funcs := moduleFuzzTargets(t)
	corpora := slices.Sorted(maps.Keys(fuzzCorpora))
	if !slices.Equal(funcs, corpora) {
		t.Errorf("fuzz targets of the module %v, seed corpora listed in fuzzCorpora %v", funcs, corpora)
	}
	script, err := os.ReadFile(filepath.Join(root, "fuzz", "libfuzzer"))
	if err != nil {
		t.Fatal(err)
	}
	var built []string
	for _, m := range libfuzzerRE.FindAllSubmatch(script, -1) {
		built = append(built, string(m[1]))
	}
	slices.Sort(built)
	if !slices.Equal(funcs, built) {
		t.Errorf("fuzz targets of the module %v, libFuzzer builds in fuzz/libfuzzer %v", funcs, built)
	}
}

// moduleFuzzTargets are the names of the module's fuzz functions, sorted.
func moduleFuzzTargets(t *testing.T) []string {
	t.Helper()
	var funcs []string
	err := filepath.WalkDir(repoRoot(t), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "build" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range fuzzFuncRE.FindAllSubmatch(b, -1) {
			funcs = append(funcs, string(m[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(funcs)
	return funcs
}

// readSeed reads a one-argument []byte or string seed file of the Go
// fuzzing corpus (the shim decodes both as a length and the bytes).
func readSeed(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" {
		return nil, errors.New("not a one-value \"go test fuzz v1\" file")
	}
	lit, pre := strings.CutPrefix(lines[1], "[]byte(")
	if !pre {
		lit, pre = strings.CutPrefix(lines[1], "string(")
	}
	lit, suf := strings.CutSuffix(lit, ")")
	if !pre || !suf {
		return nil, errors.New("the value is not a []byte or string literal")
	}
	s, err := strconv.Unquote(lit)
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// docs/fuzzing.md's two tables are the module's fuzz targets and
// fuzz/libfuzzer's table of builds (fuzzer, target, max_len, leak detection).
func TestDocsFuzzingTablesAreTheTargets(t *testing.T) {
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "fuzzing.md"))
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(Fuzz\\w+)` \\| `").FindAllSubmatch(doc, -1) {
		documented = append(documented, string(m[1]))
	}
	slices.Sort(documented)
	if funcs := moduleFuzzTargets(t); !slices.Equal(funcs, documented) {
		t.Errorf("docs/fuzzing.md's table of targets lists %v; the module's fuzz targets are %v", documented, funcs)
	}
	script, err := os.ReadFile(filepath.Join(root, "fuzz", "libfuzzer"))
	if err != nil {
		t.Fatal(err)
	}
	var built, inDoc []string
	onOff := map[string]string{"1": "on", "0": "off"}
	for _, m := range regexp.MustCompile(`(?m)^\s*(fuzz_\w+)\s+\S+\s+(Fuzz\w*)\s+(\d+)\s+([01])\s*$`).FindAllSubmatch(script, -1) {
		built = append(built, fmt.Sprintf("%s %s %s %s", m[1], m[2], m[3], onOff[string(m[4])]))
	}
	for _, m := range regexp.MustCompile("(?m)^\\| `(fuzz_\\w+)` \\| `(Fuzz\\w+)` \\| (\\d+) \\| (on|off) \\|$").FindAllSubmatch(doc, -1) {
		inDoc = append(inDoc, fmt.Sprintf("%s %s %s %s", m[1], m[2], m[3], m[4]))
	}
	slices.Sort(built)
	slices.Sort(inDoc)
	if d := cmp.Diff(built, inDoc); d != "" || len(built) == 0 {
		t.Errorf("docs/fuzzing.md's libFuzzer table differs from fuzz/libfuzzer's (-script +doc):\n%s", d)
	}
}
