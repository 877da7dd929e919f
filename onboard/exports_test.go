package onboard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/emit"
)

func requirementNames(rs []abi.ConsumerRequirement) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

// C-BIND-1, F-1: every profile of the emitted fake exports, read from its
// file, everything the consumer of its revision resolves: the legacy fake
// upstream ChipWorker's 43 (the six comm domain entries it lacked before
// included), the others C-BIND-1's set.
func TestMissingForConsumer_CBIND1_everyProfileComplete(t *testing.T) {
	for _, tc := range []struct {
		profile emit.Profile
		rev     abi.Revision
	}{
		{emit.ProfileLegacy, abi.RevLegacy},
		{emit.ProfileTMR, abi.RevKernel},
		{emit.ProfileRefusing, abi.RevKernel},
	} {
		t.Run(string(tc.profile), func(t *testing.T) {
			path := emitted(t, emit.Config{Profile: tc.profile})
			rev, missing, err := MissingForConsumer(path)
			if err != nil || rev != tc.rev || len(missing) != 0 {
				t.Fatalf("MissingForConsumer = %v, %v, %v; want %v and nothing missing", rev, abi.FormatMissing(missing), err, tc.rev)
			}
			ex, err := Exports(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range abi.ConsumerSet(abi.ConsumerOf(tc.rev)) {
				if !ex[r.Name] {
					t.Errorf("%s not exported", r.Name)
				}
			}
			// A hidden helper of the C source is not an export.
			if ex["ctx_lookup"] || ex["st"] {
				t.Error("a static function of the fake was read as an export")
			}
		})
	}
}

// C-BIND-1: a library lacking symbols its consumer resolves is named with
// each of them, statically and through the loader alike.
func TestMissingForConsumer_CBIND1_namesTheOmitted(t *testing.T) {
	omit := []string{abi.EntryCommDeriveContext.Name(), abi.EntryCommGlobalDomainImport.Name(), abi.EntryRun.Name()}
	path := emitted(t, emit.Config{Profile: emit.ProfileLegacy, Omit: omit})
	rev, missing, err := MissingForConsumer(path)
	if err != nil || rev != abi.RevLegacy {
		t.Fatalf("MissingForConsumer: %v, %v", rev, err)
	}
	want := []string{abi.EntryRun.Name(), abi.EntryCommDeriveContext.Name(), abi.EntryCommGlobalDomainImport.Name()} // table order
	if d := cmp.Diff(want, requirementNames(missing)); d != "" {
		t.Fatalf("missing (-want +got):\n%s", d)
	}
	_, err = Open(path, Options{})
	if err == nil || !strings.HasSuffix(err.Error(), "missing required symbols: "+abi.FormatMissing(missing)) {
		t.Fatalf("Open: %v, want the same list", err)
	}
}

// Bad input gets a clear error naming the file, never a panic.
func TestExports_badFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	real := emitted(t, emit.Config{Profile: emit.ProfileLegacy})
	raw, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"absent", filepath.Join(dir, "absent.so"), "no such file or directory"},
		{"empty", write("empty.so", nil), "not a shared library"},
		{"text", write("text.so", []byte("#!/bin/sh\necho hi\n")), "neither ELF nor Mach-O"},
		{"truncated ELF", write("trunc.so", raw[:100]), "malformed ELF"},
		{"a directory", dir, "exports of " + dir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Exports(tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("Exports(%s) = %v, want an error naming the file and %q", tc.path, err, tc.want)
			}
			if _, _, err := MissingForConsumer(tc.path); err == nil {
				t.Fatal("MissingForConsumer accepted it")
			}
		})
	}
	// A shared library that is not a runtime lacks the whole set.
	if libc := "/lib/x86_64-linux-gnu/libc.so.6"; fileExists(libc) {
		rev, missing, err := MissingForConsumer(libc)
		if err != nil || rev != abi.RevKernel || !slices.Equal(requirementNames(missing), requirementNames(abi.MissingExports(abi.KernelConsumer, func(string) bool { return false }, false))) {
			t.Fatalf("libc: %v %v %v", rev, len(missing), err)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
