package onboard

import (
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/internal/exports"
)

// Exports reads the names a shared library exports from its file, without
// loading it (nothing of the library runs): the defined global and weak
// functions and objects of an ELF file's dynamic symbol table, or the
// external symbols of a Mach-O file.
func Exports(path string) (map[string]bool, error) { return exports.Read(path) }

// MissingForConsumer holds the library at path, read from its file, to what
// the consumer of its revision resolves at load (abi.ConsumerSet, C-BIND-1):
// the revision its exports show and every requirement they lack, with its
// group and what requires it.
func MissingForConsumer(path string) (abi.Revision, []abi.ConsumerRequirement, error) {
	return exports.Missing(path)
}
