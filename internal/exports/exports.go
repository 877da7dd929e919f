// Package exports reads what a shared library exports from its file, without
// loading it, and holds that to what the consumer of its revision resolves
// (abi.ConsumerSet, C-BIND-1). onboard and sim/emit both use it: the loader
// to say what a library lacks, the emitter to check every fake it builds.
package exports

import (
	"debug/elf"
	"debug/macho"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/simabi/simabi/abi"
)

// Read reads the names a shared library exports from its file, without
// loading it: the defined global and weak functions and objects of an ELF
// file's dynamic symbol table, or the external defined symbols of a Mach-O
// file. Nothing of the library runs, so a library that cannot be loaded
// (an unresolved dependency, a crashing constructor) can still be held to
// its consumer's symbol set.
func Read(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("exports of %s: %w", path, err)
	}
	defer f.Close()
	var magic [4]byte
	if _, err := f.ReadAt(magic[:], 0); err != nil {
		return nil, fmt.Errorf("exports of %s: not a shared library (%d bytes or fewer than 4)", path, fileSize(f))
	}
	if string(magic[:]) == elf.ELFMAG {
		return elfExports(path, f)
	}
	if m, err := macho.NewFile(f); err == nil {
		return machoExports(m), nil
	}
	return nil, fmt.Errorf("exports of %s: neither ELF nor Mach-O", path)
}

func fileSize(f *os.File) int64 {
	if st, err := f.Stat(); err == nil {
		return st.Size()
	}
	return 0
}

func elfExports(path string, f *os.File) (map[string]bool, error) {
	e, err := elf.NewFile(f)
	if err != nil {
		return nil, fmt.Errorf("exports of %s: malformed ELF: %w", path, err)
	}
	syms, err := e.DynamicSymbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		return nil, fmt.Errorf("exports of %s: reading its dynamic symbols: %w", path, err)
	}
	out := make(map[string]bool, len(syms))
	for _, s := range syms {
		bind, typ := elf.ST_BIND(s.Info), elf.ST_TYPE(s.Info)
		if s.Section == elf.SHN_UNDEF || (bind != elf.STB_GLOBAL && bind != elf.STB_WEAK) {
			continue
		}
		if typ != elf.STT_FUNC && typ != elf.STT_OBJECT && typ != elf.STT_GNU_IFUNC {
			continue
		}
		if vis := elf.ST_VISIBILITY(s.Other); vis == elf.STV_HIDDEN || vis == elf.STV_INTERNAL {
			continue
		}
		out[s.Name] = true
	}
	return out, nil
}

func machoExports(m *macho.File) map[string]bool {
	out := map[string]bool{}
	if m.Symtab == nil {
		return out
	}
	const nExt, nTypeMask, nSect = 0x01, 0x0e, 0x0e
	for _, s := range m.Symtab.Syms {
		if s.Type&nExt != 0 && s.Type&nTypeMask == nSect {
			out[strings.TrimPrefix(s.Name, "_")] = true
		}
	}
	return out
}

// Missing holds the library at path to what the consumer of its
// revision resolves at load (abi.ConsumerSet, C-BIND-1): the revision its
// exports show, and every requirement they lack, with its group and what
// requires it. The kernel trio is counted when the library exports
// simpler_kernel_mode_supported (its support is a run-time answer; a build
// that exports the entry is expected to export the trio with it).
func Missing(path string) (abi.Revision, []abi.ConsumerRequirement, error) {
	ex, err := Read(path)
	if err != nil {
		return 0, nil, err
	}
	has := func(name string) bool { return ex[name] }
	rev := abi.ExportRevision(has)
	return rev, abi.MissingExports(abi.ConsumerOf(rev), has, has(abi.EntryKernelSupported.Name())), nil
}
