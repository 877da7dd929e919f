package tests

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/validation"
)

var updateImageSeeds = flag.Bool("imagefuzz.update-seeds", false,
	"rewrite the FuzzImageCAgainstGo seed corpus (testdata/fuzz/FuzzImageCAgainstGo)")

const (
	imageSeedDir     = "testdata/fuzz/FuzzImageCAgainstGo"
	validationCorpus = "../validation/testdata/fuzz/FuzzImage"
)

// The prefixes of the seed files this file owns; any other file in the
// corpus (an input the fuzzer saved) is left alone.
var imageSeedPrefixes = []string{"validation-", "spec-", "edge-"}

// imageSeedFile is a one-argument []byte seed in the "go test fuzz v1"
// format.
func imageSeedFile(data []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", data)
}

// imageSeeds is the FuzzImageCAgainstGo seed corpus, file name -> content:
//
//   - validation-NAME: a byte-identical copy of every file of validation's
//     FuzzImage corpus (canonical images and one image per V-IMG boundary);
//   - spec-NAME: canonical images built with abi.ChipCallableSpec, with full
//     and mixed signatures, children with scattered func ids, child
//     signatures up to 32 entries and binaries around the 64-byte alignment
//     of child offsets (accepted by V-IMG);
//   - edge-NAME: a canonical image with one field set to a value that is
//     negative as int32 or huge as uint32, where a 32-bit or signed slip in
//     either implementation would show (refused by V-IMG).
func imageSeeds(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	entries, err := os.ReadDir(validationCorpus)
	if err != nil || len(entries) == 0 {
		t.Fatalf("validation's FuzzImage corpus: %d files, %v", len(entries), err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(validationCorpus, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out["validation-"+e.Name()] = b
	}
	for name, spec := range imageSeedSpecs() {
		out["spec-"+name] = imageSeedFile(buildSeed(t, spec))
	}
	for name, img := range imageEdgeSeeds(t) {
		out["edge-"+name] = imageSeedFile(img)
	}
	return out
}

func buildSeed(t *testing.T, spec abi.ChipCallableSpec) []byte {
	t.Helper()
	img, err := spec.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return img
}

// seedChildren returns n children with func ids ids[i] (or, for ids nil,
// (7 + 389*i) mod 1024, distinct for n <= 1024), child signatures of i mod 33
// entries and binaries of the given lengths, cycled.
func seedChildren(ids []int32, n int, lens []int) []abi.ChildKernel {
	dirs := []abi.ArgDirection{abi.DirIn, abi.DirOut, abi.DirInOut, abi.DirScalar}
	c := make([]abi.ChildKernel, n)
	for i := range c {
		sig := make([]abi.ArgDirection, i%(abi.CoreMaxTensorArgs+1))
		for j := range sig {
			sig[j] = dirs[(i+j)%len(dirs)]
		}
		id := int32((7 + 389*i) % abi.KernelMaxFuncID)
		if ids != nil {
			id = ids[i]
		}
		c[i] = abi.ChildKernel{FuncID: id, Signature: sig, Binary: bytes.Repeat([]byte{byte(0xA0 + i)}, lens[i%len(lens)])}
	}
	return c
}

// signature returns tensors tensor entries (IN, OUT, INOUT cycled) followed
// by scalars SCALAR entries.
func signature(tensors, scalars int) []abi.ArgDirection {
	s := make([]abi.ArgDirection, 0, tensors+scalars)
	for i := range tensors {
		s = append(s, abi.ArgDirection(1+i%3))
	}
	for range scalars {
		s = append(s, abi.DirScalar)
	}
	return s
}

// imageSeedSpecs are the canonical images of the corpus.
func imageSeedSpecs() map[string]abi.ChipCallableSpec {
	aligned := []int{0, 1, 63, 64, 65, 127, 128, 129}
	scattered := []int32{1023, 0, 511, 512, 63, 64, 1, 700}
	return map[string]abi.ChipCallableSpec{
		"256-signature-entries-128-scalars": {
			Signature: signature(128, 128), FuncName: "simabi.add_scalar_f32", ConfigName: "full",
			Binary: bytes.Repeat([]byte{1}, 64),
		},
		"256-tensors": {Signature: signature(256, 0), FuncName: "t", ConfigName: "c"},
		"128-scalars-count-not-recorded": {
			Signature: signature(0, 128), FuncName: strings.Repeat("n", 63), ConfigName: strings.Repeat("c", 63),
			OmitScalarCount: true,
		},
		"8-children-scattered-ids": {
			Signature: signature(3, 2), FuncName: "simabi.copy_bytes", ConfigName: "default",
			Children: seedChildren(scattered, 8, aligned),
		},
		"8-children-after-65-byte-binary": {
			Signature: signature(1, 1), FuncName: "f", ConfigName: "c",
			Binary: bytes.Repeat([]byte{2}, 65), Children: seedChildren(scattered, 8, []int{129, 0, 64, 1}),
		},
		"33-children-child-signatures-0-to-32": {
			Signature: signature(2, 0), FuncName: "sig", ConfigName: "sig",
			Binary: []byte{3}, Children: seedChildren(nil, 33, []int{7}),
		},
		"64-children-empty-binaries": {
			FuncName: "empty", Children: seedChildren(nil, 64, []int{0}),
		},
		"128-children": {
			Signature: signature(4, 4), FuncName: "many", ConfigName: "many",
			Binary: bytes.Repeat([]byte{4}, 100), Children: seedChildren(nil, 128, aligned),
		},
		"2-children-4096-byte-binaries": {
			Signature: signature(1, 0), FuncName: "big", ConfigName: "big",
			Binary: bytes.Repeat([]byte{5}, 4095), Children: seedChildren([]int32{1023, 0}, 2, []int{4096, 4097}),
		},
	}
}

// imageEdgeSeeds are images refused by V-IMG at a field that is negative as
// int32 or large as uint32.
func imageEdgeSeeds(t *testing.T) map[string][]byte {
	t.Helper()
	base := abi.ChipCallableSpec{
		Signature: signature(2, 1), FuncName: "edge", ConfigName: "edge",
		Binary: bytes.Repeat([]byte{6}, 37), Children: seedChildren([]int32{0, 1, 2}, 3, []int{1, 64, 65}),
	}
	le := binary.LittleEndian
	child := func(img []byte, i int) int {
		return abi.ChipStorageOff + int(le.Uint32(img[abi.ChipChildOffsetsOff+4*i:]))
	}
	out := map[string][]byte{}
	for name, m := range map[string]func([]byte){
		"sig-count-minus-1":          func(b []byte) { le.PutUint32(b[abi.ChipSigCountOff:], 0xFFFFFFFF) },
		"sig-value-minus-1":          func(b []byte) { le.PutUint32(b[abi.ChipSignatureOff:], 0xFFFFFFFF) },
		"scalar-count-minus-1":       func(b []byte) { le.PutUint32(b[abi.ChipScalarCountOff:], 0xFFFFFFFF) },
		"func-name-len-u32-max":      func(b []byte) { le.PutUint32(b[abi.ChipFuncNameLenOff:], 0xFFFFFFFF) },
		"config-name-len-2pow31":     func(b []byte) { le.PutUint32(b[abi.ChipConfigNameLenOff:], 1<<31) },
		"binary-size-u32-max":        func(b []byte) { le.PutUint32(b[abi.ChipBinarySizeOff:], 0xFFFFFFFF) },
		"child-count-minus-1":        func(b []byte) { le.PutUint32(b[abi.ChipChildCountOff:], 0xFFFFFFFF) },
		"child-func-id-minus-1":      func(b []byte) { le.PutUint32(b[abi.ChipChildFuncIDsOff+4:], 0xFFFFFFFF) },
		"child-offset-u32-max-align": func(b []byte) { le.PutUint32(b[abi.ChipChildOffsetsOff+8:], 0xFFFFFFC0) },
		"child-sig-count-minus-1":    func(b []byte) { le.PutUint32(b[child(b, 1)+abi.CoreSigCountOff:], 0xFFFFFFFF) },
		"child-binary-size-u32-max":  func(b []byte) { le.PutUint32(b[child(b, 2)+abi.CoreBinarySizeOff:], 0xFFFFFFFF) },
		"129-scalars": func(b []byte) {
			for i := range 129 {
				le.PutUint32(b[abi.ChipSignatureOff+4*i:], uint32(abi.DirScalar))
			}
			le.PutUint32(b[abi.ChipSigCountOff:], 129)
			le.PutUint32(b[abi.ChipScalarCountOff:], 129)
		},
	} {
		img := buildSeed(t, base)
		m(img)
		out[name] = img
	}
	return out
}

// The seed corpus under testdata/fuzz/FuzzImageCAgainstGo is exactly what
// imageSeeds produces: validation's FuzzImage corpus, copied, and the spec
// and edge images (go test ./tests -run TestImageCAgainstGoSeedCorpus
// -imagefuzz.update-seeds rewrites it).
func TestImageCAgainstGoSeedCorpus(t *testing.T) {
	want := imageSeeds(t)
	const fix = "run go test ./tests -run TestImageCAgainstGoSeedCorpus -imagefuzz.update-seeds"
	entries, err := os.ReadDir(imageSeedDir)
	if err != nil && !*updateImageSeeds {
		t.Fatalf("%v (%s)", err, fix)
	}
	for _, e := range entries {
		owned := slices.ContainsFunc(imageSeedPrefixes, func(p string) bool { return strings.HasPrefix(e.Name(), p) })
		if _, ok := want[e.Name()]; owned && !ok {
			if *updateImageSeeds {
				if err := os.Remove(filepath.Join(imageSeedDir, e.Name())); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("seed %s is no longer produced (%s)", e.Name(), fix)
		}
	}
	if *updateImageSeeds {
		if err := os.MkdirAll(imageSeedDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range want {
		path := filepath.Join(imageSeedDir, name)
		if *updateImageSeeds {
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		switch {
		case err != nil:
			t.Errorf("seed %s: %v (%s)", path, err, fix)
		case !bytes.Equal(got, content):
			t.Errorf("seed %s is stale (%s)", path, fix)
		}
	}
}

// The spec seeds are accepted by V-IMG and the edge seeds refused, each at
// the step its name says is defective.
func TestImageCAgainstGoSeedVerdicts(t *testing.T) {
	for name, spec := range imageSeedSpecs() {
		if st := validation.Image(buildSeed(t, spec)); st != abi.OK {
			t.Errorf("spec seed %s: V-IMG = %v", name, st)
		}
	}
	steps := map[string]validation.ImageStep{
		"sig-count-minus-1": 2, "sig-value-minus-1": 2, "scalar-count-minus-1": 2, "129-scalars": 2,
		"func-name-len-u32-max": 3, "config-name-len-2pow31": 3,
		"binary-size-u32-max": 4, "child-count-minus-1": 4,
		"child-func-id-minus-1": 5, "child-offset-u32-max-align": 5, "child-sig-count-minus-1": 5, "child-binary-size-u32-max": 5,
	}
	edges := imageEdgeSeeds(t)
	if len(edges) != len(steps) {
		t.Fatalf("%d edge seeds, %d expected steps", len(edges), len(steps))
	}
	for name, img := range edges {
		r := validation.CheckImageAt(uintptr(abi.Ptr(img)), img)
		if r.Defect.Step() != steps[name] {
			t.Errorf("edge seed %s: %v, want a defect at step %d", name, r, steps[name])
		}
	}
}

// imageSeedInputs reads the FuzzImageCAgainstGo corpus, in name order.
func imageSeedInputs(t *testing.T) (names []string, inputs [][]byte) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(imageSeedDir, "*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no FuzzImageCAgainstGo seeds: %v", err)
	}
	for _, p := range paths {
		b, err := readSeed(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		names, inputs = append(names, filepath.Base(p)), append(inputs, b)
	}
	return names, inputs
}

// newImageCheck is a checker of its own on the emitted build cfg (skipping
// without a C compiler); the test closes it.
func newImageCheck(t *testing.T, cfg emit.Config) *cImageCheck {
	t.Helper()
	if _, err := buildEmitted(cfg); errors.Is(err, emit.ErrNoCompiler) {
		t.Skipf("sim/emit: %v", err)
	}
	c := &cImageCheck{config: cfg}
	t.Cleanup(c.close)
	return c
}

// The target has power: on each emitted mutant that breaks what prepare
// answers for an image (V-IMG step 5 or 6, V-PREP-1's -1) some seed of its
// corpus disagrees, and on count-8191 (M-4 one early) the 8192nd accepted
// image of a context does.
func TestImageCAgainstGoKillsMutants(t *testing.T) {
	names, inputs := imageSeedInputs(t)
	for _, m := range []string{"img-trailing-ok", "img-dup-funcid-ok", "prep-keeps-out"} {
		t.Run(m, func(t *testing.T) {
			c := newImageCheck(t, emit.Config{Profile: emit.ProfileTMR, Mutant: m})
			for i, in := range inputs {
				if msg := c.check(in); msg != "" {
					t.Logf("killed by seed %s: %s", names[i], msg)
					return
				}
			}
			t.Errorf("no seed of %s tells mutant %s from the contract", imageSeedDir, m)
		})
	}
	t.Run("count-8191", func(t *testing.T) {
		c := newImageCheck(t, emit.Config{Profile: emit.ProfileTMR, Mutant: "count-8191"})
		img := buildSeed(t, imageSeedSpecs()["8-children-scattered-ids"])
		for i := range abi.MaxRegisteredCallableIDs {
			if msg := c.check(img); msg != "" {
				if !strings.Contains(msg, "capacity code") {
					t.Fatalf("prepare %d: %s", i, msg)
				}
				t.Logf("killed at prepare %d: %s", i, msg)
				return
			}
		}
		t.Error("8192 prepares of one valid image on a count-8191 build agreed with the contract")
	})
}

// The checker re-uses a context while it has room and replaces it before M-4
// would refuse a prepare: 8193 accepted images take two contexts, and every
// answer agrees with V-IMG (ids 0..8191 on the first context, 0 on the
// second).
func TestImageCAgainstGoResetsBeforeCapacity(t *testing.T) {
	c := newImageCheck(t, emit.Config{Profile: emit.ProfileTMR})
	img := buildSeed(t, imageSeedSpecs()["256-tensors"])
	bad := slices.Clone(img)
	bad = append(bad, 0) // a trailing byte: refused, charges nothing
	for i := range abi.MaxRegisteredCallableIDs + 1 {
		if msg := c.check(img); msg != "" {
			t.Fatalf("prepare %d: %s", i, msg)
		}
		if i%1000 == 0 {
			if msg := c.check(bad); msg != "" {
				t.Fatalf("refused image after prepare %d: %s", i, msg)
			}
		}
	}
	if c.contexts != 2 || c.residents != 1 {
		t.Fatalf("%d contexts, %d residents on the last, want 2 and 1", c.contexts, c.residents)
	}
}
