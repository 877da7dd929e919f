package conformance

import (
	"encoding/binary"
	"strconv"
	"sync"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// The checker's environment and queries on no context: contract, setdev,
// getdev, sync, inject, clobber, unload.

func init() {
	defineOp(op.KindContract, opClass{
		gen: func(g *Generator, _ *genState) {
			g.add(1, func(*Generator, Chooser) op.Op { return op.Op{Kind: op.KindContract} })
		},
		rule: model.RVContract,
		call: func(r *Runner, _ op.Op, _ abi.Ctx, o *op.Observation) {
			o.Call.Value = 1
			if p := r.rt.GetPipelineContract(); p != nil {
				o.Contract = append([]byte(nil), unsafe.Slice((*byte)(p), 144)...)
			}
		},
		result: func(e *Entry) string {
			if model.ContractDefect(e.Obs.Contract) != "" {
				return "inadmissible"
			}
			return "admissible"
		},
	})
	defineOp(op.KindSetDev, opClass{
		gen: func(g *Generator, _ *genState) {
			g.add(20, func(g *Generator, ch Chooser) op.Op { return op.Op{Kind: op.KindSetDev, Dev: g.dev(ch)} })
			g.add(3, func(*Generator, Chooser) op.Op { return op.Op{Kind: op.KindSetDev, Dev: -1} })
		},
		needs: func(op op.Op) (catalogue.Caps, model.Rule, string) {
			if op.Dev < 0 {
				return catalogue.CapClearDevice, model.RD2, "D-2: leaving the thread with no current device needs simabi_set_current_device (ACL cannot unset a device)"
			}
			return catalogue.CapSetDevice, model.RD2, "D-2: target exports no simabi_set_current_device and no ACL was given"
		},
		call: func(r *Runner, op op.Op, _ abi.Ctx, o *op.Observation) {
			if r.hooks != nil {
				o.Call.Status = r.hooks.SimSetCurrentDevice(op.Dev)
			} else {
				o.Call.Status = abi.Status(r.acl.SetDevice(op.Dev))
			}
		},
	})
	defineOp(op.KindGetDev, opClass{
		gen: func(g *Generator, _ *genState) {
			g.add(3, func(*Generator, Chooser) op.Op { return op.Op{Kind: op.KindGetDev} })
		},
		needs: need(catalogue.CapGetDevice, model.RD1, "D-1: target exports no simabi_current_device"),
		call: func(r *Runner, _ op.Op, _ abi.Ctx, o *op.Observation) {
			o.Call.Value = uint64(int64(r.hooks.SimCurrentDevice()))
		},
		result: func(e *Entry) string { return strconv.FormatInt(int64(e.Obs.Call.Value), 10) },
	})
	defineOp(op.KindSync, opClass{
		gen: func(g *Generator, s *genState) {
			if len(s.ready) > 0 {
				g.add(30, func(g *Generator, ch Chooser) op.Op {
					return op.Op{Kind: op.KindSync, Stream: int8(ch.IntN(3, "stream"))}
				})
			}
		},
		needs: need(catalogue.CapSync, model.RELaunchAsync, "E-LAUNCH-ASYNC: target exports no simabi_sync_stream and no ACL was given"),
		call: func(r *Runner, op op.Op, _ abi.Ctx, o *op.Observation) {
			if r.hooks != nil {
				o.Call.Status = r.hooks.SimSyncStream(r.stream(op.Stream))
			} else {
				o.Call.Status = abi.Status(r.acl.SynchronizeStream(r.stream(op.Stream)))
			}
		},
	})
	defineOp(op.KindInject, opClass{
		gen: func(g *Generator, _ *genState) { g.add(12, (*Generator).inject) },
		needs: func(op op.Op) (catalogue.Caps, model.Rule, string) {
			return catalogue.CapInject, model.SiteRule(op.Site), "target exports no simabi_inject: fault site " + itoa(op.Site) + " cannot be driven"
		},
		call: func(r *Runner, op op.Op, _ abi.Ctx, o *op.Observation) {
			o.Call.Status = r.hooks.SimInject(op.Site, op.Count, op.Code)
		},
	})
	defineOp(op.KindClobber, opClass{
		gen: func(g *Generator, _ *genState) {
			if len(g.imgs) > 0 {
				g.add(3, func(g *Generator, ch Chooser) op.Op {
					return op.Op{Kind: op.KindClobber, Img: g.imgs[ch.IntN(len(g.imgs), "img")]}
				})
			}
		},
		rule: model.RM6,
		call: func(r *Runner, op op.Op, _ abi.Ctx, _ *op.Observation) {
			if b := r.images[op.Img]; b != nil && b.raw != nil {
				clear(b.raw[op.Img.Mis : int(op.Img.Mis)+len(b.img.Bytes)])
				b.dirty = true
			}
		},
		result: func(*Entry) string { return "done" },
	})
}

// U-1's op: the runner unloads the library (Runner.unload).
func init() {
	defineOp(op.KindUnload, opClass{
		needs: need(catalogue.CapUnload, model.RU1, "U-1: the target cannot be unloaded (the built-in simulator is Go code; a library needs a private copy per run)"),
		run:   func(r *Runner, i int, op op.Op, e *Entry) { r.unload(i, op, e) },
	})
}

var injectCodes = []int32{-1234, -1300, -2001}

// inject arms a fault site: mostly a valid injection of site 1..10, now and
// then one the hook must refuse (site 0 or 11, a negative count, code 0).
func (g *Generator) inject(ch Chooser) op.Op {
	op := op.Op{Kind: op.KindInject, Site: int32(1 + ch.IntN(10, "site")),
		Count: int32(1 + ch.IntN(2, "count")), Code: injectCodes[ch.IntN(len(injectCodes), "code")]}
	switch op.Site {
	case 6:
		if ch.IntN(10, "fatal") < 7 {
			op.Site = 5
			break
		}
		op.Code, op.Count = 0, 1
	case 7:
		op.Code = int32(ch.IntN(2, "ms")) // hold 0 or 1 ms
	}
	switch ch.IntN(40, "badinject") {
	case 36:
		op.Site = int32(11 * ch.IntN(2, "site"))
	case 37:
		op.Count = -1
	case 38:
		op.Code, op.Site = 0, 2
	case 39:
		op.Count = 0
	}
	return op
}

// The host-log binder (S-2): simpler_host_log_bind_state with a state the
// op chooses: threshold= (Op.Code), version= (Op.Site, default 1), size=
// (Op.Count, default 16), or null.
func init() {
	defineOp(op.KindHostLog, opClass{
		gen: func(g *Generator, _ *genState) {
			// Refusals, and the default threshold: a random sequence does
			// not move a real build's log level.
			g.add(2, func(g *Generator, ch Chooser) op.Op {
				cur := op.Op{Kind: op.KindHostLog, Code: 25, Site: 1, Count: 16}
				switch ch.IntN(5, "hostlog") {
				case 3:
					cur = op.Op{Kind: op.KindHostLog, OutNull: true}
				case 0:
					cur.Code = []int32{0, 9, 11, 15, 26, 50, 61, -1}[ch.IntN(8, "threshold")]
				case 1:
					cur.Site = 2
				case 2:
					cur.Count = 15
				}
				return cur
			})
		},
		rule: model.RS2,
		call: func(r *Runner, op op.Op, _ abi.Ctx, o *op.Observation) {
			var p unsafe.Pointer
			if !op.OutNull {
				p = unsafe.Pointer(hostLogBlock(uint32(op.Site), uint32(op.Count), op.Code))
			}
			o.Call.Status = r.rt.HostLogBindState(p)
		},
	})
}

// hostLogBlocks are the SimplerHostLogState blocks the checker ever bound,
// one per distinct state, for the life of the process: a runtime keeps the
// pointer it accepted (upstream's binder stores it), so a block is never
// freed or moved.
var hostLogBlocks sync.Map // [3]int64 → *[abi.HostLogStateSize]byte

func hostLogBlock(version, size uint32, threshold int32) *[abi.HostLogStateSize]byte {
	k := [3]int64{int64(version), int64(size), int64(threshold)}
	if b, ok := hostLogBlocks.Load(k); ok {
		return b.(*[abi.HostLogStateSize]byte)
	}
	b := new([abi.HostLogStateSize]byte)
	binary.LittleEndian.PutUint32(b[0:], version)
	binary.LittleEndian.PutUint32(b[4:], size)
	binary.LittleEndian.PutUint32(b[8:], uint32(threshold))
	stored, _ := hostLogBlocks.LoadOrStore(k, b) // the first stored stays
	return stored.(*[abi.HostLogStateSize]byte)
}
