// Command mkcallable writes a ChipCallable image (docs/contract.md "ChipCallable") from
// a compiled orchestration shared object and its child kernels, for the
// upstream lane's program-mode runs.
//
// Usage:
//
//	mkcallable -orch ORCH.so -kernel ID=KERNEL.so [-kernel ID=KERNEL.so ...] -o OUT
//	           [-func NAME] [-config NAME] [-sig LIST]
//
// -sig is the orchestration's signature as a comma-separated list of
// scalar, in, out, inout (tensors first); empty by default. Children carry
// an empty signature.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi"
)

const usage = "usage: mkcallable -orch ORCH.so -kernel ID=KERNEL.so [-kernel ...] -o OUT [-func NAME] [-config NAME] [-sig LIST]"

// kernelFlags collects repeated -kernel ID=PATH values.
type kernelFlags []string

func (k *kernelFlags) String() string { return strings.Join(*k, " ") }
func (k *kernelFlags) Set(v string) error {
	*k = append(*k, v)
	return nil
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mkcallable:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("mkcallable", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), usage); fs.PrintDefaults() }
	orch := fs.String("orch", "", "orchestration shared object")
	out := fs.String("o", "", "image file to write")
	funcName := fs.String("func", "aicpu_orchestration_entry", "orchestration entry symbol (func_name)")
	configName := fs.String("config", "aicpu_orchestration_config", "orchestration config symbol (config_name)")
	sig := fs.String("sig", "", "orchestration signature: comma-separated scalar|in|out|inout")
	var kernels kernelFlags
	fs.Var(&kernels, "kernel", "child kernel as FUNC_ID=PATH (repeatable)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errors.New(usage)
	}
	if *orch == "" || *out == "" || fs.NArg() != 0 {
		return errors.New(usage)
	}

	spec := abi.ChipCallableSpec{FuncName: *funcName, ConfigName: *configName}
	var err error
	if spec.Signature, err = parseSignature(*sig); err != nil {
		return err
	}
	if spec.Binary, err = readSharedObject(*orch); err != nil {
		return err
	}
	for _, k := range kernels {
		id, path, ok := strings.Cut(k, "=")
		if !ok {
			return fmt.Errorf("-kernel %q: want FUNC_ID=PATH", k)
		}
		n, err := strconv.ParseInt(id, 10, 32)
		if err != nil {
			return fmt.Errorf("-kernel %q: func id %q is not an integer", k, id)
		}
		bin, err := readSharedObject(path)
		if err != nil {
			return err
		}
		spec.Children = append(spec.Children, abi.ChildKernel{FuncID: int32(n), Binary: bin})
	}
	img, err := spec.Build()
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, img, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d bytes (orchestration %d bytes, %d children, func %q, config %q)\n",
		*out, len(img), len(spec.Binary), len(spec.Children), spec.FuncName, spec.ConfigName)
	return nil
}

// readSharedObject reads a file and checks that it starts like an ELF file,
// so that a wrong path fails here rather than at dlopen inside the runtime.
func readSharedObject(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 4 || string(b[:4]) != "\x7fELF" {
		return nil, fmt.Errorf("%s: not an ELF file", path)
	}
	return b, nil
}

func parseSignature(s string) ([]abi.ArgDirection, error) {
	if s == "" {
		return nil, nil
	}
	names := map[string]abi.ArgDirection{
		"scalar": abi.DirScalar, "in": abi.DirIn, "out": abi.DirOut, "inout": abi.DirInOut,
	}
	var sig []abi.ArgDirection
	for _, f := range strings.Split(s, ",") {
		d, ok := names[strings.TrimSpace(f)]
		if !ok {
			return nil, fmt.Errorf("-sig: %q is not one of scalar, in, out, inout", f)
		}
		sig = append(sig, d)
	}
	return sig, nil
}
