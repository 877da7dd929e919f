package tests

import (
	"encoding/binary"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var exportCorpus = flag.String("fuzzops.export", "", "TestExportFuzzOpsCorpus: write the FuzzOps seed corpus as libFuzzer inputs into this directory")

// TestExportFuzzOpsCorpus converts the seed corpus of FuzzOps
// (testdata/fuzz/FuzzOps, "go test fuzz v1" files) into libFuzzer inputs for
// a go-118-fuzz-build binary (OSS-Fuzz, ClusterFuzzLite): its testing shim
// reads a []byte argument with go-fuzz-headers' GetBytes, a big-endian
// uint32 length and then the bytes. Runs only with -fuzzops.export=DIR
// (docs/fuzzing.md); by default it only checks that every seed file parses.
func TestExportFuzzOpsCorpus(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzOps", "*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no FuzzOps seeds: %v", err)
	}
	for _, p := range paths {
		data, err := readSeed(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if *exportCorpus == "" {
			continue
		}
		out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		out = append(out, data...)
		if err := os.WriteFile(filepath.Join(*exportCorpus, filepath.Base(p)), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readSeed reads a one-argument []byte seed file of the Go fuzzing corpus.
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
	lit, suf := strings.CutSuffix(lit, ")")
	if !pre || !suf {
		return nil, errors.New("the value is not a []byte literal")
	}
	s, err := strconv.Unquote(lit)
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}
