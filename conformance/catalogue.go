package conformance

import "sync"

// Check is a directed rule check: a named op sequence tagged with the rules
// it exercises and the mutants of docs/semantics.md §13 it is designed to
// kill. The model decides every expectation; a check only chooses the ops.
type Check struct {
	Name     string
	Rules    []Rule
	Kills    []string
	Needs    Caps      // capabilities without which the check is skipped
	Profiles []Profile // profiles it applies to (nil: tmr and refusing)
	Slow     bool      // takes more than a few milliseconds (M-4, M-5, X-2)
	Script   string
	ops      []Op
}

// Ops is the check's sequence.
func (c *Check) Ops() []Op { return c.ops }

// AppliesTo reports whether the check runs on a build of profile p.
func (c *Check) AppliesTo(p Profile) bool {
	if c.Profiles == nil {
		return p == ProfileTMR || p == ProfileRefusing
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
	tmrOnly     = []Profile{ProfileTMR}
	allProfiles = []Profile{ProfileTMR, ProfileRefusing, ProfileLegacy}
)

var catalogue = []Check{
	{Name: "v-prep-1/out-is-minus-one", Rules: []Rule{RVPrep1}, Kills: []string{"prep-keeps-out"}, Script: `
create c0
prepare c0 img=valid()+mis(1)
prepare c0 img=valid()
setdev 0
kinit c0 dev=0 gen=1
prepare c0 img=valid()+mis(3)
prepare c0 img=valid()+long(64)
prepare c0 img=valid()+defect(sigcount)
prepare c0 img=valid()
`},
	{Name: "v-prep-2/arguments", Rules: []Rule{RVPrep2}, Kills: []string{"prep-misaligned-ok"}, Script: prelude + `
prepare c0 img=valid()+mis(8)
prepare c0 img=valid(t=1)+mis(1)
prepare c0 img=valid()+short(1)
prepare c0 img=null
prepare c0 img=valid() out=null
prepare null img=valid()
prepare c0 img=valid()
`},
	{Name: "v-launch/arguments", Rules: []Rule{RVLaunch}, Kills: []string{"launch-id-8192-ok"}, Script: prelude + `
prepare c0 img=valid(t=1,s=1)
launch c0 id=8192 stream=s0
launch c0 id=-1 stream=s0
launch c0 id=0 args=null stream=s0
launch c0 id=0 stream=null
launch null id=0 stream=s0
launch c0 id=0 stream=s0
`},
	{Name: "v-img/defects", Rules: []Rule{RVImg}, Kills: []string{"img-trailing-ok", "img-dup-funcid-ok"}, Profiles: tmrOnly, Script: prelude + `
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
`},
	{Name: "v-init/arguments", Rules: []Rule{RVInit, RVSpan}, Kills: []string{"init-gen0-ok", "span-half-ok"}, Script: `
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
	{Name: "v-cfg/order", Rules: []Rule{RVCfg}, Kills: []string{"cfg-pmu-ok"}, Script: `
create c0
setdev 0
kinit c0 dev=0 gen=1 cfg=pmu
kinit c0 dev=0 gen=1 cfg=dump
kinit c0 dev=0 gen=1 cfg=scope
kinit c0 dev=0 gen=1 cfg=anchors
kinit c0 dev=0 gen=1 cfg=threads=1
kinit c0 dev=0 gen=1 cfg=threads=5+pmu
kinit c0 dev=0 gen=1 cfg=swim=5
kinit c0 dev=0 gen=1 cfg=swim=5+pmu
kinit c0 dev=0 gen=1 cfg=swim=2
kinit c0 dev=0 gen=1 cfg=depgen
kinit c0 dev=0 gen=1 cfg=unterm
kinit c0 dev=0 gen=1 cfg=depgen+unterm
kinit c0 dev=0 gen=1 cfg=threads=4+swim=2+prefix+ring=good
`},
	{Name: "v-cfg/ring", Rules: []Rule{RVCfg}, Profiles: tmrOnly, Script: `
setdev 0
create c0
kinit c0 dev=0 gen=1 cfg=ring=badtask
create c1
kinit c1 dev=1 gen=1 cfg=ring=badheap
create c2
kinit c2 dev=2 gen=1 cfg=ring=baddep
`},
	{Name: "l-3/latch-survives-failed-init", Rules: []Rule{RL3, REKInit}, Kills: []string{"latch-cleared-on-fail"}, Profiles: tmrOnly, Script: `
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
	{Name: "l-5/refusal-before-latch", Rules: []Rule{RL5, RL1}, Kills: []string{"latch-before-cfg"}, Script: `
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
`},
	{Name: "l-2/one-mode-per-context", Rules: []Rule{RL2, RL4, REACL, REPInit}, Kills: []string{"program-over-kernel"}, Profiles: tmrOnly, Script: prelude + `
pinit c0 dev=0
acl c0 dev=0
create c1
acl c1 dev=0
kinit c1 dev=0 gen=2
prepare c1 img=valid()
create c2
pinit c2 dev=1
pinit c2 dev=1
kinit c2 dev=1 gen=3
setdev 0
prepare c0 img=valid()
`},
	{Name: "k-4/registration-poisons", Rules: []Rule{RK4, REClaim}, Kills: []string{"poison-ignored"}, Needs: CapInject, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
inject site=3 count=1 code=-1234
prepare c0 img=valid(x=1)
prepare c0 img=valid()
launch c0 id=0 stream=s0
finalize c0
create c1
kinit c1 dev=0 gen=2
`},
	{Name: "k-4/enqueue-poisons", Rules: []Rule{RK4}, Needs: CapInject, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
inject site=4 count=1 code=-1300
launch c0 id=0 stream=s0
launch c0 id=0 stream=s0
prepare c0 img=valid()
finalize c0
`},
	{Name: "k-6/closed-is-terminal", Rules: []Rule{RK6, REFin}, Kills: []string{"closed-accepts-dispatch"}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid(t=1)
launch c0 id=0 stream=s0
finalize c0
prepare c0 img=valid()
launch c0 id=0 stream=s0
pinit c0 dev=0
finalize c0
destroy c0
`},
	{Name: "k-2/no-reinit-after-close", Rules: []Rule{RK2, RK6}, Kills: []string{"reinit-after-close"}, Profiles: tmrOnly, Script: prelude + `
kinit c0 dev=0 gen=1
finalize c0
kinit c0 dev=0 gen=2
create c1
kinit c1 dev=0 gen=3
`},
	{Name: "k-5/close-failure-is-returned", Rules: []Rule{RK5, REClaim}, Kills: []string{"close-failure-swallowed"}, Needs: CapInject, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
inject site=5 count=2 code=-1300
finalize c0
prepare c0 img=valid()
finalize c0
create c1
kinit c1 dev=0 gen=2
finalize c0
finalize c0
kinit c1 dev=0 gen=2
create c2
kinit c2 dev=0 gen=3
`},
	{Name: "k-7/init-rollback", Rules: []Rule{RK7, REClaim, RL5}, Needs: CapInject, Profiles: tmrOnly, Script: `
create c0
setdev 0
inject site=1 count=1 code=-1234
kinit c0 dev=0 gen=1
kinit c0 dev=0 gen=1
prepare c0 img=valid()
create c1
kinit c1 dev=0 gen=2
finalize c0
destroy c0
setdev 1
create c2
inject site=1 count=1 code=-1300
inject site=9 count=1 code=-1500
kinit c2 dev=1 gen=3
prepare c2 img=valid()
destroy c2
finalize c2
destroy c2
create c3
kinit c3 dev=1 gen=4
`},
	{Name: "e-launch/before-prepare", Rules: []Rule{RELaunch, RK3}, Kills: []string{"launch-before-prepare-nr"}, Profiles: tmrOnly, Script: prelude + `
launch c0 id=0 stream=s0
launch c0 id=5 stream=s0
prepare c0 img=valid(t=1,s=2)
launch c0 id=1 stream=s0
launch c0 id=0 args=match(dt=1) stream=s0
launch c0 id=0 args=match(ds=-1) stream=s0
launch c0 id=0 args=match(host) stream=s0
launch c0 id=0 stream=s0
`},
	{Name: "e-launch/reads-only-counts", Rules: []Rule{RELaunch, RELaunchAsync}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid(t=3,s=2)
launch c0 id=0 args=match(junk) stream=s0
launch c0 id=0 args=exact(t=3,s=2,junk) stream=s0
launch c0 id=0 args=match(host,junk) stream=s0
launch c0 id=0 args=match(ds=1,junk) stream=s0
prepare c0 img=valid()
launch c0 id=1 args=exact(t=0,s=0,host,junk) stream=s0
`},
	{Name: "e-launch/stream-switch", Rules: []Rule{RELaunch}, Kills: []string{"stream-switch-ok"}, Needs: CapDriven, Profiles: tmrOnly, Script: prelude + `
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
	{Name: "e-launch-async/delivered-once", Rules: []Rule{RELaunchAsync, RD3}, Kills: []string{"async-poisons"}, Needs: CapInject | CapDriven, Profiles: tmrOnly, Script: prelude + `
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
`},
	{Name: "s-3/null-context", Rules: []Rule{RS3, REFin, REPInit, REACL}, Kills: []string{"finalize-null-ia"}, Profiles: allProfiles, Script: `
finalize null
pinit null dev=0
acl null dev=0
destroy null
committed null
supported null
prog null fn=register
prog null fn=unregister
prog null fn=run
prog null fn=prepare_run
prog null fn=launch_run
prog null fn=poll_run
prog null fn=wait_run
prog null fn=finalize_run
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
	{Name: "s-1/host-refusals-below-1000", Rules: []Rule{RS1, RELaunch}, Kills: []string{"device-band-code"}, Profiles: tmrOnly, Script: prelude + `
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
	{Name: "s-2/documented-codes", Rules: []Rule{RS2, RVLaunch}, Kills: []string{"undocumented-code"}, Script: `
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
	{Name: "s-3/null-context-kernel-entries", Rules: []Rule{RS3, RVPrep2, RVLaunch, RESup}, Kills: []string{"null-prepare-internal"}, Script: `
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
	{Name: "e-destroy/refused-until-finalized", Rules: []Rule{REDestroy, REClaim}, Kills: []string{"destroy-unfinalized"}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
destroy c0
create c1
kinit c1 dev=0 gen=2
prepare c0 img=valid()
committed c0
finalize c0
create c2
kinit c2 dev=0 gen=3
finalize c0
destroy c0
`},
	{Name: "e-prog/state-before-arguments", Rules: []Rule{REProg}, Kills: []string{"prog-args-first"}, Profiles: allProfiles, Script: `
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
`},
	{Name: "e-sup/constant", Rules: []Rule{RESup}, Kills: []string{"supported-after-init-0"}, Script: `
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
	{Name: "e-claim/released-by-failed-init", Rules: []Rule{REClaim}, Kills: []string{"claim-kept-on-fail"}, Profiles: tmrOnly, Script: `
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
	{Name: "m-1/dense-ids-per-context", Rules: []Rule{RM1}, Kills: []string{"ids-from-one"}, Profiles: tmrOnly, Script: prelude + `
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
	{Name: "m-3/failures-mint-nothing", Rules: []Rule{RM3}, Kills: []string{"failure-consumes-id"}, Needs: CapInject, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
prepare c0 img=valid()+defect(sigcount)
inject site=2 count=1 code=-1234
prepare c0 img=valid()
prepare c0 img=valid()
`},
	{Name: "m-2/no-deduplication", Rules: []Rule{RM2}, Kills: []string{"dedup"}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid(t=1,s=1)
prepare c0 img=valid(t=1,s=1)
launch c0 id=1 stream=s0
launch c0 id=0 stream=s0
`},
	{Name: "m-4/count", Rules: []Rule{RM4}, Kills: []string{"count-8191"}, Profiles: tmrOnly, Slow: true, Script: prelude + `
prepare c0 img=valid() rep=8192
prepare c0 img=valid() rep=2
prepare c0 img=valid()+defect(sigcount)
launch c0 id=0 stream=s0
launch c0 id=8191 stream=s0
`},
	{Name: "m-5/byte-budget", Rules: []Rule{RM5, REPrep}, Kills: []string{"no-byte-budget"}, Profiles: tmrOnly, Slow: true, Script: prelude + `
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
	{Name: "m-6/caller-image-not-read-again", Rules: []Rule{RM6}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid(t=2,s=1)
clobber img=valid(t=2,s=1)
launch c0 id=0 stream=s0
launch c0 id=0 args=exact(t=0,s=0) stream=s0
prepare c0 img=valid(t=2,s=1)
launch c0 id=1 stream=s0
`},
	{Name: "m-7/committed", Rules: []Rule{RM7}, Kills: []string{"committed-after-finalize"}, Profiles: tmrOnly, Script: `
committed null
create c0
committed c0
setdev 0
kinit c0 dev=0 gen=1
prepare c0 img=valid()
launch c0 id=0 stream=s0
prepare c0 img=valid()+defect(sigcount)
prepare c0 img=valid(x=1)
finalize c0
committed c0
`},
	{Name: "d-2/borrowed-device", Rules: []Rule{RD2}, Kills: []string{"device-unchecked"}, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
setdev 1
prepare c0 img=valid()
launch c0 id=0 stream=s0
finalize c0
setdev none
launch c0 id=0 stream=s0
setdev 0
launch c0 id=0 stream=s0
prepare c0 img=valid()
finalize c0
`},
	{Name: "d-1/no-device-calls", Rules: []Rule{RD1}, Kills: []string{"finalize-resets-device"}, Needs: CapCounters, Profiles: tmrOnly, Script: prelude + `
getdev
prepare c0 img=valid()
launch c0 id=0 stream=s0
getdev
finalize c0
getdev
destroy c0
getdev
`},
	{Name: "d-4/quarantine", Rules: []Rule{RD4, REDestroy, REClaim}, Kills: []string{"fatal-resets"}, Needs: CapInject, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
inject site=6 count=1 code=0
finalize c0
finalize c0
destroy c0
finalize c0
create c1
kinit c1 dev=0 gen=2
`},
	{Name: "x-2/launch-fails-fast", Rules: []Rule{RX2}, Kills: []string{"launch-waits"}, Needs: CapInject, Profiles: tmrOnly, Slow: true, Script: prelude + `
prepare c0 img=valid(t=1)
launch c0 id=0 stream=s0
holdlaunch c0 ms=150 img=valid() id=0 stream=s0
holdprepare c0 ms=100 img=valid(x=1) img2=valid(x=2)
launch c0 id=3 stream=s0
`},
	{Name: "x-1/claim-race", Rules: []Rule{RX1, REClaim}, Profiles: tmrOnly, Script: `
create c0
create c1
setdev 0
racekinit c0 c1 dev=0 gen=1
create c2
create c3
setdev 1
racekinit c2 c3 dev=1 gen=2
`},
	{Name: "e-prep/check-order", Rules: []Rule{REPrep, RK1}, Profiles: tmrOnly, Script: `
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
	{Name: "e-pinit/arguments", Rules: []Rule{REPInit, RVSpan, REACL}, Kills: []string{"refusal-latches"}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=-1
pinit c0 dev=0 aicpu=halfptr
pinit c0 dev=0 sdma=halfsize
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
`},
	{Name: "refusing/validate-then-refuse", Rules: []Rule{REKInit, REPrep, RELaunch}, Profiles: []Profile{ProfileRefusing}, Script: `
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
	{Name: "v-contract/admissible", Rules: []Rule{RVContract}, Profiles: allProfiles, Script: `
contract
`},
	// Program runs with valid arguments: a native run is outstanding from
	// its successful prepare_run until finalize_run returns (E-FIN), launched
	// or not, completed or not; while it is, finalize_device returns
	// INTERNAL, destroy is refused (E-DESTROY) and so is unregister. img=prog
	// is the target's program callable (abicheck -callable on a real build).
	{Name: "e-fin/outstanding-prepared-run", Rules: []Rule{REFin, REDestroy}, Kills: []string{"prepared-run-not-outstanding"}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
register c0 id=0 img=prog
prepare_run c0 st=0 id=0
finalize c0
destroy c0
unregister c0 id=0
finalize_run c0 st=0
unregister c0 id=0
register c0 id=0 img=prog
finalize c0
destroy c0
`},
	{Name: "e-fin/outstanding-launched-run", Rules: []Rule{REFin, REDestroy, REProg}, Profiles: allProfiles, Script: `
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
	{Name: "e-prog/run-storage", Rules: []Rule{REProg, REFin}, Profiles: allProfiles, Script: `
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
	// A run with a NULL CallConfig is refused before the storage or the
	// registry is looked at, and leaves no run behind (the refusal probes
	// and the prepare after it show it).
	{Name: "e-prog/run-null-config", Rules: []Rule{REProg}, Kills: []string{"run-null-config-ok"}, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
register c0 id=0 img=prog
prepare_run c0 st=0 id=0 cfg=null
run c0 st=0 id=0 cfg=null
prepare_run c0 st=0 id=0
finalize_run c0 st=0
finalize c0
destroy c0
`},
	{Name: "e-fin/program-teardown-failure", Rules: []Rule{REFin}, Kills: []string{"program-teardown-swallowed"}, Needs: CapInject, Profiles: tmrOnly, Script: `
create c0
pinit c0 dev=0
inject site=10 count=1 code=-1234
finalize c0
finalize c0
pinit c0 dev=0
finalize c0
`},
	// U-1: a thread that called into the library (a prewarmed simpler_init
	// emits a trace span on upstream's builds) exits only after the unload;
	// the runner waits for it to be gone, so a thread-exit destructor left
	// behind crashes the process at the unload op, every time.
	{Name: "u-1/program-thread-exits-after-unload", Rules: []Rule{RU1}, Kills: []string{"thread-key-leak", "late-thread-leak"}, Needs: CapUnload, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 prewarm=ok
finalize c0
destroy c0
unload
`},
	// The same after a program run: simpler_prepare_run opens trace spans
	// on upstream's builds, whatever the prewarm did.
	{Name: "u-1/run-thread-exits-after-unload", Rules: []Rule{RU1}, Needs: CapUnload, Profiles: allProfiles, Script: `
create c0
pinit c0 dev=0 aicpu=bytes aicore=bytes
register c0 id=0 img=prog
run c0 st=0 id=0
unregister c0 id=0
finalize c0
destroy c0
unload
`},
	{Name: "u-1/kernel-thread-exits-after-unload", Rules: []Rule{RU1}, Needs: CapUnload | CapSync, Profiles: tmrOnly, Script: prelude + `
prepare c0 img=valid()
launch c0 id=0 stream=s0
sync s0
finalize c0
destroy c0
unload
`},
	// What a legacy build is held to (docs/contract.md "Revisions"): re-init on the
	// attached device, another device refused until finalize, a prewarm
	// whose ring sizing is refused, and ensure_acl_ready_ctx.
	{Name: "legacy/program-init", Rules: []Rule{REPInit, REFin}, Profiles: []Profile{ProfileLegacy}, Script: `
create c0
pinit c0 dev=0
pinit c0 dev=0
pinit c0 dev=1
finalize c0
pinit c0 dev=1
finalize c0
finalize c0
create c1
pinit c1 dev=0 prewarm=ring=badtask
pinit c1 dev=0
pinit c1 dev=-1
finalize c1
destroy c1
destroy c0
`},
	{Name: "legacy/acl", Rules: []Rule{REACL, RS3}, Profiles: []Profile{ProfileLegacy}, Script: `
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
		for i := range catalogue {
			catalogue[i].ops = MustParseScript(catalogue[i].Script)
		}
	})
	out := make([]Check, len(catalogue))
	copy(out, catalogue)
	return out
}

// Mutants lists the mutant names of docs/semantics.md §13 with the rule each
// breaks.
var Mutants = map[string]Rule{
	"prep-keeps-out": RVPrep1, "prep-misaligned-ok": RVPrep2, "launch-id-8192-ok": RVLaunch,
	"img-trailing-ok": RVImg, "img-dup-funcid-ok": RVImg, "init-gen0-ok": RVInit, "span-half-ok": RVSpan,
	"cfg-pmu-ok": RVCfg, "latch-cleared-on-fail": RL3, "latch-before-cfg": RL5, "program-over-kernel": RL2,
	"poison-ignored": RK4, "closed-accepts-dispatch": RK6, "close-failure-swallowed": RK5,
	"reinit-after-close": RK2, "launch-before-prepare-nr": RELaunch, "finalize-null-ia": REFin,
	"destroy-unfinalized": REDestroy, "prog-args-first": REProg, "supported-after-init-0": RESup,
	"claim-kept-on-fail": REClaim, "ids-from-one": RM1, "failure-consumes-id": RM3, "dedup": RM2,
	"count-8191": RM4, "no-byte-budget": RM5, "committed-after-finalize": RM7, "device-unchecked": RD2,
	"finalize-resets-device": RD1, "fatal-resets": RD4, "launch-waits": RX2, "stream-switch-ok": RELaunch,
	"async-poisons": RELaunchAsync, "device-band-code": RS1, "undocumented-code": RS2,
	"null-prepare-internal": RS3, "thread-key-leak": RU1, "late-thread-leak": RU1,
	"prepared-run-not-outstanding": REFin, "program-teardown-swallowed": REFin, "refusal-latches": RL4, "run-null-config-ok": REProg,
}
