package conformance

import (
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// The run family with valid arguments on real run storage (program mode):
// register, unregister, prepare_run, launch_run, poll_run, wait_run,
// finalize_run, run.

func init() {
	defineOp(op.KindRegister, opClass{
		rule: model.REProg,
		// The run family's candidates (runOp).
		gen: func(g *Generator, s *genState) {
			g.onSlot(60, s.program, 0, (*Generator).runOp)
		},
		call: func(r *Runner, cur op.Op, h abi.Ctx, o *op.Observation) {
			var img unsafe.Pointer
			counts := [2]int32{}
			if cur.Img.Base == op.ImgProgram && r.userImg != nil {
				img, counts = unsafe.Pointer(unsafe.SliceData(r.userImg)), r.userCount
			} else {
				b := r.image(cur.Img)
				img, counts = b.ptr, [2]int32{b.img.Tensors, b.img.Scalars}
			}
			o.Call.Status = r.rt.RegisterCallable(h, cur.ID, img)
			if o.Call.Status == abi.OK && cur.C >= 0 {
				if r.progIDs[cur.C] == nil {
					r.progIDs[cur.C] = map[int32][2]int32{}
				}
				r.progIDs[cur.C][cur.ID] = counts
			}
		},
	})
	defineOp(op.KindUnregister, opClass{
		rule: model.REFin,
		call: func(r *Runner, op op.Op, h abi.Ctx, o *op.Observation) {
			o.Call.Status = r.rt.UnregisterCallable(h, op.ID)
		},
	})
	defineOp(op.KindPrepareRun, startClass(abi.Runtime.PrepareRun))
	defineOp(op.KindRun, startClass(abi.Runtime.Run))
	defineOp(op.KindLaunchRun, opClass{
		rule: model.REProg,
		call: func(r *Runner, op op.Op, h abi.Ctx, o *op.Observation) {
			if op.St < 0 {
				o.Call.Status = r.rt.LaunchRun(h, 0)
				return
			}
			r.accepted[op.St] = -1
			o.Call.Status = r.rt.LaunchRun(h, r.runHandle(op))
			o.Accepted = r.accepted[op.St]
		},
	})
	defineOp(op.KindPollRun, storageClass(model.REProg, abi.Runtime.PollRun))
	defineOp(op.KindWaitRun, storageClass(model.REProg, abi.Runtime.WaitRun))
	defineOp(op.KindFinalizeRun, storageClass(model.REFin, abi.Runtime.FinalizeRun))
}

// storageClass is the class of an entry that takes only the op's run
// storage, under rule.
func storageClass(rule model.Rule, entry func(abi.Runtime, abi.Ctx, abi.RunHandle) abi.Status) opClass {
	return opClass{
		rule: rule,
		call: func(r *Runner, op op.Op, h abi.Ctx, o *op.Observation) {
			o.Call.Status = entry(r.rt, h, r.runHandle(op))
		},
	}
}

// startClass is the class of an entry that starts a run (prepare_run, run).
func startClass(entry func(abi.Runtime, abi.Ctx, abi.RunHandle, int32, unsafe.Pointer, unsafe.Pointer, unsafe.Pointer) abi.Status) opClass {
	return opClass{
		rule: model.REProg,
		call: func(r *Runner, op op.Op, h abi.Ctx, o *op.Observation) {
			args, cfg, desc := r.runCallArgs(op, o)
			o.Call.Status = entry(r.rt, h, r.runHandle(op), op.ID, args, cfg, desc)
		},
	}
}

// runHandle is the RuntimeHandle of op's run storage (0 for st=null).
func (r *Runner) runHandle(op op.Op) abi.RunHandle {
	if op.St < 0 {
		return 0
	}
	return abi.RunHandle(unsafe.Pointer(unsafe.SliceData(r.storage[op.St])))
}

// runCallArgs forms prepare_run's and run's args, CallConfig and descriptor
// (NULL where the op says so; st=null takes storage 0's descriptor).
func (r *Runner) runCallArgs(op op.Op, o *op.Observation) (args, cfg, desc unsafe.Pointer) {
	args, t, s := r.formRunArgs(op)
	o.Call.ArgT, o.Call.ArgS = t, s
	st := max(op.St, 0)
	if !op.Cfg.Null {
		cfg = unsafe.Pointer(unsafe.SliceData(r.runCfg))
	}
	if !op.OutNull {
		desc = unsafe.Pointer(unsafe.SliceData(r.desc[st]))
	}
	return args, cfg, desc
}

// nullRunArgs now and then makes one argument of a run start NULL (E-PROG).
func nullRunArgs(ch Chooser, o op.Op) op.Op {
	switch ch.IntN(24, "null-arg") {
	case 0:
		o.St = op.NullRef
	case 1:
		o.Args = op.ArgsRecipe{Mode: op.ArgsNull}
	case 2:
		o.Cfg.Null = true
	case 3:
		o.OutNull = true
	}
	return o
}

// runOp is one op of the run family on program context c: register until
// it has a callable, then runs on the four storages, now and then a finalize
// or destroy while a run is outstanding (E-FIN, E-DESTROY).
func (g *Generator) runOp(ch Chooser, c int8) op.Op {
	ids := g.st.Model().Registered(c)
	id := int32(ch.IntN(3, "id"))
	if len(ids) == 0 || ch.IntN(12, "register") == 0 {
		img := op.ImageRecipe{T: uint16(ch.IntN(2, "t")), S: uint16(ch.IntN(2, "s")), X: uint16(ch.IntN(3, "x"))}
		return op.Op{Kind: op.KindRegister, C: c, ID: id, Img: img}
	}
	if ch.IntN(10, "known-id") < 7 {
		id = ids[ch.IntN(len(ids), "which-id")]
	}
	// A storage of c's, or a free one.
	st := int8(ch.IntN(op.MaxStorages, "st"))
	for i := range int8(op.MaxStorages) {
		if _, holder := g.st.Model().Storage(i); holder == c && ch.IntN(5, "own-st") < 4 {
			st = i
			break
		}
	}
	state, _ := g.st.Model().Storage(st)
	switch {
	case ch.IntN(25, "unregister") == 0:
		return op.Op{Kind: op.KindUnregister, C: c, ID: id}
	case state == model.StorageFree && ch.IntN(5, "whole") == 0:
		return nullRunArgs(ch, op.Op{Kind: op.KindRun, C: c, St: st, ID: id})
	case state == model.StorageFree:
		o := op.Op{Kind: op.KindPrepareRun, C: c, St: st, ID: id}
		if ch.IntN(20, "args") == 0 {
			o.Args = op.ArgsRecipe{Mode: op.ArgsMatch, T: 1}
		}
		return nullRunArgs(ch, o)
	}
	kinds := []op.Kind{op.KindLaunchRun, op.KindPollRun, op.KindWaitRun, op.KindFinalizeRun, op.KindPrepareRun, op.KindDestroy, op.KindFinalize}
	weights := []int{30, 20, 20, 20, 5, 3, 4}
	if state == model.StoragePrepared {
		weights[0] = 60
	}
	k := kinds[pickWeighted(ch, "run-op", len(kinds), func(i int) int { return weights[i] })]
	if k == op.KindDestroy || k == op.KindFinalize {
		return op.Op{Kind: k, C: c}
	}
	o := op.Op{Kind: k, C: c, St: st}
	if k == op.KindPrepareRun {
		o.ID = id
	}
	return o
}
