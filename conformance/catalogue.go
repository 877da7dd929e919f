package conformance

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)
import "sync"

// Check is a directed rule check: a named op sequence tagged with the rules
// it exercises. The model decides every expectation; a check only chooses
// the ops.
type Check struct {
	Name  string
	Rules []model.Rule
	// Kills are the mutants of docs/semantics.md §13 the check is designed
	// to kill: those of the clauses the clause table binds it to.
	Kills    []string
	Needs    Caps            // capabilities without which the check is skipped
	Profiles []model.Profile // profiles it applies to (nil: tmr and refusing)
	Slow     bool            // takes more than a few milliseconds (M-4, M-5, X-2)
	// Shared names the calls (by their op text) whose deciding clause
	// shares its code with the next on purpose, each with why: to show
	// which of the two comes first, or because no input breaks the
	// clause alone. No other refused call does (MaskedCalls), and for each
	// of the two clauses of such a call the catalogue holds a call that
	// it decides alone.
	Shared map[string]string
	Script string
	ops    []op.Op
}

// Ops is the check's sequence.
func (c *Check) Ops() []op.Op { return c.ops }

// AppliesTo reports whether the check runs on a build of profile p.
func (c *Check) AppliesTo(p model.Profile) bool {
	if c.Profiles == nil {
		return p == model.ProfileTMR || p == model.ProfileRefusing
	}
	for _, q := range c.Profiles {
		if q == p {
			return true
		}
	}
	return false
}

const prelude = `
create c0
setdev 0
kinit c0 dev=0 gen=1
`

var (
	tmrOnly     = []model.Profile{model.ProfileTMR}
	allProfiles = []model.Profile{model.ProfileTMR, model.ProfileRefusing, model.ProfileLegacy}
)

var catalogue = []Check{
	{Name: "v-prep-1/out-is-minus-one", Rules: []model.Rule{model.RVPrep1}, Script: `
create c0
prepare c0 img=valid()+mis(1)
prepare c0 img=valid()
setdev 0
kinit c0 dev=0 gen=1
prepare c0 img=valid()+mis(3)
prepare c0 img=valid()+long(64)
prepare c0 img=valid()+defect(sigcount-neg)
prepare c0 img=valid()
`},
	{Name: "v-prep-2/arguments", Rules: []model.Rule{model.RVPrep2}, Script: prelude + `
prepare c0 img=valid()+mis(8)
prepare c0 img=valid(t=1)+mis(1)
prepare c0 img=valid()+short(1)
prepare c0 img=null
prepare c0 img=valid() out=null
prepare null img=valid()
prepare c0 img=valid()
`},
	{Name: "v-launch/arguments", Rules: []model.Rule{model.RVLaunch}, Script: prelude + `
prepare c0 img=valid(t=1,s=1)
launch c0 id=8192 stream=s0
launch c0 id=-1 stream=s0
launch c0 id=0 args=null stream=s0
launch c0 id=0 stream=null
launch null id=0 stream=s0
launch c0 id=0 stream=s0
`},
	{Name: "v-img/defects", Rules: []model.Rule{model.RVImg}, Profiles: tmrOnly, Shared: map[string]string{
		"prepare c0 img=valid(c=1)+short(8)":             "a child binary past the storage (V-IMG.18) is refused again by step 6: no call can drive V-IMG.18 alone (the clause table)",
		"prepare c0 img=valid(c=1)+defect(child-binary)": "a child binary past the storage (V-IMG.18) is refused again by step 6: no call can drive V-IMG.18 alone (the clause table)",
		"prepare c0 img=valid(b=16)+defect(binsize)":     "a binary_size past the storage (V-IMG.11) is refused again by step 6: no call can drive V-IMG.11 alone (the clause table)",
		"prepare c0 img=valid()+defect(sigcount)": "the upper side of V-IMG.3: signature entry 256 is sig_count itself (257, no direction), so V-IMG.4 refuses it too; " +
			"sigcount-neg breaks V-IMG.3 alone",
		"prepare c0 img=valid()+defect(childcount)": "the upper side of V-IMG.12: child_offsets[1024] is child_count itself (1025, past the storage), " +
			"so V-IMG.16 refuses it too; childcount-neg breaks V-IMG.12 alone",
		"prepare c0 img=valid()+defect(fname-len)": "the bound of V-IMG.8: the byte at length 64 is func_name_len's own (64, not NUL), so V-IMG.9 refuses it too; " +
			"fname-long breaks V-IMG.8 alone",
		"prepare c0 img=valid()+defect(cname-len)": "the bound of V-IMG.8 for config_name: the byte at length 64 is config_name_len's own (64, not NUL), " +
			"so V-IMG.9 refuses it too; fname-long breaks V-IMG.8 alone",
		"prepare c0 img=valid(c=2)+defect(child-offset)": "child 0's offset moves and its bytes do not, so its header lands on its code (V-IMG.17, V-IMG.18); " +
			"child-gap, the same offset with the bytes moved, breaks V-IMG.15 alone",
	}, Script: prelude + `
prepare c0 img=valid(c=2)+long(64)
prepare c0 img=valid(c=2)+defect(fid-dup)
prepare c0 img=valid(c=1)+short(8)
prepare c0 img=valid()+defect(sigcount)
prepare c0 img=valid(t=1)+defect(sigval)
prepare c0 img=valid(t=1,s=1)+defect(order)
prepare c0 img=valid()+defect(scalars)
prepare c0 img=valid()+defect(fname-len)
prepare c0 img=valid()+defect(fname-nul)
prepare c0 img=valid()+defect(fname-early)
prepare c0 img=valid()+defect(cname-len)
prepare c0 img=valid(b=16)+defect(binsize)
prepare c0 img=valid()+defect(childcount)
prepare c0 img=valid(c=1)+defect(fid-range)
prepare c0 img=valid(c=2)+defect(child-offset)
prepare c0 img=valid(c=1)+defect(child-header)
prepare c0 img=valid(c=1)+defect(child-sigcount)
prepare c0 img=valid(c=1)+defect(child-binary)
prepare c0 img=valid(t=2,s=1,c=3,b=100)
prepare c0 img=valid(t=1,s=2)+defect(sccount)
prepare c0 img=valid(t=1,s=2,nosc)
prepare c0 img=valid()+defect(sigcount-neg)
prepare c0 img=valid(t=1)+defect(sigval-neg)
prepare c0 img=valid()+defect(cname-nul)
prepare c0 img=valid()+defect(childcount-neg)
prepare c0 img=valid(c=1)+defect(fid-neg)
prepare c0 img=valid(c=2)+defect(child-gap)
prepare c0 img=valid(c=1)+defect(child-sigcount-neg)
prepare c0 img=valid()+defect(fname-long)
`},
	{Name: "v-init/arguments", Rules: []model.Rule{model.RVInit, model.RVSpan}, Script: `
create c0
setdev 0
kinit c0 dev=0 gen=0
kinit c0 dev=-1 gen=1
kinit null dev=0 gen=1
kinit c0 dev=0 gen=1 cfg=null
kinit c0 dev=0 gen=1 aicpu=halfptr
kinit c0 dev=0 gen=1 aicore=halfsize
kinit c0 dev=0 gen=1 disp=halfptr
kinit c0 dev=0 gen=1 aicpu=bytes aicore=bytes disp=bytes
`},
	{Name: "v-cfg/order", Rules: []model.Rule{model.RVCfg}, Script: `
create c0
setdev 0
kinit c0 dev=0 gen=1 cfg=pmu
kinit c0 dev=0 gen=1 cfg=dump
kinit c0 dev=0 gen=1 cfg=scope
kinit c0 dev=0 gen=1 cfg=anchors
kinit c0 dev=0 gen=1 cfg=threads=1
kinit c0 dev=0 gen=1 cfg=threads=5+pmu
kinit c0 dev=0 gen=1 cfg=swim=5+prefix
kinit c0 dev=0 gen=1 cfg=swim=5+pmu
kinit c0 dev=0 gen=1 cfg=swim=2
kinit c0 dev=0 gen=1 cfg=depgen
kinit c0 dev=0 gen=1 cfg=unterm
kinit c0 dev=0 gen=1 cfg=depgen+unterm
kinit c0 dev=0 gen=1 cfg=threads=4+swim=2+prefix+ring=good
`},
	// Every ring rule, on rings 0 and 3: a build checks them all (the
	// decision) or none (the tolerance), which one sequence tells.
	{Name: "v-cfg/ring", Rules: []model.Rule{model.RVCfg}, Script: `
setdev 0
create c0
kinit c0 dev=0 gen=1 cfg=ring=badtask
create c1
kinit c1 dev=1 gen=1 cfg=ring=badheap
create c2
kinit c2 dev=2 gen=1 cfg=ring=baddep
create c3
kinit c3 dev=3 gen=1 cfg=ring=badpow2
create c4
kinit c4 dev=4 gen=1 cfg=ring=bigdep
create c5
kinit c5 dev=5 gen=1 cfg=ring=badheap3
create c6
setdev 6
kinit c6 dev=6 gen=1 cfg=ring=winonly
`},
	{Name: "l-3/latch-survives-failed-init", Rules: []model.Rule{model.RL3, model.REKInit}, Profiles: tmrOnly, Script: `
create c0
setdev 1
kinit c0 dev=0 gen=1
pinit c0 dev=0
acl c0 dev=0
setdev 0
kinit c0 dev=0 gen=1
prepare c0 img=valid()
finalize c0
destroy c0
`},
	{Name: "l-5/refusal-before-latch", Rules: []model.Rule{model.RL5, model.RL1}, Script: `
create c0
setdev 0
kinit c0 dev=0 gen=1 cfg=pmu
kinit c0 dev=0 gen=0
pinit c0 dev=0
create c1
kinit c1 dev=0 gen=1 cfg=threads=9
kinit c1 dev=1 gen=1 cfg=swim=2
setdev 1
kinit c1 dev=1 gen=1
create c2
kinit c2 dev=1 gen=2 cfg=pmu
pinit c2 dev=1
`},
	{Name: "l-2/one-mode-per-context", Rules: []model.Rule{model.RL2, model.RL4, model.REACL, model.REPInit}, Profiles: tmrOnly, Script: prelude + `
pinit c0 dev=0
acl c0 dev=1
getdev
create c1
acl c1 dev=2
acl c1 dev=2
kinit c1 dev=2 gen=2
prepare c1 img=valid()
create c2
pinit c2 dev=1
pinit c2 dev=1
kinit c2 dev=1 gen=3
setdev 0
prepare c0 img=valid()
`},
	{Name: "k-4/registration-poisons", Rules: []model.Rule{model.RK4, model.REClaim}, Needs: CapInject, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
inject site=3 count=1 code=-1234
prepare c0 img=valid(x=1)
prepare c0 img=valid()
launch c0 id=0 stream=s0
committed c0
create c2
kinit c2 dev=0 gen=3
finalize c0
create c1
kinit c1 dev=0 gen=2
`},
	{Name: "k-4/enqueue-poisons", Rules: []model.Rule{model.RK4}, Needs: CapInject, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
inject site=4 count=1 code=-1300
launch c0 id=0 stream=s0
launch c0 id=0 stream=s0
prepare c0 img=valid()
finalize c0
`},
	{Name: "k-6/closed-is-terminal", Rules: []model.Rule{model.RK6, model.REFin}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid(t=1)
launch c0 id=0 stream=s0
finalize c0
prepare c0 img=valid()
launch c0 id=0 stream=s0
pinit c0 dev=0
finalize c0
destroy c0
`},
	{Name: "k-2/no-reinit-after-close", Rules: []model.Rule{model.RK2, model.RK6}, Profiles: tmrOnly, Script: prelude + `
kinit c0 dev=0 gen=1
finalize c0
kinit c0 dev=0 gen=2
create c1
kinit c1 dev=0 gen=3
`},
	{Name: "k-5/close-failure-is-returned", Rules: []model.Rule{model.RK5, model.REClaim}, Needs: CapInject, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
inject site=5 count=2 code=-1300
finalize c0
prepare c0 img=valid()
finalize c0
prepare c0 img=valid()
create c1
kinit c1 dev=0 gen=2
finalize c0
finalize c0
kinit c1 dev=0 gen=2
create c2
kinit c2 dev=0 gen=3
`},
	{Name: "k-7/init-rollback", Rules: []model.Rule{model.RK7, model.REClaim, model.RL5}, Needs: CapInject, Profiles: tmrOnly, Script: `
create c0
setdev 0
inject site=1 count=1 code=-1234
kinit c0 dev=0 gen=1
kinit c0 dev=0 gen=1
prepare c0 img=valid()
create c1
kinit c1 dev=0 gen=2
destroy c0
finalize c0
destroy c0
setdev 1
create c2
inject site=1 count=1 code=-1300
inject site=9 count=1 code=-1500
kinit c2 dev=1 gen=3
prepare c2 img=valid()
destroy c2
inject site=5 count=1 code=-1600
finalize c2
finalize c2
destroy c2
create c3
kinit c3 dev=1 gen=4
`},
	{Name: "e-launch/before-prepare", Rules: []model.Rule{model.RELaunch, model.RK3}, Profiles: tmrOnly, Script: prelude + `
launch c0 id=0 stream=s0
launch c0 id=5 stream=s0
prepare c0 img=valid(t=1,s=2)
launch c0 id=1 stream=s0
launch c0 id=0 args=match(dt=1) stream=s0
launch c0 id=0 args=match(ds=-1) stream=s0
launch c0 id=0 args=match(host) stream=s0
launch c0 id=0 stream=s0
`},
	{Name: "e-launch/reads-only-counts", Rules: []model.Rule{model.RELaunch, model.RELaunchAsync}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid(t=3,s=2)
launch c0 id=0 args=match(junk) stream=s0
launch c0 id=0 args=exact(t=3,s=2,junk) stream=s0
launch c0 id=0 args=match(host,junk) stream=s0
launch c0 id=0 args=match(ds=1,junk) stream=s0
prepare c0 img=valid()
launch c0 id=1 args=exact(t=0,s=0,host,junk) stream=s0
`},
	{Name: "e-launch/stream-switch", Rules: []model.Rule{model.RELaunch, model.RD3}, Needs: CapDriven, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
launch c0 id=0 stream=s0
launch c0 id=0 stream=s1
launch c0 id=0 stream=s0
launch c0 id=0 args=match(dt=1) stream=s2
launch c0 id=0 stream=s1
sync s0
launch c0 id=0 stream=s1
launch c0 id=0 stream=s1
launch c0 id=0 stream=s0
sync s1
launch c0 id=0 stream=s0
`},
	{Name: "e-launch-async/delivered-once", Rules: []model.Rule{model.RELaunchAsync, model.RD3}, Needs: CapInject | CapDriven, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
launch c0 id=0 stream=s0
launch c0 id=0 stream=s0
inject site=8 count=1 code=-1400
sync s0
sync s0
launch c0 id=0 stream=s0
prepare c0 img=valid()
sync s0
launch c0 id=1 stream=s0
launch c0 id=1 stream=s0
inject site=8 count=1 code=-1400
sync s0
launch c0 id=0 stream=s1
sync s1
`},
	{Name: "s-3/null-context", Rules: []model.Rule{model.RS3, model.REFin, model.REPInit, model.REACL}, Profiles: allProfiles, Script: `
finalize null
pinit null dev=0
acl null dev=0
destroy null
committed null
supported null
register null id=0 img=prog
unregister null id=0
run null st=0 id=0
prepare_run null st=0 id=0
launch_run null st=0
poll_run null st=0
wait_run null st=0
finalize_run null st=0
prog null fn=meminfo
prog null fn=copy_to
prog null fn=copy_from
prog null fn=malloc
prog null fn=free
prog null fn=aicpu_dlopen
prog null fn=host_dlopen
prog null fn=stream_sets
prog null fn=arena_base
prog null fn=retained_temp
prog null fn=comm_create
prog null fn=comm_destroy
`},
	// S: every refusal of a host-side check answers a host code (S-1), every
	// code is one docs/contract.md documents (S-2), and NULL contexts follow S-3. The
	// model checks S-1 and S-2 on every call of every check; these name the
	// places the S mutants break.
	{Name: "s-1/host-refusals-below-1000", Rules: []model.Rule{model.RS1, model.RELaunch}, Profiles: tmrOnly, Script: prelude + `
launch c0 id=0 stream=s0
prepare c0 img=valid(t=1)
launch c0 id=1 stream=s0
launch c0 id=8191 stream=s0
launch c0 id=0 args=match(dt=1) stream=s0
prepare c0 img=valid()+defect(fid-range)
prepare c0 img=valid() out=null
kinit c0 dev=0 gen=1
pinit c0 dev=0
launch c0 id=0 stream=s0
launch c0 id=1 stream=s0
`},
	{Name: "s-2/documented-codes", Rules: []model.Rule{model.RS2, model.RVLaunch}, Script: `
create c0
setdev 0
kinit c0 dev=0 gen=0
kinit c0 dev=0 gen=1
prepare c0 img=valid()+mis(2)
prepare c0 img=valid()
launch c0 id=8192 stream=s0
launch c0 id=-1 stream=s0
launch c0 id=0 args=null stream=s0
launch c0 id=0 stream=null
launch c0 id=0 stream=s0
finalize c0
`},
	{Name: "s-3/null-context-kernel-entries", Rules: []model.Rule{model.RS3, model.RVPrep2, model.RVLaunch, model.RESup}, Shared: map[string]string{
		"prepare null img=valid() out=null": "a NULL ctx with a NULL out_callable_id: V-PREP-1.1 writes -1 only through a non-NULL out, which this call shows " +
			"with nothing to write through; V-PREP-2.1 and V-PREP-2.3 each break alone in the calls before it and in v-prep-2/arguments",
	}, Script: `
supported null
kinit null dev=0 gen=1
prepare null img=valid()
prepare null img=valid() out=null
launch null id=0 stream=s0
create c0
setdev 0
kinit c0 dev=0 gen=1
prepare null img=valid()
launch null id=0 stream=s0
committed null
`},
	{Name: "e-destroy/refused-until-finalized", Rules: []model.Rule{model.REDestroy, model.REClaim}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
destroy c0
create c1
kinit c1 dev=0 gen=2
launch c0 id=0 stream=s0
prepare c0 img=valid()
committed c0
finalize c0
create c2
kinit c2 dev=0 gen=3
finalize c0
destroy c0
`},
	{Name: "e-prog/state-before-arguments", Rules: []model.Rule{model.REProg}, Profiles: allProfiles, Script: `
create c0
prog c0 fn=register
prog c0 fn=unregister
prog c0 fn=run
prog c0 fn=prepare_run
prog c0 fn=launch_run
prog c0 fn=poll_run
prog c0 fn=wait_run
prog c0 fn=finalize_run
prog c0 fn=meminfo
prog c0 fn=copy_to
prog c0 fn=copy_from
prog c0 fn=malloc
prog c0 fn=free
setdev 0
kinit c0 dev=0 gen=1
prog c0 fn=register
prog c0 fn=copy_to
create c1
acl c1 dev=0
prog c1 fn=register
prog c1 fn=run
create c2
pinit c2 dev=1
finalize c2
prog c2 fn=register
prog c2 fn=prepare_run
prog c2 fn=copy_from
prog c2 fn=malloc
`},
	{Name: "e-sup/constant", Rules: []model.Rule{model.RESup}, Script: `
supported null
create c0
supported c0
setdev 0
kinit c0 dev=0 gen=1
supported c0
prepare c0 img=valid()
supported c0
finalize c0
supported c0
create c1
pinit c1 dev=1
supported c1
supported null
`},
	{Name: "e-claim/released-by-failed-init", Rules: []model.Rule{model.REClaim}, Profiles: tmrOnly, Script: `
create c0
create c1
setdev 1
kinit c0 dev=0 gen=1
setdev 0
kinit c1 dev=0 gen=2
create c2
kinit c2 dev=0 gen=3
finalize c1
create c3
kinit c3 dev=0 gen=4
`},
	{Name: "m-1/dense-ids-per-context", Rules: []model.Rule{model.RM1}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
prepare c0 img=valid(t=1)
prepare c0 img=valid(s=1)
setdev 1
create c1
kinit c1 dev=1 gen=2
prepare c1 img=valid()
launch c1 id=1 stream=s0
launch c1 id=0 stream=s0
`},
	{Name: "m-3/failures-mint-nothing", Rules: []model.Rule{model.RM3}, Needs: CapInject, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
prepare c0 img=valid()+defect(sigcount-neg)
inject site=2 count=1 code=-1234
prepare c0 img=valid()
prepare c0 img=valid()
`},
	{Name: "m-2/no-deduplication", Rules: []model.Rule{model.RM2}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid(t=1,s=1)
prepare c0 img=valid(t=1,s=1)
launch c0 id=1 stream=s0
launch c0 id=0 stream=s0
`},
	{Name: "m-4/count", Rules: []model.Rule{model.RM4}, Profiles: tmrOnly, Slow: true, Script: prelude + `
prepare c0 img=valid() rep=8192
prepare c0 img=valid() rep=2
prepare c0 img=valid()+defect(sigcount-neg)
launch c0 id=0 stream=s0
launch c0 id=8191 stream=s0
`},
	{Name: "m-5/byte-budget", Rules: []model.Rule{model.RM5, model.REPrep}, Profiles: tmrOnly, Slow: true, Script: prelude + `
prepare c0 img=valid(b=1048576) rep=1024
prepare c0 img=valid(b=1048576)
prepare c0 img=valid()
prepare c0 img=huge
launch c0 id=1024 stream=s0
launch c0 id=1023 stream=s0
setdev 1
create c1
kinit c1 dev=1 gen=2
prepare c1 img=huge
prepare c1 img=valid()
`},
	{Name: "m-6/caller-image-not-read-again", Rules: []model.Rule{model.RM6}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid(t=2,s=1)
clobber img=valid(t=2,s=1)
launch c0 id=0 stream=s0
launch c0 id=0 args=exact(t=0,s=0) stream=s0
prepare c0 img=valid(t=2,s=1)
launch c0 id=1 stream=s0
`},
	{Name: "m-7/committed", Rules: []model.Rule{model.RM7}, Profiles: tmrOnly, Script: `
committed null
create c0
committed c0
setdev 0
kinit c0 dev=0 gen=1
prepare c0 img=valid()+defect(sigcount-neg)
prepare c0 img=valid()
launch c0 id=0 stream=s0
prepare c0 img=valid()+defect(sigcount-neg)
prepare c0 img=valid(x=1)
finalize c0
committed c0
`},
	{Name: "d-2/borrowed-device", Rules: []model.Rule{model.RD2}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
setdev 1
prepare c0 img=valid()
launch c0 id=0 stream=s0
launch c0 id=5 stream=s0
finalize c0
setdev none
launch c0 id=0 stream=s0
prepare c0 img=valid()
create c1
kinit c1 dev=2 gen=2
setdev 0
launch c0 id=0 stream=s0
prepare c0 img=valid()
finalize c0
`},
	{Name: "d-1/no-device-calls", Rules: []model.Rule{model.RD1}, Needs: CapCounters, Profiles: tmrOnly, Script: prelude + `
getdev
prepare c0 img=valid()
launch c0 id=0 stream=s0
getdev
finalize c0
getdev
destroy c0
getdev
`},
	{Name: "d-4/quarantine", Rules: []model.Rule{model.RD4, model.REDestroy, model.REClaim}, Needs: CapInject, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
inject site=6 count=1 code=0
finalize c0
finalize c0
destroy c0
finalize c0
create c1
kinit c1 dev=0 gen=2
`},
	{Name: "x-2/launch-fails-fast", Rules: []model.Rule{model.RX2}, Needs: CapInject, Profiles: tmrOnly, Slow: true, Script: prelude + `
prepare c0 img=valid(t=1)
launch c0 id=0 stream=s0
holdlaunch c0 ms=150 img=valid() id=0 stream=s0
holdprepare c0 ms=100 img=valid(x=1) img2=valid(x=2)
launch c0 id=3 stream=s0
`},
	{Name: "x-1/claim-race", Rules: []model.Rule{model.RX1, model.REClaim}, Profiles: tmrOnly, Script: `
create c0
create c1
setdev 0
racekinit c0 c1 dev=0 gen=1
create c2
create c3
setdev 1
racekinit c2 c3 dev=1 gen=2
`},
	{Name: "e-prep/check-order", Rules: []model.Rule{model.REPrep, model.RK1}, Profiles: tmrOnly, Script: `
create c0
prepare c0 img=valid()+defect(sigcount)
setdev 0
kinit c0 dev=0 gen=1
setdev 1
prepare c0 img=valid()+defect(sigcount)
setdev 0
prepare c0 img=huge
prepare c0 img=valid()+mis(4)
prepare c0 img=valid()
`},
	{Name: "e-pinit/arguments", Rules: []model.Rule{model.REPInit, model.RVSpan, model.REACL}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=-1
pinit c0 dev=0 aicpu=halfptr
pinit c0 dev=0 disp=halfsize
pinit c0 dev=0 sdma=halfsize
pinit c0 dev=0 sdma=halfptr
pinit c0 dev=0 prewarm=threads=7
pinit c0 dev=0 prewarm=swim=2
pinit c0 dev=0 prewarm=unterm
pinit c0 dev=0 prewarm=pmu
kinit c0 dev=0 gen=1
finalize c0
pinit c0 dev=0 aicpu=bytes sdma=bytes prewarm=swim=1+prefix
create c1
acl c1 dev=-1
acl c1 dev=1
acl c1 dev=0
acl c1 dev=0
pinit c1 dev=0
pinit c1 dev=0
setdev 0
finalize c1
finalize c1
pinit c1 dev=0
finalize c1
create c3
acl c3 dev=-1
setdev 0
kinit c3 dev=0 gen=9
`},
	{Name: "refusing/validate-then-refuse", Rules: []model.Rule{model.REKInit, model.REPrep, model.RELaunch}, Profiles: []model.Profile{model.ProfileRefusing}, Script: `
create c0
setdev 0
kinit c0 dev=0 gen=1
kinit c0 dev=0 gen=0
kinit c0 dev=0 gen=1 cfg=pmu
prepare c0 img=valid()
prepare c0 img=valid()+mis(2)
prepare c0 img=valid() out=null
launch c0 id=0 stream=s0
launch c0 id=8192 stream=s0
finalize c0
pinit c0 dev=0
`},
	{Name: "v-contract/admissible", Rules: []model.Rule{model.RVContract}, Profiles: allProfiles, Script: `
contract
`},
	// Program runs with valid arguments: a native run is outstanding from
	// its successful prepare_run until finalize_run returns (E-FIN), launched
	// or not, completed or not; while it is, finalize_device returns
	// INTERNAL, destroy is refused (E-DESTROY) and so is unregister. img=prog
	// is the target's program callable (abicheck -callable on a real build).
	{Name: "e-fin/outstanding-prepared-run", Rules: []model.Rule{model.REFin, model.REDestroy}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
register c0 id=0 img=prog
prepare_run c0 st=0 id=0
finalize c0
destroy c0
unregister c0 id=0
register c0 id=1 img=prog
finalize_run c0 st=0
prepare_run c0 st=1 id=0
finalize_run c0 st=1
prepare_run c0 st=2 id=7
unregister c0 id=0
register c0 id=0 img=prog
finalize c0
destroy c0
`},
	{Name: "e-fin/outstanding-launched-run", Rules: []model.Rule{model.REFin, model.REDestroy, model.REProg}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
register c0 id=0 img=prog
prepare_run c0 st=0 id=0
launch_run c0 st=0
finalize c0
destroy c0
unregister c0 id=0
poll_run c0 st=0
wait_run c0 st=0
poll_run c0 st=0
finalize c0
destroy c0
unregister c0 id=0
finalize_run c0 st=0
finalize c0
destroy c0
`},
	{Name: "e-prog/run-storage", Rules: []model.Rule{model.REProg, model.REFin}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
register c0 id=0 img=prog
prepare_run c0 st=0 id=0
prepare_run c0 st=0 id=0
run c0 st=0 id=0
create c1
pinit c1 dev=1 aicpu=bytes aicore=bytes
register c1 id=0 img=prog
prepare_run c1 st=0 id=0
launch_run c1 st=0
wait_run c0 st=0
finalize_run c0 st=0
finalize_run c0 st=0
prepare_run c1 st=0 id=0
launch_run c1 st=0
launch_run c1 st=0
wait_run c1 st=0
finalize_run c1 st=0
run c0 st=1 id=0
finalize c0
prepare_run c0 st=1 id=0
finalize c1
`},
	// Two runs of one context on the storages of pipeline slots 0 and 1
	// (st0 and st1 carry slots 0 and 1), each launched, polled, waited for
	// and finalized on its own; finalize, destroy and unregister refused
	// while either is outstanding. A simulated build takes the second run
	// (E-PROG.29); a real one may refuse it, as upstream's simulator does,
	// and the model follows whichever it did.
	{Name: "e-prog/two-slots", Rules: []model.Rule{model.REProg, model.REFin, model.REDestroy}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
register c0 id=0 img=prog
prepare_run c0 st=0 id=0
prepare_run c0 st=1 id=0
launch_run c0 st=1
finalize c0
destroy c0
unregister c0 id=0
launch_run c0 st=0
poll_run c0 st=1
wait_run c0 st=0
finalize_run c0 st=1
finalize c0
destroy c0
poll_run c0 st=0
finalize_run c0 st=0
finalize c0
destroy c0
`},
	// With a live init, a run with NULL storage, args, CallConfig or
	// descriptor is refused with IA and leaves nothing behind: the same run
	// with valid arguments prepares after the refusals (the refusal probes
	// show it too).
	{Name: "e-prog/run-null-arguments", Rules: []model.Rule{model.REProg}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
register c0 id=0 img=prog
prepare_run c0 st=0 id=0 cfg=null
run c0 st=0 id=0 cfg=null
prepare_run c0 st=0 id=0 desc=null
run c0 st=0 id=0 desc=null
prepare_run c0 st=null id=0
run c0 st=null id=0
prepare_run c0 st=0 id=0 args=null
run c0 st=0 id=0 args=null
prepare_run c0 st=0 id=0
finalize_run c0 st=0
finalize c0
destroy c0
`},
	{Name: "e-fin/program-teardown-failure", Rules: []model.Rule{model.REFin}, Needs: CapInject, Profiles: tmrOnly, Script: `
create c0
pinit c0 dev=0
inject site=10 count=1 code=-1234
finalize c0
pinit c0 dev=0
finalize c0
create c1
pinit c1 dev=1
inject site=10 count=1 code=-1300
finalize c1
finalize c1
pinit c1 dev=1
finalize c1
`},
	// U-1: a thread that called into the library (a prewarmed simpler_init
	// emits a trace span on upstream's builds) exits only after the unload;
	// the runner waits for it to be gone, so a thread-exit destructor left
	// behind crashes the process at the unload op, every time.
	{Name: "u-1/program-thread-exits-after-unload", Rules: []model.Rule{model.RU1}, Needs: CapUnload, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 prewarm=ok
finalize c0
destroy c0
unload
`},
	// The same after a program run: simpler_prepare_run opens trace spans
	// on upstream's builds, whatever the prewarm did.
	{Name: "u-1/run-thread-exits-after-unload", Rules: []model.Rule{model.RU1}, Needs: CapUnload, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
register c0 id=0 img=prog
run c0 st=0 id=0
unregister c0 id=0
finalize c0
destroy c0
unload
`},
	{Name: "u-1/kernel-thread-exits-after-unload", Rules: []model.Rule{model.RU1}, Needs: CapUnload | CapSync, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
launch c0 id=0 stream=s0
sync s0
finalize c0
destroy c0
unload
`},
	// S-1.2: a code a fault site was armed with comes back unchanged, at
	// every site that returns one (1, 2, 4, 5 and 10; 3 is k-4's).
	{Name: "s-1/forwarded-codes", Rules: []model.Rule{model.RS1}, Needs: CapInject, Profiles: tmrOnly, Script: `
create c0
setdev 0
inject site=1 count=1 code=-1234
kinit c0 dev=0 gen=1
create c1
kinit c1 dev=0 gen=2
prepare c1 img=valid()
inject site=2 count=1 code=-1300
prepare c1 img=valid(x=1)
inject site=4 count=1 code=-2001
launch c1 id=0 stream=s0
finalize c1
create c2
kinit c2 dev=0 gen=3
prepare c2 img=valid()
inject site=5 count=1 code=-1400
finalize c2
finalize c2
create c3
pinit c3 dev=1
inject site=10 count=1 code=-1500
finalize c3
`},
	// S-2: the host-log binder takes exactly the six levels, and refuses
	// every other threshold, a NULL state, another abi_version and a short
	// struct_size. It ends on the default level.
	{Name: "s-2/host-log-binder", Rules: []model.Rule{model.RS2}, Profiles: allProfiles, Script: `
hostlog threshold=10
hostlog threshold=20
hostlog threshold=25
hostlog threshold=30
hostlog threshold=40
hostlog threshold=60
hostlog threshold=0
hostlog threshold=9
hostlog threshold=15
hostlog threshold=50
hostlog threshold=61
hostlog threshold=-1
hostlog threshold=25 version=0
hostlog threshold=25 version=2
hostlog threshold=25 size=15
hostlog threshold=25 size=0
hostlog threshold=25 size=32
hostlog null
hostlog threshold=25
`},
	// V-SPAN at kernel init: each of the four forms, each span checked.
	{Name: "v-span/kernel-init", Rules: []model.Rule{model.RVSpan, model.RVInit}, Script: `
create c0
setdev 0
kinit c0 dev=0 gen=1 aicpu=halfsize
kinit c0 dev=0 gen=1 aicore=halfsize
kinit c0 dev=0 gen=1 disp=halfsize
kinit c0 dev=0 gen=1 disp=halfptr
kinit c0 dev=0 gen=1 aicore=bytes
`},
	// V-INIT's refusals come first in every state: program-latched,
	// kernel-initialized, Closed.
	{Name: "v-init/every-state", Rules: []model.Rule{model.RVInit}, Script: `
create c0
setdev 0
pinit c0 dev=0
kinit c0 dev=-1 gen=1
kinit c0 dev=0 gen=0
kinit c0 dev=0 gen=1 cfg=null
create c1
kinit c1 dev=0 gen=1
kinit c1 dev=-1 gen=1
kinit c1 dev=0 gen=0
finalize c1
kinit c1 dev=-1 gen=1
kinit c1 dev=0 gen=1 aicpu=halfptr
`},
	// V-PREP-2's refusals come first in every state: fresh, program,
	// Closed, and on a thread with another device.
	{Name: "v-prep-2/every-state", Rules: []model.Rule{model.RVPrep2, model.REPrep}, Script: `
create c0
prepare c0 img=valid()+short(1)
prepare c0 img=null
prepare c0 img=valid() out=null
prepare c0 img=valid()+mis(4)
pinit c0 dev=0
prepare c0 img=valid()+short(1)
prepare c0 img=null
prepare c0 img=valid()+mis(4)
setdev 0
create c1
kinit c1 dev=0 gen=1
finalize c1
prepare c1 img=valid()+short(1)
prepare c1 img=valid() out=null
setdev 1
create c2
kinit c2 dev=1 gen=2
setdev 0
prepare c2 img=valid()+short(8)
`},
	// V-LAUNCH's refusals come first in every state.
	{Name: "v-launch/every-state", Rules: []model.Rule{model.RVLaunch}, Script: `
create c0
launch c0 id=0 args=null stream=s0
launch c0 id=0 stream=null
pinit c0 dev=0
launch c0 id=0 args=null stream=s0
launch c0 id=0 stream=null
launch c0 id=-5 stream=s0
setdev 0
create c1
kinit c1 dev=0 gen=1
launch c1 id=0 args=null stream=s0
launch c1 id=0 stream=null
finalize c1
launch c1 id=0 args=null stream=s0
launch c1 id=-1 stream=s0
`},
	// V-IMG reads nothing outside the span: images whose last byte
	// precedes a page no access is allowed to (+edge), a name length and a
	// child header that reach past the span, and a span that wraps.
	{Name: "v-img/edges", Rules: []model.Rule{model.RVImg}, Profiles: tmrOnly, Shared: map[string]string{
		"prepare c0 img=valid()+defect(fname-far)+edge": "a length that reaches the byte after the span shows that V-IMG.8 is checked before that byte is read " +
			"(a read faults there); the name's own NUL breaks V-IMG.10 too, and fname-long breaks V-IMG.8 alone",
	}, Script: prelude + `
prepare c0 img=valid()+edge
prepare c0 img=valid(c=1)+edge
prepare c0 img=valid()+defect(fname-far)+edge
prepare c0 img=valid(c=1)+defect(child-header)+edge
prepare c0 img=wrap
`},
	// V-IMG step 2's sets, in and out: every direction, 128 scalars, 256
	// entries; 4 and -1 are no direction.
	{Name: "v-img/signature-values", Rules: []model.Rule{model.RVImg}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid(t=3,io)
prepare c0 img=valid(t=6,s=2,io)
prepare c0 img=valid(s=128)
prepare c0 img=valid(t=128,s=128)
prepare c0 img=valid(t=1)+defect(sigval)
prepare c0 img=valid(t=1)+defect(sigval-neg)
launch c0 id=0 stream=s0
launch c0 id=3 stream=s0
`},
	// V-IMG inspects nothing else: padding, bytes after a name's NUL, child
	// signature values and resolved_addr may hold anything.
	{Name: "v-img/unchecked-fields", Rules: []model.Rule{model.RVImg}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()+byte(9370,255)
prepare c0 img=valid()+byte(1052,65)
prepare c0 img=valid(c=1)+u32(9376,7)
prepare c0 img=valid(c=1)+u32(9512,1)
prepare c0 img=valid(c=1)+u32(9516,4096)
`},
	// V-CFG's enumerated rules, in and out: threads 0, 2..4 and not 1, 5
	// or -1; swimlane 0..4 and not 5 or -1.
	{Name: "v-cfg/values", Rules: []model.Rule{model.RVCfg}, Script: `
create c0
setdev 0
kinit c0 dev=0 gen=1 cfg=threads=-1
kinit c0 dev=0 gen=1 cfg=threads=1
kinit c0 dev=0 gen=1 cfg=threads=5
kinit c0 dev=0 gen=1 cfg=swim=-1+prefix
kinit c0 dev=0 gen=1 cfg=swim=5+prefix
kinit c0 dev=0 gen=1 cfg=swim=4+prefix
create c1
setdev 1
kinit c1 dev=1 gen=2 cfg=threads=2
create c2
setdev 2
kinit c2 dev=2 gen=3 cfg=threads=3+swim=3+prefix
`},
	// L-1: every new context, nine of them live at once, is non-NULL and
	// unlatched, and commits nothing.
	{Name: "l-1/fresh-contexts", Rules: []model.Rule{model.RL1, model.RM7}, Profiles: allProfiles, Script: `
create c0
committed c0
create c1
create c2
create c3
create c4
create c5
create c6
create c7
create c8
committed c8
pinit c8 dev=0
finalize c8
setdev 1
kinit c0 dev=1 gen=1
finalize c0
`},
	// L-3: a poisoned kernel context stays kernel-latched.
	{Name: "l-3/latch-survives-poison", Rules: []model.Rule{model.RL3, model.RK4}, Needs: CapInject, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
inject site=3 count=1 code=-1234
prepare c0 img=valid(x=1)
pinit c0 dev=0
acl c0 dev=0
finalize c0
`},
	// K-3: the first prepare makes launch admissible, and later ones keep
	// it so.
	{Name: "k-3/phases", Rules: []model.Rule{model.RK3}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
launch c0 id=0 stream=s0
prepare c0 img=valid(t=1)
launch c0 id=1 stream=s0
launch c0 id=0 stream=s0
`},
	// E-KINIT's order: V-INIT before V-CFG, V-CFG before the state check.
	{Name: "e-kinit/order", Rules: []model.Rule{model.REKInit, model.RVInit, model.RVCfg}, Shared: map[string]string{
		"kinit c0 dev=-1 gen=1 cfg=threads=9": "V-INIT before V-CFG (E-KINIT.1) where both answer IA: the order shows only to a build that answers " +
			"V-CFG.1's tolerated INTERNAL first; v-init/arguments and v-cfg/values break V-INIT.3 and V-CFG.1 alone",
	}, Script: `
create c0
setdev 0
kinit c0 dev=0 gen=0 cfg=pmu
kinit c0 dev=-1 gen=1 cfg=threads=9
kinit c0 dev=0 gen=1 cfg=null
create c1
pinit c1 dev=0
kinit c1 dev=0 gen=1 cfg=pmu
kinit c1 dev=0 gen=1 cfg=swim=5+prefix
kinit c1 dev=0 gen=1
`},
	// E-KINIT step 4: an init refused for the context's state takes
	// nothing, no claim in particular.
	{Name: "e-kinit/refusals-take-nothing", Rules: []model.Rule{model.REKInit, model.REClaim}, Profiles: tmrOnly, Script: `
create c0
pinit c0 dev=3
setdev 3
kinit c0 dev=3 gen=1
create c1
kinit c1 dev=3 gen=2
finalize c1
create c2
setdev 4
kinit c2 dev=4 gen=3
setdev 5
kinit c2 dev=5 gen=4
create c3
kinit c3 dev=5 gen=5
`},
	// E-LAUNCH step 2: a context that is not a kernel context refuses
	// launch with IS.
	{Name: "e-launch/not-dispatching", Rules: []model.Rule{model.RELaunch, model.RK1}, Profiles: tmrOnly, Script: `
create c0
launch c0 id=0 stream=s0
pinit c0 dev=0
launch c0 id=0 stream=s0
`},
	// E-LAUNCH step 7: a counted tensor outside DEVICE space, HOST or any
	// other value, anywhere among the first tensor_count.
	{Name: "e-launch/address-space", Rules: []model.Rule{model.RELaunch}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid(t=3)
launch c0 id=0 args=match(alien) stream=s0
launch c0 id=0 args=match(host) stream=s0
launch c0 id=0 stream=s0
`},
	// E-FIN step 3: finalize of a context with nothing to release returns
	// 0 and changes nothing; committed memory is 0 after it.
	{Name: "e-fin/nothing-to-release", Rules: []model.Rule{model.REFin, model.RM7}, Profiles: allProfiles, Script: `
create c0
finalize c0
committed c0
pinit c0 dev=0
finalize c0
committed c0
finalize c0
pinit c0 dev=1
finalize c0
setdev 0
create c1
kinit c1 dev=0 gen=1
finalize c1
finalize c1
create c2
finalize c2
kinit c2 dev=0 gen=2
finalize c2
`},
	// E-DESTROY: a destroy refused for an outstanding run leaves the
	// program context as it was: its run, its callables, its device.
	{Name: "e-destroy/refused-leaves-program-context", Rules: []model.Rule{model.REDestroy, model.REFin}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
register c0 id=0 img=prog
register c0 id=1 img=prog
prepare_run c0 st=0 id=0
destroy c0
launch_run c0 st=0
wait_run c0 st=0
finalize_run c0 st=0
prepare_run c0 st=1 id=1
finalize_run c0 st=1
finalize c0
destroy c0
`},
	// E-DESTROY: a destroy refused for an outstanding run leaves the
	// program context's device memory as it was: both allocations still
	// hold the patterns written before it, and committed memory reads the
	// same (E-DESTROY.3). After the run is finalized, finalize frees them
	// (committed 0) and destroy goes through.
	{Name: "e-destroy/refused-keeps-device-memory", Rules: []model.Rule{model.REDestroy, model.REProg}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
dev_alloc c0 a=0 size=4096
dev_alloc c0 a=1 size=100
dev_write c0 a=0 seed=1
dev_write c0 a=1 seed=2
dev_read c0 a=0
register c0 id=0 img=prog
prepare_run c0 st=0 id=0
committed c0
destroy c0
committed c0
dev_read c0 a=0
dev_read c0 a=1
dev_write c0 a=1 seed=3
dev_read c0 a=1
finalize_run c0 st=0
dev_free c0 a=1
finalize c0
committed c0
destroy c0
`},
	// E-PINIT step 2: the prewarm config held to V-CFG's thread, swimlane,
	// prefix, NUL and ring rules, each value in and out, and not to its
	// kernel-only diagnostics rule.
	{Name: "e-pinit/prewarm", Rules: []model.Rule{model.REPInit}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 prewarm=threads=5
pinit c0 dev=0 prewarm=threads=1
pinit c0 dev=0 prewarm=threads=-1
pinit c0 dev=0 prewarm=swim=5+prefix
pinit c0 dev=0 prewarm=swim=-1+prefix
pinit c0 dev=0 prewarm=depgen
pinit c0 dev=0 prewarm=swim=1
pinit c0 dev=0 prewarm=unterm
pinit c0 dev=0 prewarm=ring=badtask
pinit c0 dev=0 prewarm=ring=badheap
pinit c0 dev=0 prewarm=ring=baddep
pinit c0 dev=0 prewarm=ring=badpow2
pinit c0 dev=0 prewarm=ring=bigdep
pinit c0 dev=0 prewarm=ring=badheap3
pinit c0 dev=0 prewarm=pmu+dump+scope+anchors
finalize c0
pinit c0 dev=0 prewarm=threads=4+swim=4+depgen+prefix+ring=good
finalize c0
pinit c0 dev=0 prewarm=ring=winonly
finalize c0
`},
	// E-ACL and E-PINIT: the call leaves device_id the thread's current
	// device; a repeat with another device switches it.
	{Name: "e-acl/current-device", Rules: []model.Rule{model.REACL, model.REPInit}, Profiles: allProfiles, Script: `
create c0
setdev 0
acl c0 dev=2
getdev
acl c0 dev=3
getdev
create c1
pinit c1 dev=4
getdev
finalize c1
`},
	// E-PROG: the run family with valid arguments, prepare to finalize, as
	// upstream's code answers it.
	{Name: "e-prog/run-family", Rules: []model.Rule{model.REProg, model.REFin}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
register c0 id=0 img=prog
unregister c0 id=0
register c0 id=0 img=prog
prepare_run c0 st=0 id=5
prepare_run c0 st=0 id=0
wait_run c0 st=0
launch_run c0 st=0
wait_run c0 st=0
poll_run c0 st=0
finalize_run c0 st=0
register c0 id=2 img=valid(t=1)
prepare_run c0 st=2 id=2
finalize_run c0 st=2
run c0 st=1 id=0
finalize c0
`},
	// E-PROG.21/22: the program registry's id bound, both sides of it on
	// each revision: 63 and 64 (a legacy build's 64), 8191 and 8192 (the
	// target's 8192), and -1; an id refused registers nothing (its run is
	// refused as unregistered, and the last id still registers after it).
	{Name: "e-prog/register-id-bound", Rules: []model.Rule{model.REProg}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
register c0 id=63 img=prog
register c0 id=64 img=prog
register c0 id=8191 img=prog
register c0 id=8192 img=prog
register c0 id=-1 img=prog
run c0 st=0 id=64
unregister c0 id=63
register c0 id=63 img=prog
finalize c0
`},
	// E-PROG.23-27: with a live program init, each entry with an argument
	// no entry may act on (one per call: NULL run storage, a NULL pointer,
	// device address 0, id -1) is refused with IA and changes nothing (a
	// copy with a NULL host pointer leaves the allocation as it was); device_malloc_ctx
	// allocates and device_free_ctx gives the bytes back; the dlopen count
	// counts registrations and a finalize restarts it; an id registered
	// already is refused and the first registration kept.
	{Name: "e-prog/live-init-arguments", Rules: []model.Rule{model.REProg}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
committed c0
prog c0 fn=unregister
prog c0 fn=launch_run
prog c0 fn=poll_run
prog c0 fn=wait_run
prog c0 fn=finalize_run
prog c0 fn=meminfo
prog c0 fn=copy_to
prog c0 fn=copy_from
prog c0 fn=malloc
prog c0 fn=free
committed c0
dev_alloc c0 a=0 size=64
dev_write c0 a=0 seed=1
dev_write c0 a=0 seed=2 host=null
dev_read c0 a=0 host=null
dev_read c0 a=0
dev_free c0 a=0
prog c0 fn=aicpu_dlopen
register c0 id=1 img=prog
register c0 id=1 img=prog
prog c0 fn=aicpu_dlopen
register c0 id=2 img=prog
unregister c0 id=1
register c0 id=1 img=prog
prog c0 fn=aicpu_dlopen
finalize c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
prog c0 fn=aicpu_dlopen
register c0 id=1 img=prog
prog c0 fn=aicpu_dlopen
finalize c0
`},
	// E-PROG.28: the copies reach every comm window the runtime mapped:
	// a base window (through either handle's mapping of the session), a
	// derived one and past its end inside the base window, a domain
	// window, a global domain's own window (issue #38: upstream's Worker
	// copies into it) and a peer's its import mapped. A span past a
	// window's end, and each window after its release (the address it last
	// had), is refused, and the other mapping of its segment still reads
	// what it held.
	{Name: "e-prog/copy-comm-windows", Rules: []model.Rule{model.REProg, model.REComm}, Profiles: allProfiles, Needs: CapComm | CapPeek, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
cinit h0 rank=0 nranks=1 path=p0
cinit h1 rank=0 nranks=1 path=p0
calloc h0 win=64
calloc h1 win=64
ccopy c0 h0 idx=0 off=8 put=77
ccopy c0 h0 idx=0 off=8
cmem h1 idx=0 off=8
ccopy c0 h1 idx=0 off=56 put=5
ccopy c0 h0 idx=0 off=56
ccopy c0 h0 idx=0 off=64 put=9
ccopy c0 h0 idx=0 off=64
cderive h0 n=1 rank=0 off=32 win=16
ccopy c0 h0.d0 idx=0 put=6
ccopy c0 h0 idx=0 off=32
ccopy c0 h0.d0 idx=0 off=16 put=7
ccopy c0 h1 idx=0 off=48
dalloc h0 a=1 n=1 rank=0 win=64
dalloc h1 a=1 n=1 rank=0 win=64
ccopy c0 h0.a1 idx=0 put=11
ccopy c0 h1.a1 idx=0
drelease h0 a=1 n=1 rank=0
ccopy c0 h0.a1 idx=0 put=13
ccopy c0 h0.a1 idx=0
ccopy c0 h1.a1 idx=0
gprep d=1 rank=0 n=2 win=64
gprep d=2 rank=1 n=2 win=64
ccopy c0 d1.local idx=0 put=21
cmem d1.local idx=0
gimport d=1 descs=d1,d2
ccopy c0 d1 idx=1 off=8 put=22
ccopy c0 d2.local idx=0 off=8
ccopy c0 d1 idx=0
ccopy c0 d2.local idx=0 put=23
grelease d=2
ccopy c0 d2.local idx=0 put=24
ccopy c0 d1 idx=1
ccopy c0 d1.local idx=0
grelease d=1
ccopy c0 d1.local idx=0 put=25
ccopy c0 h0 idx=0 off=8
drelease h1 a=1 n=1 rank=0
cdestroy h0
ccopy c0 h0 idx=0 off=8 put=30
ccopy c0 h1 idx=0 off=8
cdestroy h1
finalize c0
`},
	// E-COMM: the comm family, each refusal with an input that breaks one
	// clause, both sides of each bound a single rank reaches. A session of
	// the checker's has one rank (or several handles of one process): the
	// waits for peers are the project's own tests' (E-COMM's Profiles).
	{Name: "e-comm/init", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm, Script: `
cinit h0 rank=0 nranks=1 path=null
cinit h0 rank=-1 nranks=1 path=p0
cinit h0 rank=0 nranks=0 path=p0
cinit h0 rank=1 nranks=1 path=p0
cinit h0 rank=0 nranks=65 path=p0
cinit h0 rank=63 nranks=64 path=p0
cinit h1 rank=0 nranks=1 path=p1 stream=s0
cinit h2 rank=0 nranks=1 path=p1
cdestroy h1
csize h2
cdestroy h2
cdestroy h0
`},
	{Name: "e-comm/alloc-windows", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm, Script: `
cinit h0 rank=0 nranks=1 path=p0
csize h0
cbase h0
calloc null win=64
calloc h0 win=64 out=null
calloc h0 win=64
cbase null
cbase h0 out=null
csize null
csize h0 out=null
cbase h0
csize h0
calloc h0 win=64
csize h0
cinit h1 rank=0 nranks=1 path=p0
calloc h1 win=32
csize h1
cdestroy h1
cdestroy h0
`},
	{Name: "e-comm/shared-windows", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm | CapPeek, Script: `
cinit h0 rank=0 nranks=1 path=p0
calloc h0 win=64
cinit h1 rank=0 nranks=1 path=p0
calloc h1 win=64
cmem h0 idx=0 off=8 put=77
cmem h1 idx=0 off=8
cmem h1 idx=0 off=56
cmem h1 idx=0 off=16 put=78
cmem h0 idx=0 off=16
cdestroy h0
cdestroy h1
`},
	{Name: "e-comm/derive", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm, Script: `
cinit h0 rank=0 nranks=1 path=p0
cderive h0 n=1 rank=0 off=0 win=0
calloc h0 win=64
cderive null n=1 rank=0 off=0 win=64
cderive h0 n=1 rank=0 off=0 win=64 ids=null
cderive h0 n=1 rank=0 off=0 win=64 out=null
cderive h0 n=0 rank=0 off=0 win=64
cderive h0 n=65 rank=0 off=0 win=64
cderive h0 n=4294967297 rank=0 off=0 win=64
cderive h0 n=64 rank=63 off=0 win=64
cderive h0 n=2 rank=2 off=0 win=64
cderive h0 n=2 rank=1 off=0 win=64
cderive h0 n=1 rank=0 off=1 win=64
cderive h0 n=1 rank=0 off=0 win=65
cderive h0 n=1 rank=0 off=32 win=32
cderive h0 n=1 rank=0 off=18446744073709551615 win=1
cderive h0 n=2 rank=0 off=0 win=64 ids=fill(0)+at(1,1)
cderive h0 n=1 rank=0 off=0 win=64 ids=fill(0)+at(1,1)
cdestroy h0
`},
	{Name: "e-comm/derive-windows", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm | CapPeek, Script: `
cinit h0 rank=0 nranks=1 path=p0
calloc h0 win=128
cderive h0 n=3 rank=2 off=64 win=64
cmem h0 idx=0 off=64 put=5
cmem h0.d0 idx=2
cmem h0.d0 idx=1 off=8 put=6
cmem h0 idx=0 off=72
cdestroy h0
`},
	{Name: "e-comm/barrier", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm, Script: `
cinit h0 rank=0 nranks=1 path=p0
cbarrier null
cbarrier h0
calloc h0 win=0
cbarrier h0
cbarrier h0
cdestroy h0
`},
	// Ranks as threads: every call that waits for its session's other
	// ranks is parked on a thread of its own until the last arrives
	// (E-COMM.8 for the windows, .20 for the barrier, .58 for the destroy
	// barrier), in an order other than the ranks'.
	{Name: "e-comm/ranks-barrier", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm, Script: `
cinit h0 rank=0 nranks=3 path=p0
cinit h1 rank=1 nranks=3 path=p0
cinit h2 rank=2 nranks=3 path=p0
calloc h1 win=64
calloc h0 win=64
calloc h2 win=64
cbarrier h2
cbarrier h0
cbarrier h1
cbarrier h0
cbarrier h1
cbarrier h2
cdestroy h1
cdestroy h2
cdestroy h0
`},
	// What one rank writes into a window of its session, a domain
	// allocation or a derived context, the other reads through its own
	// (E-COMM.6, .17, .27).
	{Name: "e-comm/ranks-windows", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm | CapPeek, Script: `
cinit h0 rank=0 nranks=2 path=p0
cinit h1 rank=1 nranks=2 path=p0
calloc h0 win=128
calloc h1 win=128
cmem h0 idx=1 off=8 put=77
cmem h1 idx=1 off=8
cmem h1 idx=0 off=64 put=5
cmem h0 idx=0 off=64
cderive h1 n=2 rank=1 off=64 win=64 ids=fill(0)+at(1,1)
cmem h1.d0 idx=0
cmem h1.d0 idx=1 off=8 put=9
cmem h0 idx=1 off=72
dalloc h1 a=1 n=2 rank=1 win=64 ids=fill(0)+at(1,1)
dalloc h0 a=1 n=2 rank=0 win=64
cmem h0.a1 idx=1 put=3
cmem h1.a1 idx=1
cmem h1.a1 idx=0 off=8 put=4
cmem h0.a1 idx=0 off=8
drelease h0 a=1 n=2 rank=0
drelease h1 a=1 n=2 rank=1
cdestroy h0
cdestroy h1
`},
	// Only the last rank out unlinks the session (E-COMM.58): a handle
	// that joins while a rank is still in its destroy barrier shares the
	// old windows; once the last is out a new handle gets a new segment.
	{Name: "e-comm/ranks-last-out", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm | CapPeek, Script: `
cinit h0 rank=0 nranks=2 path=p0
cinit h1 rank=1 nranks=2 path=p0
calloc h0 win=64
calloc h1 win=64
cmem h0 idx=0 put=7
cdestroy h0
cinit h2 rank=0 nranks=1 path=p0
calloc h2 win=64
cmem h2 idx=0
cdestroy h1
cmem h2 idx=0
cdestroy h2
cinit h3 rank=0 nranks=1 path=p0
calloc h3 win=64
cmem h3 idx=0
cdestroy h3
`},
	{Name: "e-comm/domain-windows", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm, Script: `
cinit h0 rank=3 nranks=8 path=p0
dalloc null a=1 n=1 rank=0 win=64 ids=fill(3)
dalloc h0 a=1 n=1 rank=0 win=64 ids=null
dalloc h0 a=1 n=1 rank=0 win=64 ids=fill(3) out=null
dalloc h0 a=1 n=1 rank=0 win=64 ids=fill(3) base=null
dalloc h0 a=1 n=0 rank=0 win=64 ids=fill(3)
dalloc h0 a=1 n=65 rank=0 win=64 ids=fill(3)
dalloc h0 a=1 n=1 rank=1 win=64 ids=fill(3)
dalloc h0 a=1 n=1 rank=0 win=0 ids=fill(3)
dalloc h0 a=1 n=1 rank=0 win=64 ids=fill(2)
dalloc h0 a=1 n=1 rank=0 win=64 ids=fill(3)
dalloc h0 a=1 n=1 rank=0 win=64 ids=fill(3)
dalloc h0 a=2 n=1 rank=0 win=128 ids=fill(2)+at(0,3)
drelease h0 a=1 n=1 rank=0
drelease h0 a=2 n=1 rank=0
cdestroy h0
`},
	{Name: "e-comm/domain-zeroes", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm | CapPeek, Script: `
cinit h0 rank=0 nranks=1 path=p0
cinit h1 rank=0 nranks=1 path=p0
dalloc h0 a=1 n=1 rank=0 win=64
cmem h0.a1 idx=0 put=5
cmem h0.a1 idx=0 off=56 put=6
dalloc h1 a=1 n=1 rank=0 win=64
cmem h0.a1 idx=0
cmem h0.a1 idx=0 off=56
cmem h1.a1 idx=0 put=9
cmem h0.a1 idx=0
drelease h0 a=1 n=1 rank=0
drelease h1 a=1 n=1 rank=0
cdestroy h0
cdestroy h1
`},
	{Name: "e-comm/domain-release", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm, Script: `
cinit h0 rank=0 nranks=1 path=p0
dalloc h0 a=4 n=1 rank=0 win=64
drelease null a=4 n=1 rank=0
drelease h0 a=5 n=1 rank=0
drelease h0 a=4 n=2 rank=0
drelease h0 a=4 n=1 rank=1
drelease h0 a=4 n=1 rank=0
drelease h0 a=4 n=1 rank=0
dalloc h0 a=4 n=1 rank=0 win=64
drelease h0 a=4 n=1 rank=0
cdestroy h0
`},
	{Name: "e-comm/global-prepare", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm, Script: `
gprep d=0 rank=0 n=1 win=64
gprep d=1 rank=0 n=0 win=64
gprep d=1 rank=0 n=65 win=64
gprep d=1 rank=1 n=1 win=64
gprep d=1 rank=0 n=1 win=0
gprep d=1 rank=0 n=1 win=64 profile=2
gprep d=1 rank=0 n=1 win=64 profile=0
gprep d=1 rank=0 n=1 win=64 out=null
gprep d=1 rank=0 n=1 win=64 base=null
gprep d=1 rank=63 n=64 win=64
gprep d=1 rank=0 n=1 win=64
gprep d=2 rank=0 n=1 win=1
grelease d=1
grelease d=2
`},
	{Name: "e-comm/global-import", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm, Shared: map[string]string{
		"gimport d=1 descs=d1,d2 count=3": "the upper side of E-COMM.43: a third descriptor of a two-rank domain cannot pass the descriptor checks " +
			"(E-COMM.45 to E-COMM.49: it is all zero, and any rank it named would repeat one); count=1 breaks E-COMM.43 alone",
	}, Script: `
gprep d=1 rank=0 n=2 win=256
gprep d=2 rank=1 n=2 win=256
gprep d=3 rank=1 n=2 win=128
gimport d=9 descs=d1,d2
gimport d=1 descs=null count=2
gimport d=1 descs=d1,d2 out=null
gimport d=1 descs=d1,d2 count=1
gimport d=1 descs=d1,d2 count=3
gimport d=1 descs=d1,d2.ver=3
gimport d=1 descs=d1.prof=2,d2
gimport d=1 descs=d1,d2.n=3
gimport d=1 descs=d1,d2.rank=2
gimport d=1 descs=d1,d3
gimport d=1 descs=d1,d2.size=257
gimport d=1 descs=d1.hs=0,d2
gimport d=1 descs=d1,d2.hs=257
gimport d=1 descs=d1,d2.rank=0
gimport d=1 descs=d1,d2.name=bad
gimport d=1 descs=d1.name=bad,d2.hs=256
gimport d=1 descs=d1,d2
gimport d=2 descs=d1,d2
gprep d=4 rank=0 n=1 win=8
gimport d=4 descs=d4
grelease d=1
grelease d=2
grelease d=3
grelease d=4
`},
	{Name: "e-comm/global-windows", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm | CapPeek, Script: `
gprep d=1 rank=0 n=2 win=64
gprep d=2 rank=1 n=2 win=64
cmem d2.local idx=0 off=8 put=11
grelease d=2
gimport d=1 descs=d1,d2
gprep d=2 rank=1 n=2 win=64
gimport d=1 descs=d2,d1
cmem d1 idx=1 off=8
cmem d2.local idx=0 off=8 put=12
cmem d1 idx=1 off=8
cmem d1 idx=0 put=3
cmem d1.local idx=0
grelease d=1
grelease d=2
`},
	{Name: "e-comm/global-release", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm, Script: `
grelease d=0
grelease d=5
gprep d=5 rank=0 n=1 win=64
grelease d=5
gimport d=5 descs=d5
gprep d=5 rank=0 n=1 win=64
grelease d=5
`},
	{Name: "e-comm/destroy", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm, Script: `
cdestroy null
cinit h0 rank=0 nranks=1 path=p0
cdestroy h0
cinit h0 rank=0 nranks=1 path=p0
calloc h0 win=64
cderive h0 n=1 rank=0 off=0 win=64
cdestroy h0
cinit h0 rank=0 nranks=1 path=p0
calloc h0 win=128
cdestroy h0
`},
	// A destroy releases the handle's domain allocations locally and the
	// last rank out unlinks the session: a later handle of the path gets
	// new, zeroed segments, while a handle of the old ones still reads
	// them. The allocation is released before the last destroys, so that a
	// build that keeps the names leaves none behind.
	{Name: "e-comm/destroy-unlinks", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm | CapPeek, Script: `
cinit h0 rank=0 nranks=1 path=p0
cinit h1 rank=0 nranks=1 path=p0
calloc h0 win=64
calloc h1 win=64
cmem h0 idx=0 put=9
dalloc h0 a=1 n=1 rank=0 win=64
dalloc h1 a=1 n=1 rank=0 win=64
cmem h1.a1 idx=0 put=5
cdestroy h0
cinit h2 rank=0 nranks=1 path=p0
calloc h2 win=64
cmem h2 idx=0
dalloc h2 a=1 n=1 rank=0 win=64
cmem h1.a1 idx=0
cmem h1 idx=0
drelease h2 a=1 n=1 rank=0
cdestroy h1
cdestroy h2
`},
	// The timeouts (E-COMM.9, .21, .29, .34, .59): under a short bound
	// (ctimeout, the hook simabi_comm_timeout_ms) a call whose peers never
	// come is made, gives up with -1 and leaves what upstream leaves; a
	// later peer sees it. ctimeout ms=120000 gives back upstream's bound,
	// under which the ranks' calls are parked again.
	{Name: "e-comm/timeout-alloc", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm | CapCommTimeout, Script: `
ctimeout ms=5
cinit h0 rank=0 nranks=2 path=p0
cinit h1 rank=1 nranks=2 path=p0
calloc h0 win=64
csize h0
calloc h1 win=64
cinit h2 rank=0 nranks=1 path=p1
calloc h2 win=64
calloc h2 win=128
csize h2
ctimeout ms=120000
cdestroy h0
cdestroy h1
cdestroy h2
`},
	{Name: "e-comm/timeout-barrier", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm | CapCommTimeout, Script: `
cinit h0 rank=0 nranks=2 path=p0
cinit h1 rank=1 nranks=2 path=p0
calloc h0 win=64
calloc h1 win=64
ctimeout ms=5
cbarrier h1
cbarrier h0
cbarrier h0
cbarrier h1
ctimeout ms=120000
cbarrier h0
cbarrier h1
cdestroy h0
cdestroy h1
`},
	{Name: "e-comm/timeout-domain", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm | CapCommTimeout, Script: `
cinit h0 rank=0 nranks=2 path=p0
cinit h1 rank=1 nranks=2 path=p0
ctimeout ms=5
dalloc h0 a=1 n=2 rank=0 win=64
dalloc h1 a=1 n=2 rank=1 win=128 ids=fill(0)+at(1,1)
dalloc h1 a=1 n=2 rank=1 win=64 ids=fill(0)+at(1,1)
dalloc h0 a=1 n=2 rank=0 win=64
ctimeout ms=120000
drelease h0 a=1 n=2 rank=0
drelease h1 a=1 n=2 rank=1
cdestroy h0
cdestroy h1
`},
	{Name: "e-comm/timeout-release", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm | CapCommTimeout, Script: `
cinit h0 rank=0 nranks=2 path=p0
cinit h1 rank=1 nranks=2 path=p0
dalloc h0 a=1 n=2 rank=0 win=64
dalloc h1 a=1 n=2 rank=1 win=64 ids=fill(0)+at(1,1)
ctimeout ms=5
drelease h0 a=1 n=2 rank=0
drelease h0 a=1 n=2 rank=0
drelease h1 a=1 n=2 rank=1
cdestroy h0
cdestroy h1
`},
	{Name: "e-comm/timeout-destroy", Rules: []model.Rule{model.REComm}, Profiles: allProfiles, Needs: CapComm | CapCommTimeout, Script: `
cinit h0 rank=0 nranks=2 path=p0
cinit h1 rank=1 nranks=2 path=p0
calloc h0 win=64
calloc h1 win=64
ctimeout ms=5
cdestroy h0
cdestroy h1
`},
	// M-5 at the limit: a prepare that fails after the budget placed it
	// (fault site 2, the copy) charges nothing, not even the tail of the
	// block it would have gone into. 1023 images of exactly 2 MiB fill
	// whole blocks; a 1 MiB image opens the last block of the budget,
	// leaving a 1 MiB tail. After a failed 1 MiB prepare, the next fills
	// that tail exactly (a runtime that kept the failed one's place refuses
	// it with BYTES), and any image after it is refused.
	{Name: "m-5/failed-prepare-keeps-tail", Rules: []model.Rule{model.RM5, model.RS1}, Needs: CapInject, Profiles: tmrOnly, Slow: true, Script: prelude + `
prepare c0 img=valid(b=2087776) rep=1023
prepare c0 img=valid(b=1039200)
inject site=2 count=1 code=-1300
prepare c0 img=valid(b=1039200)
committed c0
prepare c0 img=valid(b=1039200)
prepare c0 img=valid()
launch c0 id=1024 stream=s0
`},
	// M-5: an image above 2 MiB is charged its own block of exactly
	// align_up(size, 64), not whole 2 MiB blocks: 520 of them fit.
	{Name: "m-5/large-blocks", Rules: []model.Rule{model.RM5}, Profiles: tmrOnly, Slow: true, Script: prelude + `
prepare c0 img=valid(b=2097152) rep=520
launch c0 id=519 stream=s0
`},
	// D-2 for an init-failed context: its finalize checks the device too.
	{Name: "d-2/init-failed", Rules: []model.Rule{model.RD2}, Profiles: tmrOnly, Script: `
create c0
setdev 1
kinit c0 dev=0 gen=1
finalize c0
setdev 0
finalize c0
destroy c0
`},
	// What a legacy build is held to (docs/contract.md "Revisions"): re-init on the
	// attached device, another device refused until finalize, a prewarm
	// whose ring sizing is refused, and ensure_acl_ready_ctx.
	{Name: "legacy/program-init", Rules: []model.Rule{model.REPInit, model.REFin}, Profiles: []model.Profile{model.ProfileLegacy}, Script: `
create c0
pinit c0 dev=0
pinit c0 dev=0
pinit c0 dev=1
finalize c0
pinit c0 dev=1
finalize c0
finalize c0
create c1
pinit c1 dev=-1
pinit c1 dev=0 prewarm=ring=badtask
pinit c1 dev=0
finalize c1
destroy c1
destroy c0
`},
	// E-PROG.30: a copy whose span starts inside an allocation, or at its
	// end, and runs past it (by 1 byte, by 64, by 2^62, into the next
	// allocation) is refused and changes nothing: each allocation reads back
	// what was written before (the refusal probes read every one too), and
	// committed memory is where it was. Spans inside, and one ending exactly
	// at the end, copy (E-PROG.28).
	{Name: "e-prog/copy-past-end", Rules: []model.Rule{model.REProg}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
dev_alloc c0 a=0 size=64
dev_alloc c0 a=1 size=100
dev_write c0 a=0 seed=1
dev_write c0 a=1 seed=2
committed c0
dev_write c0 a=0 seed=3 off=0 len=65
dev_read c0 a=0
dev_write c0 a=0 seed=3 off=56 len=72
dev_read c0 a=0
dev_write c0 a=1 seed=4 off=8 len=huge
dev_read c0 a=1
dev_write c0 a=1 seed=4 off=100 len=8
dev_write c0 a=0 seed=5 cross=1
dev_read c0 a=0
dev_read c0 a=1
dev_read c0 a=0 off=0 len=65
dev_read c0 a=1 off=92 len=9
dev_read c0 a=1 cross=0
dev_read c0 a=0 off=8 len=56
dev_read c0 a=1 off=0 len=100
dev_write c0 a=1 seed=2 off=90 len=10
dev_read c0 a=1
committed c0
dev_free c0 a=0
dev_free c0 a=1
finalize c0
destroy c0
`},
	// E-PROG.31: copies of 0 bytes, at an allocation's start, end and
	// inside, return 0 and copy nothing.
	{Name: "e-prog/copy-zero-bytes", Rules: []model.Rule{model.REProg}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
dev_alloc c0 a=0 size=64
dev_write c0 a=0 seed=1
dev_write c0 a=0 seed=2 off=64 len=0
dev_write c0 a=0 seed=2 off=8 len=0
dev_read c0 a=0 off=0 len=0
dev_read c0 a=0 off=64 len=0
dev_read c0 a=0
dev_free c0 a=0
finalize c0
destroy c0
`},
	// E-PROG.32: device_free_ctx of a pointer inside an allocation, of one
	// no allocation had, of a freed one and of another context's
	// allocation frees nothing: each allocation reads back what was
	// written, and committed memory of both contexts is where it was.
	{Name: "e-prog/free-not-an-allocation", Rules: []model.Rule{model.REProg}, Profiles: allProfiles, Script: `
create c0
create c1
pinit c0 dev=0 aicpu=bytes aicore=bytes
pinit c1 dev=1 aicpu=bytes aicore=bytes
dev_alloc c0 a=0 size=64
dev_alloc c0 a=1 size=100
dev_alloc c1 a=2 size=64
dev_write c0 a=0 seed=1
dev_write c1 a=2 seed=3
dev_free c0 a=1
committed c0
committed c1
dev_free c0 a=0 at=8
dev_read c0 a=0
dev_free c0 a=0 at=63
dev_free c0 a=0 ptr=unknown
dev_free c0 a=1 ptr=freed
dev_free c0 a=2 ptr=foreign
committed c1
dev_read c0 a=0
dev_read c1 a=2
dev_free c0 a=0
dev_free c1 a=2
finalize c0
finalize c1
destroy c0
destroy c1
`},
	// E-PROG.33: device_malloc_ctx of 0 bytes returns a pointer and
	// charges nothing; copies of 0 bytes at it return 0 and its free gives
	// nothing back.
	{Name: "e-prog/malloc-zero", Rules: []model.Rule{model.REProg}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
committed c0
dev_alloc c0 a=0 size=0
dev_read c0 a=0
dev_write c0 a=0 seed=1
dev_free c0 a=0
finalize c0
destroy c0
`},
	// E-PROG.34: device_malloc_ctx of 2^62 bytes returns NULL and charges
	// nothing; the next allocation is taken.
	{Name: "e-prog/malloc-huge", Rules: []model.Rule{model.REProg}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
committed c0
dev_alloc c0 a=0 size=huge
dev_alloc c0 a=0 size=64
dev_free c0 a=0
finalize c0
destroy c0
`},
	{Name: "legacy/acl", Rules: []model.Rule{model.REACL, model.RS3}, Profiles: []model.Profile{model.ProfileLegacy}, Script: `
create c0
acl c0 dev=0
acl c0 dev=1
acl c0 dev=-1
pinit c0 dev=0
finalize c0
acl null dev=0
prog null fn=comm_destroy
prog null fn=comm_create
destroy c0
`},
}

var catalogueOnce sync.Once

// Catalogue returns the directed checks, parsed.
func Catalogue() []Check {
	catalogueOnce.Do(func() {
		kills := claimedMutants()
		for i := range catalogue {
			catalogue[i].ops = op.MustParseScript(catalogue[i].Script)
			catalogue[i].Kills = kills[catalogue[i].Name]
		}
	})
	out := make([]Check, len(catalogue))
	copy(out, catalogue)
	return out
}

// Mutants maps each mutant of docs/semantics.md §13 (the emitted runtime's,
// sim/emit) to the rule it breaks, from the clause table.
var Mutants = func() map[string]model.Rule {
	out := map[string]model.Rule{}
	for _, c := range clauseTable {
		for _, m := range c.Mutants {
			out[m] = c.Rule()
		}
	}
	return out
}()
