package lifecycle_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/lifecycle"
	"github.com/simabi/simabi/sim"
)

// A kernel-mode worker over the Go simulator: the caller owns the device,
// the stream and the tensors; the worker prepares once and launches; the
// simulated kernel runs when the caller synchronizes its stream.
func Example() {
	runtime.LockOSThread() // the current device is per OS thread (D-2, C-THREAD)
	defer runtime.UnlockOSThread()

	rt := sim.New(sim.TMR, sim.Options{})
	acl := rt.ACL()
	acl.SetDevice(0)
	stream, _ := acl.CreateStream()
	const n = 4
	in, _ := acl.Malloc(4 * n)
	out, _ := acl.Malloc(4 * n)
	host := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(host[4*i:], math.Float32bits(float32(i)))
	}
	acl.CopyToDevice(in, host)

	spec := abi.ChipCallableSpec{
		Signature: []abi.ArgDirection{abi.DirIn, abi.DirOut, abi.DirScalar},
		FuncName:  sim.KernelAddScalarF32,
	}
	image, _ := spec.Build()

	w := lifecycle.New(lifecycle.Config{Mode: lifecycle.Kernel, DeviceID: 0, Loader: rt.Loader()})
	if err := w.Init(lifecycle.InitConfig{Config: &abi.CallConfig{}}); err != nil {
		fmt.Println("init:", err)
		return
	}
	id, err := w.PrepareCallable(image)
	if err != nil {
		fmt.Println("prepare:", err)
		return
	}
	args := abi.NewTaskArgs()
	tin, _ := abi.ContiguousTensor(uint64(in), abi.Float32, n)
	tout, _ := abi.ContiguousTensor(uint64(out), abi.Float32, n)
	args.AddTensor(tin)
	args.AddTensor(tout)
	args.AddScalarFloat32(1.25)
	if err := w.Launch(id, args, stream); err != nil {
		fmt.Println("launch:", err)
		return
	}
	fmt.Println("synchronize:", acl.SynchronizeStream(stream))
	acl.CopyFromDevice(host, out)
	got := make([]float32, n)
	for i := range got {
		got[i] = math.Float32frombits(binary.LittleEndian.Uint32(host[4*i:]))
	}
	fmt.Println(got)
	fmt.Println("close:", w.Close())
	// Output:
	// synchronize: 0
	// [1.25 2.25 3.25 4.25]
	// close: <nil>
}
