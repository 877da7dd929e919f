package onboard

// SharedLibrarySuffix ends the file name of a shared library on this
// platform: darwin's dynamic loader opens Mach-O .dylib files.
const SharedLibrarySuffix = ".dylib"
