// Command mkimage writes the ChipCallable image the consumer lane registers
// on simabi's fake runtime (docs/upstream.md "Upstream's own consumer"): the
// fake's simulated kernel simabi.copy_bytes (docs/fake-runtime.md) with the
// signature [IN, OUT] and a 64-byte orchestration binary of zeros, which the
// fake never executes. A run of it copies tensor 0's bytes into tensor 1,
// so the lane's driver can check what a run did.
//
// Usage:
//
//	mkimage -o OUT
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/semantics"
)

const usage = "usage: mkimage -o OUT"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mkimage:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("mkimage", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), usage); fs.PrintDefaults() }
	out := fs.String("o", "", "image file to write")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errors.New(usage)
	}
	if *out == "" || fs.NArg() != 0 {
		return errors.New(usage)
	}
	img, err := Image()
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, img, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d bytes (func %q, signature [in, out])\n", *out, len(img), semantics.KernelCopyBytes)
	return nil
}

// Image is the lane's copy-bytes callable.
func Image() ([]byte, error) {
	spec := abi.ChipCallableSpec{
		Signature: []abi.ArgDirection{abi.DirIn, abi.DirOut},
		FuncName:  semantics.KernelCopyBytes,
		Binary:    make([]byte, 64),
	}
	return spec.Build()
}
