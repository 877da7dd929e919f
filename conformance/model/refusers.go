package model

import (
	"slices"
	"strconv"

	"github.com/simabi/simabi/abi"
)

// Refusers: every condition of the contract that alone would refuse a
// call, each read against the state before it, not behind the ones the
// entry checks first (the walks stop at the first). Masking says whether
// the one that decides masks a clause: a runtime that forgot it still
// gives the expected answer by the next (a swimlane of -1 with no output
// prefix is refused by V-CFG.3 and V-CFG.4, both with IA).

// Refusal is one condition of docs/contract.md that alone refuses a call.
type Refusal struct {
	Clause string    // "V-CFG.3", or the rule where the condition has no clause marker
	Cond   string    // the condition, in words that do not depend on the call's values
	Status StatusSet // the code it answers (any failure where the rules name none)
	// Build: the build refuses every call of the entry (a refusing build's
	// kernel entries): no input avoids it.
	Build bool
}

func (r Refusal) String() string {
	s := r.Clause + " " + r.Cond + " (" + r.code() + ")"
	if r.Build {
		s += " [the build's own refusal]"
	}
	return s
}

// code renders the refusal's code: comm_init's NULL, -1, or the names.
func (r Refusal) code() string {
	if r.Status.Empty() {
		return "NULL"
	}
	if v, ok := r.Status.single(); ok && v == -1 {
		return "-1"
	}
	return r.Status.String()
}

// Key is the condition's identity: its clause and its condition.
func (r Refusal) Key() string { return r.Clause + " " + r.Cond }

// shares reports whether r and o can answer the same code.
func (r Refusal) shares(o Refusal) bool {
	return r.Status.Any || o.Status.Any || r.Status.NonZero || o.Status.NonZero || (r.Status.Empty() && o.Status.Empty()) ||
		slices.ContainsFunc(r.Status.V[:r.Status.N], o.Status.exact)
}

// Masking is the masking in rs (a call's conditions in its entry's
// order): the condition that decides and the next one, when that answers
// the same code; nil when none. The build's own refusal is left out: no
// input avoids it, so no call can tell it from a condition sharing its code.
func Masking(rs []Refusal) []Refusal {
	var first *Refusal
	for i := range rs {
		switch r := &rs[i]; {
		case r.Build:
		case first == nil:
			first = r
		case first.shares(*r):
			return []Refusal{*first, *r}
		default:
			return nil
		}
	}
	return nil
}

// Refusers are the conditions that each alone refuse op in state s, in the
// entry's order. Conditions the model cannot read are left out (an unknown
// context keeps only its argument checks), and so are injected faults.
func Refusers(s State, o Op) []Refusal { return s.Model().refusers(o) }

func (m *Model) refusers(o Op) []Refusal {
	if m.lost || o.Kind <= KindInvalid || o.Kind >= NumKinds || refuserTable[o.Kind] == nil {
		return nil
	}
	slot, _ := o.Slots()
	c := m.ctx(slot)
	if !o.Kind.MakesContext() && slot >= 0 && (c == nil || !c.live) {
		return nil
	}
	rs := refusals{m: m}
	refuserTable[o.Kind](m, o, c, &rs)
	return rs.out
}

// refusals collects one call's conditions.
type refusals struct {
	m   *Model
	out []Refusal
}

// add records a condition of a clause held on profiles held; a legacy
// build answers its generic -1 (read as INTERNAL).
func (rs *refusals) add(held ProfileSet, clause, cond string, ss StatusSet) {
	p := rs.m.opt.Profile
	if held&ProfileBit(p) == 0 {
		return
	}
	if p == ProfileLegacy && !ss.NonZero {
		ss = one(abi.Internal)
	}
	rs.out = append(rs.out, Refusal{Clause: clause, Cond: cond, Status: ss})
}

// comm records a condition of the comm family, whose -1 is every build's.
func (rs *refusals) comm(clause, cond string) {
	rs.out = append(rs.out, Refusal{Clause: clause, Cond: cond, Status: one(commFail)})
}

// build records a refusing build's own refusal of the entry.
func (rs *refusals) build(clause, cond string, ss StatusSet) {
	if rs.m.opt.Profile == ProfileRefusing {
		rs.out = append(rs.out, Refusal{Clause: clause, Cond: cond, Status: ss, Build: true})
	}
}

type refuserFunc func(m *Model, o Op, c *mctx, rs *refusals)

// refuserTable is each kind's conditions (nil: none of its own, an
// environment op, or a two-thread op).
var refuserTable [NumKinds]refuserFunc

func defineRefusers(k Kind, f refuserFunc) {
	if !k.Defined() || refuserTable[k] != nil {
		panic("model: refusers of op kind " + strconv.Itoa(int(k)) + " defined twice or not in the op language")
	}
	refuserTable[k] = f
}

var (
	iaSet  = one(abi.InvalidArgument)
	isSet  = one(abi.InvalidState)
	intSet = one(abi.Internal)
)

func init() {
	for k, f := range map[Kind]refuserFunc{KindKInit: kinitRefusers, KindPInit: pinitRefusers, KindACL: aclRefusers,
		KindPrepare: prepareRefusers, KindLaunch: launchRefusers, KindFinalize: finalizeRefusers, KindProg: progRefusers,
		KindHostLog: hostLogRefusers, KindRegister: registerRefusers, KindUnregister: unregisterRefusers,
		KindPrepareRun: runStartRefusers, KindRun: runStartRefusers, KindLaunchRun: runStorageRefusers,
		KindPollRun: runStorageRefusers, KindWaitRun: runStorageRefusers, KindFinalizeRun: runStorageRefusers,
		KindDevWrite: devCopyRefusers, KindDevRead: devCopyRefusers} {
		defineRefusers(k, f)
	}
}

// argCond is one argument clause of a kernel entry (V-INIT, V-PREP-2,
// V-LAUNCH): the walk refuses with IA when any holds, Refusers lists each.
type argCond struct {
	on           bool
	clause, cond string
}

func vInit(o Op, c *mctx) []argCond {
	return []argCond{{c == nil, "V-INIT.1", "ctx NULL"}, {o.Cfg.Null, "V-INIT.2", "config NULL"},
		{o.Dev < 0, "V-INIT.3", "device_id < 0"}, {o.Gen == 0, "V-INIT.4", "context_generation 0"}}
}

func vPrep2(o Op, c *mctx, f *imageFacts) []argCond {
	return []argCond{{c == nil, "V-PREP-2.1", "ctx NULL"}, {f.null, "V-PREP-2.2", "callable NULL"},
		{o.OutNull, "V-PREP-2.3", "out_callable_id NULL"}, {!f.null && f.size < headerSize, "V-PREP-2.4", "callable_size below 9376"},
		{!f.aligned, "V-PREP-2.5", "callable not 16-byte aligned"}}
}

func vLaunch(o Op, c *mctx) []argCond {
	return []argCond{{c == nil, "V-LAUNCH.1", "ctx NULL"}, {o.Args.Mode == ArgsNull, "V-LAUNCH.2", "args NULL"},
		{o.Stream < 0, "V-LAUNCH.3", "caller_stream NULL"}, {o.ID < 0, "V-LAUNCH.4", "callable_id < 0"},
		{o.ID >= MaxIDs, "V-LAUNCH.5", "callable_id >= 8192"}}
}

// anyArg reports whether any of an entry's argument clauses holds.
func anyArg(cs []argCond) bool { return slices.ContainsFunc(cs, func(a argCond) bool { return a.on }) }

func (rs *refusals) args(cs []argCond) {
	for _, a := range cs {
		rs.addIf(a.on, OnKernel, a.clause, a.cond, iaSet)
	}
}

// known reports whether c's state conditions can be read.
func known(c *mctx) bool { return c != nil && !c.unknown }

// d2Refuses is D-2 alone: the thread's device is known and is not dev.
func (m *Model) d2Refuses(dev int32) bool { return m.devKnown && m.curDev != dev }

func kinitRefusers(m *Model, o Op, c *mctx, rs *refusals) {
	rs.args(vInit(o, c))
	for i := SpanAicpu; i <= SpanDispatcher; i++ {
		rs.addIf(!o.Spans[i].Consistent(), OnKernel, "V-INIT.5", "an inconsistent "+SpanKey(i)+" span", iaSet)
	}
	if !o.Cfg.Null {
		for _, cc := range cfgConds(o.Cfg, true) {
			rs.add(OnKernel, "V-CFG."+strconv.Itoa(cc.n), cc.what, one(cc.st))
		}
	}
	rs.build("E-KINIT.2", "a refusing build refuses kernel init", one(abi.Unsupported))
	if !known(c) {
		return
	}
	if c.latch != Unlatched {
		rs.add(OnTMR, "E-KINIT.3", kinitLatched(c).cond, isSet)
	}
	if o.Dev < 0 {
		return
	}
	h := m.claims[o.Dev]
	rs.addIf(h != nil && h != c && !h.unknown, OnTMR, "E-KINIT.4", "another context holds the device's claim", isSet)
	rs.addIf(m.d2Refuses(o.Dev), OnTMR, "E-KINIT.5", "the thread's current device is not device_id", isSet)
}

// latched is why an init refuses a latched context: the walk's rule and
// note, and Refusers' clause or condition.
type latched struct {
	r         Rule
	why, cond string
}

func kinitLatched(c *mctx) latched {
	switch {
	case c.latch == LatchProgram:
		return latched{RL2, "the context is program-latched", "a program context"}
	case c.phase == phClosed:
		return latched{RK6, "the context is Closed", "a Closed kernel context"}
	case c.initFailed:
		return latched{REKInit, "an earlier kernel init failed after the latch", "a kernel context whose init failed"}
	}
	return latched{RK2, "already latched", "an initialized kernel context"}
}

// pinitLatched is a kernel-latched context's (cond: the L clause).
func pinitLatched(c *mctx) latched {
	switch {
	case c.phase == phClosed && c.finalizedOK:
		return latched{RL3, "the kernel context was finalized (finalize does not unlatch)", "L-3.1"}
	case c.initFailed:
		return latched{RL3, "a failed kernel init latched it (nothing unlatches)", "L-3.2"}
	case c.phase == phPoisoned || c.quarantined:
		return latched{RL3, "a poisoned or quarantined kernel context stays latched", "L-3.3"}
	}
	return latched{RL2, "the context is kernel-latched", "L-2.2"}
}

// pinitCfgClause is E-PINIT's clause per V-CFG clause (V-CFG.2: E-PINIT.10).
var pinitCfgClause = [9]string{1: "E-PINIT.5", 3: "E-PINIT.6", 4: "E-PINIT.7", 5: "E-PINIT.8", 6: "E-PINIT.9", 7: "E-PINIT.9", 8: "E-PINIT.9"}

func pinitRefusers(m *Model, o Op, c *mctx, rs *refusals) {
	if m.opt.Profile == ProfileLegacy {
		pinitLegacyRefusers(m, o, c, rs)
		return
	}
	rs.addIf(c == nil, OnAll, "E-PINIT.1", "ctx NULL", intSet)
	for i, clause := range [...]string{SpanAicpu: "E-PINIT.3", SpanAicore: "E-PINIT.3", SpanDispatcher: "E-PINIT.3", SpanSDMA: "E-PINIT.4"} {
		rs.addIf(!o.Spans[i].Consistent(), OnKernel, clause, "an inconsistent "+SpanKey(i)+" span", iaSet)
	}
	rs.addIf(o.Dev < 0, OnAll, "E-PINIT.2", "device_id < 0", iaSet)
	if o.Prewarm {
		for _, cc := range cfgConds(o.Cfg, false) {
			rs.add(OnKernel, pinitCfgClause[cc.n], "prewarm: "+cc.what, iaSet)
		}
	}
	if !known(c) {
		return
	}
	switch {
	case c.latch == LatchKernel:
		rs.add(OnTMR, pinitLatched(c).cond, "a kernel context", isSet)
	case c.latch == LatchProgram && c.attached:
		rs.add(OnKernel, "E-PINIT.11", "a device is already attached", isSet)
	}
}

// pinitLegacyRefusers: a legacy simpler_init (contract.md "Revisions").
func pinitLegacyRefusers(m *Model, o Op, c *mctx, rs *refusals) {
	if c == nil {
		rs.add(OnLegacy, "E-PINIT.1", "ctx NULL", intSet)
		return
	}
	if !o.Spans[SpanSDMA].Consistent() || c.unknown {
		return // the consumer adapter refuses it before any call; or not known
	}
	rs.addIf(o.Dev < 0, OnLegacy, "E-PINIT.2", "device_id < 0", intSet)
	rs.addIf(c.legacyDev >= 0 && c.legacyDev != o.Dev && !c.bindSoft, OnLegacy, "E-PINIT", "legacy: the runner is bound to another device until finalize_device", intSet)
	if o.Prewarm && o.Cfg.Ring.Bad() {
		_, what := ringClause(o.Cfg.Ring)
		rs.add(OnLegacy, "E-PINIT.9", "prewarm: ring sizing out of range: "+what, intSet)
	}
}

// aclRefusers: a legacy build's negative device gets either answer.
func aclRefusers(_ *Model, o Op, c *mctx, rs *refusals) {
	rs.addIf(c == nil, OnLegacy, "S-3", "ctx NULL", intSet)
	rs.addIf(c == nil, OnKernel, "E-ACL.1", "ctx NULL", iaSet)
	rs.addIf(o.Dev < 0, OnKernel, "E-ACL.2", "device_id < 0", iaSet)
	if known(c) && c.latch == LatchKernel {
		clause := "L-2.2"
		if c.initFailed {
			clause = "L-3.2"
		}
		rs.add(OnTMR, clause, "a kernel context", isSet)
	}
}

// dispatchState adds E-PREP's and E-LAUNCH's state conditions (K-1, no
// prepare yet: collectingClause, D-2); false when the state is not read (a
// quarantined context's dispatch is not the contract's).
func dispatchState(m *Model, c *mctx, stateClause, collectingClause, d2Clause string, rs *refusals) bool {
	if !known(c) || (c.latch == LatchKernel && c.dispatchAny) {
		return false
	}
	switch {
	case c.latch != LatchKernel:
		rs.add(OnTMR, stateClause, "not a kernel context", isSet)
	case !c.phase.dispatch():
		rs.add(OnTMR, stateClause, noDispatch[c.phase], isSet)
	case c.phase == phCollecting && collectingClause != "":
		rs.add(OnTMR, collectingClause, "no prepare has succeeded", isSet)
	}
	rs.addIf(c.latch == LatchKernel && c.phase != phClosed && !c.quarantined && m.d2Refuses(c.dev), OnTMR, d2Clause, "the thread's current device is not the context's", isSet)
	return true
}

func prepareRefusers(m *Model, o Op, c *mctx, rs *refusals) {
	f := factsOf(o.Img)
	rs.args(vPrep2(o, c, f))
	rs.build("E-PREP.9", "a refusing build validates, then refuses", isSet)
	kernel := dispatchState(m, c, "E-PREP.3", "", "E-PREP.4", rs) && c.latch == LatchKernel
	rs.addIf(f.huge, OnTMR, "E-PREP.5", "callable_size above the 2 GiB budget", one(abi.CallableBytesExceeded))
	for _, k := range imageClauses(o.Img) {
		rs.add(OnTMR, "V-IMG."+strconv.Itoa(k), imgClauseText[k], iaSet)
	}
	if !kernel {
		return
	}
	rs.addIf(len(c.ids) >= MaxIDs, OnTMR, "M-4.2", "the context holds 8192 residents", one(abi.CallableCountExceeded))
	_, fits := c.fit(f.charge)
	rs.addIf(!fits, OnTMR, "M-5.4", "the charge would pass 2 GiB of blocks", one(abi.CallableBytesExceeded))
}

// launchArgs are the counts op's args carry for c's id as the runner forms
// them, and whether a counted tensor is outside DEVICE space.
func launchArgs(o Op, c *mctx) (t, s int32, host bool) {
	if o.Args.Mode == ArgsMatch && o.ID >= 0 && int(o.ID) < len(c.ids) {
		t, s = c.ids[o.ID].t, c.ids[o.ID].s
	}
	if o.Args.Mode == ArgsExact {
		t, s = 0, 0
	}
	t, s = t+int32(o.Args.T), s+int32(o.Args.S)
	alien := (o.Args.Alien || o.Args.HostLast) && t >= 1 && t <= abi.ChipMaxTensorArgs
	return t, s, o.Args.Host || alien
}

func launchRefusers(m *Model, o Op, c *mctx, rs *refusals) {
	rs.args(vLaunch(o, c))
	rs.build("E-LAUNCH.10", "a refusing build validates, then refuses", isSet)
	if !dispatchState(m, c, "E-LAUNCH.1", "E-LAUNCH.2", "E-LAUNCH.3", rs) || c.latch != LatchKernel {
		return
	}
	if o.ID < 0 || int(o.ID) >= len(c.ids) {
		rs.add(OnTMR, "E-LAUNCH.4", "an id never published on this context", one(abi.CallableNotResident))
	} else if o.Args.Mode != ArgsNull {
		info := c.ids[o.ID]
		t, s, host := launchArgs(o, c)
		rs.addIf(t != info.t || s != info.s, OnTMR, "E-LAUNCH.5", "args counts other than the callable's", iaSet)
		rs.addIf(host && t >= 1, OnTMR, "E-LAUNCH.6", "a counted tensor outside DEVICE space", iaSet)
	}
	if c.lastStream >= 0 && o.Stream >= 0 && c.lastStream != o.Stream && m.opt.DrivenCompletion {
		if st := &m.streams[c.lastStream]; !st.unsure && st.done < c.lastSerial {
			rs.add(OnTMR, "E-LAUNCH.7", "a stream switch while the last stream has pending work", one(abi.PreparedIncompatible))
		}
	}
}

func finalizeRefusers(m *Model, _ Op, c *mctx, rs *refusals) {
	if c == nil {
		rs.add(OnAll, "E-FIN.1", "ctx NULL", intSet)
		return
	}
	if c.unknown {
		return
	}
	rs.addIf(c.runs > 0, OnAll, "E-FIN.2", "a native run is outstanding", intSet)
	if m.opt.Profile == ProfileLegacy || c.latch != LatchKernel || c.phase == phClosed {
		return
	}
	rs.addIf(c.quarantined, OnTMR, "D-4.2", "a quarantined context", isSet)
	rs.addIf(!c.quarantined && m.d2Refuses(c.dev), OnTMR, "D-2.1", "the thread's current device is not the context's", isSet)
}

func hostLogRefusers(_ *Model, o Op, _ *mctx, rs *refusals) {
	refused := one(abi.HostBindRefused)
	if o.OutNull {
		rs.add(OnAll, "S-2.4", "a NULL state", refused)
		return // nothing else of it can be read
	}
	rs.addIf(o.Site != 1, OnAll, "S-2.5", "an abi_version other than 1", refused)
	rs.addIf(o.Count < 16, OnAll, "S-2.6", "a struct_size below 16", refused)
	rs.addIf(!slices.Contains(hostLogLevels[:], o.Code), OnAll, "S-2.3", "a threshold that is no log level", refused)
}

// The program entries: argument clauses are read whatever the context,
// run and registry clauses only with a live program init.

// noLiveInit adds S-3 (NULL) or E-PROG.1 (no live program init; a legacy
// build has no such gate); live: the entry's own conditions apply.
func noLiveInit(m *Model, c *mctx, rs *refusals) (live, judged bool) {
	switch {
	case c == nil:
		rs.add(OnAll, "S-3", "ctx NULL", iaSet)
		return false, true
	case c.unknown:
		return false, false
	case c.latch == LatchProgram && c.attached:
		return true, true
	case m.opt.Profile == ProfileLegacy && c.latch != LatchKernel:
		return false, false
	}
	rs.add(OnKernel, "E-PROG.1", "no live program init", isSet)
	return false, true
}

// registerID adds E-PROG.21 (legacy: .22) for an id outside the registry.
func registerID(id int32, rs *refusals) {
	rs.addIf(id < 0 || id >= legacyCallableIDs, OnLegacy, "E-PROG.22", "a callable id outside [0, 64)", intSet)
	rs.addIf(id < 0 || id >= abi.MaxRegisteredCallableIDs, OnKernel, "E-PROG.21", "a callable id outside [0, 8192)", iaSet)
}

// runArgs adds E-PROG.6 to .9: NULL storage, args, CallConfig, descriptor.
func runArgs(nullStorage, nullArgs, nullCfg, nullDesc bool, rs *refusals) {
	rs.addIf(nullStorage, OnAll, "E-PROG.6", "NULL run storage", iaSet)
	rs.addIf(nullArgs, OnAll, "E-PROG.7", "NULL args", iaSet)
	rs.addIf(nullCfg, OnAll, "E-PROG.8", "a NULL CallConfig", iaSet)
	rs.addIf(nullDesc, OnAll, "E-PROG.9", "a NULL descriptor", iaSet)
}

// progRefusers: a prog op calls its entry with the bad arguments the
// runner passes (progLive), each refused with a live init (E-PROG.21-.24).
func progRefusers(m *Model, o Op, c *mctx, rs *refusals) {
	fn := o.Fn
	if (c == nil && !fn.StatusEntry()) || (c != nil && !fn.ProgOnly()) {
		return // a NULL context's query: its 0 is a value, not a refusal
	}
	live, judged := noLiveInit(m, c, rs)
	if !judged {
		return
	}
	switch fn {
	case FnRegister:
		registerID(-1, rs)
		rs.add(OnAll, "E-PROG", "a NULL callable", iaSet)
	case FnRun, FnPrepareRun:
		runArgs(true, false, true, true, rs)
		rs.add(OnAll, "E-PROG.13", "callable id -1, never registered", anyFailure)
		runArgs(false, true, false, false, rs)
	case FnUnregister:
		rs.addIf(live && c.runs > 0, OnLegacy, "E-FIN.12", "a native run is outstanding", intSet)
		rs.addIf(live || c == nil, OnKernel, "E-PROG.23", "a callable id outside [0, 8192)", iaSet)
	case FnLaunchRun, FnPollRun, FnWaitRun, FnFinalizeRun:
		rs.add(OnAll, "E-PROG.23", "NULL run storage", iaSet)
	case FnMemInfo:
		if c != nil { // a NULL context gets valid memory (conformance's runner)
			rs.add(OnKernel, "E-PROG.24", "a NULL info pointer", iaSet)
		}
	case FnCopyTo, FnCopyFrom:
		if c != nil { // a NULL context gets an address it never reads
			rs.add(OnAll, "E-PROG.24", "device address 0", iaSet)
		}
	}
}

// devCopyRefusers: without a live init the runner passes a NULL device
// pointer (after E-PROG.1); with one a NULL host pointer or a span past
// the end is refused, except a copy of 0 bytes (E-PROG.31).
func devCopyRefusers(m *Model, o Op, c *mctx, rs *refusals) {
	live, _ := noLiveInit(m, c, rs)
	switch {
	case !live:
		rs.addIf(len(rs.out) > 0, OnAll, "E-PROG.24", "device address 0", iaSet)
		return
	case m.allocs[o.A].ctx != c:
		return
	}
	_, n, inside := DevCopySpan(o, m.allocs[o.A].size)
	if n == 0 && !o.Mem.Cross {
		return
	}
	rs.addIf(o.OutNull, OnAll, "E-PROG.24", "a NULL host pointer", iaSet)
	rs.addIf(!inside, OnAll, "E-PROG.30", "a span past the allocation's end", iaSet)
}

func registerRefusers(m *Model, o Op, c *mctx, rs *refusals) {
	live, judged := noLiveInit(m, c, rs)
	if judged {
		registerID(o.ID, rs)
	}
	if !live {
		return
	}
	rs.addIf(c.runs > 0, OnAll, "E-FIN.13", "a native run is outstanding", isSet)
	_, dup := c.prog[o.ID]
	rs.addIf(dup, OnAll, "E-PROG.27", "an id registered already", isSet)
}

func unregisterRefusers(m *Model, o Op, c *mctx, rs *refusals) {
	live, _ := noLiveInit(m, c, rs)
	if !live {
		return
	}
	rs.addIf(o.ID < 0 || o.ID >= abi.MaxRegisteredCallableIDs, OnKernel, "E-PROG.23", "a callable id outside [0, 8192)", iaSet)
	rs.addIf(c.runs > 0, OnAll, "E-FIN.12", "a native run is outstanding", isSet)
}

func runStartRefusers(m *Model, o Op, c *mctx, rs *refusals) {
	live, judged := noLiveInit(m, c, rs)
	if judged {
		runArgs(o.St < 0, false, o.Cfg.Null, o.OutNull, rs)
	}
	if !live {
		if judged {
			runArgs(false, o.Args.Mode == ArgsNull, false, false, rs)
		}
		return
	}
	// Upstream's order: the registry (c_api_shared.cpp:630), the storage
	// (:640), then NULL args where it binds the callable.
	_, registered := c.prog[o.ID]
	rs.addIf(!registered, OnAll, "E-PROG.13", "a callable id not registered", anyFailure)
	rs.addIf(o.St >= 0 && m.storages[o.St].state != StorageFree, OnAll, "E-PROG.14", "run storage that holds a run", isSet)
	runArgs(false, o.Args.Mode == ArgsNull, false, false, rs)
}

// storageClause: each entry's clause for storage without a run of the context.
var storageClause = map[Kind]string{KindLaunchRun: "E-PROG.16", KindPollRun: "E-PROG", KindWaitRun: "E-PROG", KindFinalizeRun: "E-PROG.19"}

func runStorageRefusers(m *Model, o Op, c *mctx, rs *refusals) {
	if live, _ := noLiveInit(m, c, rs); !live {
		return
	}
	var sl *runSlot
	if o.St >= 0 {
		sl = &m.storages[o.St]
	}
	if sl == nil {
		rs.add(OnAll, "E-PROG.23", "NULL run storage", iaSet)
		return
	}
	if sl.state == StorageFree || sl.ctx != c {
		rs.add(OnAll, storageClause[o.Kind], "run storage that holds no run of this context", isSet)
		return
	}
	switch {
	case o.Kind == KindLaunchRun && sl.state != StoragePrepared:
		rs.add(OnAll, "E-PROG.16", "a run launched already", isSet)
	case o.Kind == KindWaitRun && sl.state == StoragePrepared:
		rs.add(OnAll, "E-PROG.18", "a prepared, never-launched run", isSet)
	}
}

func (rs *refusals) addIf(on bool, held ProfileSet, clause, cond string, ss StatusSet) {
	if on {
		rs.add(held, clause, cond, ss)
	}
}

func (rs *refusals) commIf(on bool, clause, cond string) {
	if on {
		rs.comm(clause, cond)
	}
}
