//go:build !unix

package safemem

// Read is not supported here.
func Read(uintptr, []byte) error { return ErrUnsupported }

// Write is not supported here.
func Write(uintptr, []byte) error { return ErrUnsupported }
