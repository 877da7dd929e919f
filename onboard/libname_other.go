//go:build !darwin

package onboard

// SharedLibrarySuffix ends the file name of a shared library on this
// platform: ELF shared objects.
const SharedLibrarySuffix = ".so"
