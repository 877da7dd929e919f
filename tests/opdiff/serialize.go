package opdiff

import "github.com/simabi/simabi/conformance/op"

// Serialized is ops with every two-thread op in serial order (op.Op.Serial),
// for the differential runs: two runtimes' histories of a race or a hold
// need not match line for line. The model-checked runs keep the ops as they
// are.
func Serialized(ops []op.Op) []op.Op {
	out := make([]op.Op, 0, len(ops))
	for _, o := range ops {
		out = append(out, o.Serial()...)
	}
	return out
}
