package model

import (
	"slices"
	"strconv"

	"github.com/simabi/simabi/abi"
)

// The checker's environment (V-CONTRACT, E-LAUNCH-ASYNC, the fault sites).

func (m *Model) contract(obs *Observation) {
	m.expect(RVContract, anyStatus, "")
	if obs == nil {
		return
	}
	m.e.CheckValue, m.e.Value, m.e.ValueRule = true, 1, RVContract
	if why := ContractDefect(obs.Contract); why != "" {
		m.e.ValueNote = why
		m.e.Value = 2 // never equals the 1 the runner reports; judge prints the note
	}
}

// ContractDefect is V-CONTRACT over get_pipeline_contract's 144 bytes: the
// first defect, or "".
func ContractDefect(b []byte) string {
	if len(b) < 144 {
		return "get_pipeline_contract returned NULL"
	}
	u32 := func(off int) uint32 { return le.Uint32(b[off:]) }
	if v := u32(0); v != 1 {
		return "abi_version " + strconv.Itoa(int(v)) + ", want 1"
	}
	n, depth := u32(4), u32(8)
	if n > 8 {
		return "resource_count " + strconv.Itoa(int(n)) + " > 8"
	}
	if depth < 1 || depth > 2 {
		return "pipeline_depth " + strconv.Itoa(int(depth)) + " outside [1, 2]"
	}
	var seen [4]bool
	copies, aicpu, aicore := uint32(0), 0, 0
	for i := 0; i < int(n); i++ {
		r := b[16+16*i:]
		kind, class, bytes := le.Uint32(r), le.Uint32(r[4:]), le.Uint64(r[8:])
		switch {
		case kind < 1 || kind > 6:
			return "resource " + strconv.Itoa(i) + " kind " + strconv.Itoa(int(kind))
		case class > 2:
			return "resource " + strconv.Itoa(i) + " class " + strconv.Itoa(int(class))
		case bytes != 0:
			return "resource " + strconv.Itoa(i) + " declares bytes_per_copy in a program contract"
		}
		switch kind {
		case 1, 2, 3:
			if seen[kind] {
				return "arena kind " + strconv.Itoa(int(kind)) + " declared twice"
			}
			seen[kind] = true
			c := depth
			if class == 1 {
				c = 1
			}
			if copies != 0 && c != copies {
				return "arena resources disagree on their copy count"
			}
			copies = c
		case 5, 6:
			if class != 2 {
				return "stream resource " + strconv.Itoa(i) + " is not EXEC_HANDLE"
			}
			if kind == 5 {
				aicpu++
			} else {
				aicore++
			}
		}
	}
	if aicpu != 1 || aicore != 1 {
		return "want exactly one AICPU_STREAM and one AICORE_STREAM"
	}
	return ""
}

func (m *Model) sync(op Op) {
	if op.Stream < 0 {
		if m.opt.DrivenCompletion {
			m.expect(RHooks, one(abi.InvalidArgument), "simabi_sync_stream(NULL)")
		} else {
			m.expect(RHooks, anyFailure, "aclrtSynchronizeStream(NULL)")
		}
		return
	}
	st := &m.streams[op.Stream]
	defer func() { st.done, st.unsure = st.enq, false }()
	if !m.opt.DrivenCompletion {
		m.expect(RELaunchAsync, one(abi.OK), "")
		return
	}
	pending := st.enq > st.done
	armed := m.sites[8].count > 0
	switch {
	case st.unsure && armed:
		got, seen := m.observed()
		code := abi.Status(m.sites[8].code)
		if seen && got == code {
			m.fire(8)
			m.expect(RELaunchAsync, one(code), "")
		} else {
			m.expect(RELaunchAsync, one(abi.OK), "")
		}
	case pending && armed:
		code, _ := m.fire(8)
		m.expect(RD3, one(code), "the launches are still pending (the runtime never synchronizes the caller's stream): the injected failure (site 8) is delivered here")
		for _, c := range m.ctxs {
			if c != nil && c.lastStream == op.Stream {
				c.asyncHit = true
			}
		}
	case pending:
		m.expect(RELaunchAsync, one(abi.OK), "")
		m.tolerate(RS1, StatusSet{DeviceBand: true}, "a device-band code from the kernel itself (S-1: warned)")
	default:
		m.expect(RELaunchAsync, one(abi.OK), "no pending work: nothing to deliver")
	}
}

func (m *Model) inject(op Op) {
	if op.Site < abi.FirstSite || op.Site > abi.LastSite || op.Count < 0 || (op.Count > 0 && op.Code == 0 && op.Site != 6 && op.Site != 7) {
		m.expect(RHooks, one(abi.InvalidArgument), "simabi_inject argument rule")
		return
	}
	m.expect(RHooks, two(abi.OK, abi.Unsupported), "")
	if got, seen := m.observed(); seen && got == abi.Unsupported {
		if op.Count > 0 {
			m.skip(m.curIdx, op, siteRules[op.Site], "the target does not model fault site "+strconv.Itoa(int(op.Site)))
		}
		return
	}
	m.sites[op.Site] = siteState{count: op.Count, code: op.Code}
	if op.Count > 0 && !m.wasInjected(abi.Status(op.Code)) && m.nInj < len(m.injected) {
		m.injected[m.nInj] = abi.Status(op.Code)
		m.nInj++
	}
}

// hostLogLevels are the thresholds S-2 lets the binder accept.
var hostLogLevels = [...]int32{10, 20, 25, 30, 40, 60}

// hostLog is S-2's binder.
func (m *Model) hostLog(op Op) {
	refused := abi.HostBindRefused
	if m.opt.Profile == ProfileLegacy {
		refused = abi.Internal // the runner reads a legacy -1 as the generic failure
	}
	switch {
	case op.OutNull:
		m.expect(RS2, one(refused), "a NULL state")
	case op.Site != 1:
		m.expect(RS2, one(refused), "abi_version "+strconv.Itoa(int(uint32(op.Site)))+", not 1")
	case op.Count < 16:
		m.expect(RS2, one(refused), "struct_size "+strconv.Itoa(int(op.Count))+" < 16")
	case !slices.Contains(hostLogLevels[:], op.Code):
		m.expect(RS2, one(refused), "threshold "+strconv.Itoa(int(op.Code))+" is not one of 10, 20, 25, 30, 40, 60")
	default:
		m.expect(RS2, one(abi.OK), "threshold "+strconv.Itoa(int(op.Code))+" is a log level")
	}
}
