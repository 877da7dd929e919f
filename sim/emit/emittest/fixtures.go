package emittest

import "github.com/simabi/simabi/abi"

// Image is the tests' canonical ChipCallable: signature [IN, OUT, SCALAR],
// one child kernel (func_id 3), and a kernel chosen by name, the simulated
// one of docs/semantics.md §7 ("simabi.add_scalar_f32", "simabi.copy_bytes") or,
// for any other name, one that does nothing. It panics on a build error,
// which a fixed spec cannot have, so that callers off the test goroutine
// can use it.
func Image(funcName string) []byte {
	spec := abi.ChipCallableSpec{
		Signature: []abi.ArgDirection{abi.DirIn, abi.DirOut, abi.DirScalar},
		FuncName:  funcName,
		Binary:    []byte("orchestration"),
		Children:  []abi.ChildKernel{{FuncID: 3, Signature: []abi.ArgDirection{abi.DirIn}, Binary: []byte{1, 2, 3}}},
	}
	img, err := spec.Build()
	if err != nil {
		panic(err)
	}
	return img
}

// TaskArgs are the arguments of Image: two device tensors of n float32 at
// in and out and the float32 scalar s. It panics as Image does.
func TaskArgs(in, out uint64, n uint32, s float32) *abi.TaskArgs {
	a := abi.NewTaskArgs()
	for _, addr := range []uint64{in, out} {
		tn, err := abi.ContiguousTensor(addr, abi.Float32, n)
		if err != nil {
			panic(err)
		}
		if err := a.AddTensor(tn); err != nil {
			panic(err)
		}
	}
	if err := a.AddScalarFloat32(s); err != nil {
		panic(err)
	}
	return a
}
