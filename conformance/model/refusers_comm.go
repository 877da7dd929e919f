package model

import (
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

// The comm family's conditions (E-COMM): every refusal is -1 (comm_init's
// a NULL handle), so any two one call breaks share it.

// rankIDsRead is how many rank_ids entries a condition reads (the runner's 256).
const rankIDsRead = 256

func init() {
	defineRefusers(op.KindCommInit, func(m *Model, o Op, _ *mctx, rs *refusals) {
		if m.cm != nil && m.cm.unknown {
			return
		}
		c := o.Comm
		// comm_init refuses with a NULL handle, not a code: the empty set.
		add := func(clause, cond string) { rs.out = append(rs.out, Refusal{Clause: clause, Cond: cond}) }
		if c.Path < 0 {
			add("E-COMM.1", "a NULL rootinfo_path")
		}
		if c.Rank < 0 || c.NRanks <= 0 || c.Rank >= int64(c.NRanks) {
			add("E-COMM.2", "rank outside [0, nranks)")
		}
		if c.NRanks > abi.CommMaxRankNum {
			add("E-COMM.3", "nranks above 64")
		}
	})
	defineRefusers(op.KindCommAlloc, commRefusers(func(_ *commModel, c op.CommRecipe, h *commHandle, rs *refusals) {
		nullHandle(h, "E-COMM.5", rs)
		rs.commIf(c.NullOut, "E-COMM.5", "a NULL device_ctx_out")
	}))
	query := commRefusers(func(_ *commModel, c op.CommRecipe, h *commHandle, rs *refusals) {
		nullHandle(h, "E-COMM.10", rs)
		rs.commIf(c.NullOut, "E-COMM.10", "a NULL out pointer")
	})
	defineRefusers(op.KindCommBase, query)
	defineRefusers(op.KindCommSize, query)
	defineRefusers(op.KindCommDerive, commRefusers(deriveRefusers))
	defineRefusers(op.KindCommBarrier, commRefusers(func(_ *commModel, _ op.CommRecipe, h *commHandle, rs *refusals) {
		nullHandle(h, "E-COMM.18", rs)
		rs.commIf(h != nil && h.seg < 0, "E-COMM.18", "a handle without windows")
	}))
	defineRefusers(op.KindCommDestroy, commRefusers(func(_ *commModel, _ op.CommRecipe, h *commHandle, rs *refusals) {
		nullHandle(h, "E-COMM.56", rs)
	}))
	defineRefusers(op.KindCommDomainAlloc, commRefusers(domainAllocRefusers))
	defineRefusers(op.KindCommDomainRelease, commRefusers(func(_ *commModel, c op.CommRecipe, h *commHandle, rs *refusals) {
		if nullHandle(h, "E-COMM.30", rs) {
			return
		}
		switch d := h.domain(c.ID); {
		case d == nil:
			rs.comm("E-COMM.31", "an allocation_id not live on the handle")
		case uint64(d.nranks) != c.N || uint32(d.rank) != uint32(c.Rank):
			rs.comm("E-COMM.32", "a rank_count or domain_rank other than the allocation's")
		}
	}))
	defineRefusers(op.KindCommGlobalPrepare, commRefusers(globalPrepareRefusers))
	defineRefusers(op.KindCommGlobalImport, commRefusers(globalImportRefusers))
}

// commRefusers wraps a comm kind's conditions: none once the family is not judged.
func commRefusers(f func(cm *commModel, c op.CommRecipe, h *commHandle, rs *refusals)) refuserFunc {
	return func(m *Model, o Op, _ *mctx, rs *refusals) {
		cm := m.cm
		if cm == nil {
			cm = newCommModel() // read only: the model's own is made by its first comm step
		}
		if cm.unknown {
			return
		}
		before := len(rs.out)
		f(cm, o.Comm, cm.handle(o.Comm.H), rs)
		if t, ok := commTimeoutOf[o.Kind]; ok && len(rs.out) == before && m.CommTimesOut(o) {
			rs.comm(t.clause, "no peer it waits for comes before the short comm timeout in force")
		}
	}
}

// nullHandle adds clause's NULL-handle condition; it reports a NULL handle.
func nullHandle(h *commHandle, clause string, rs *refusals) bool {
	rs.commIf(h == nil, clause, "a NULL handle")
	return h == nil
}

// rankCountBad: rank_count 0 or above 64, or domain_rank >= rank_count.
func rankCountBad(c op.CommRecipe) bool {
	return c.N == 0 || c.N > abi.CommMaxRankNum || uint64(c.Rank) >= c.N
}

func deriveRefusers(_ *commModel, c op.CommRecipe, h *commHandle, rs *refusals) {
	nullHandle(h, "E-COMM.12", rs)
	rs.commIf(c.IDs.Null, "E-COMM.12", "a NULL rank_ids")
	rs.commIf(c.NullOut, "E-COMM.12", "a NULL device_ctx_out")
	rs.commIf(h != nil && h.seg < 0, "E-COMM.13", "a handle without windows")
	rs.commIf(rankCountBad(c), "E-COMM.14", "rank_count 0 or above 64, or domain_rank >= rank_count")
	if h == nil {
		return
	}
	rs.commIf(abi.CommDeriveRangeRefused(c.Off, c.Win, h.win), "E-COMM.15", "window_offset + window_size past winSize, or wrapping past 2^64")
	if !c.IDs.Null {
		for i := 0; uint64(i) < c.N && i < rankIDsRead; i++ {
			if c.IDs.Entry(i) >= uint32(h.nranks) {
				rs.comm("E-COMM.16", "a rank_ids entry >= nranks")
				break
			}
		}
	}
}

func domainAllocRefusers(_ *commModel, c op.CommRecipe, h *commHandle, rs *refusals) {
	nullHandle(h, "E-COMM.22", rs)
	rs.commIf(c.IDs.Null, "E-COMM.22", "a NULL rank_ids")
	rs.commIf(c.NullOut, "E-COMM.22", "a NULL device_ctx_out")
	rs.commIf(c.NullBase, "E-COMM.22", "a NULL local_window_base_out")
	rs.commIf(rankCountBad(c), "E-COMM.23", "rank_count 0 or above 64, or domain_rank >= rank_count")
	rs.commIf(c.Win == 0, "E-COMM.24", "window_size 0")
	if h == nil {
		return
	}
	rs.commIf(h.domain(c.ID) != nil, "E-COMM.25", "an allocation_id live on the handle")
	rs.commIf(!c.IDs.Null && c.Rank >= 0 && c.Rank < rankIDsRead && c.IDs.Entry(int(c.Rank)) != uint32(h.rank), "E-COMM.26", "rank_ids[domain_rank] other than the handle's rank")
}

func globalPrepareRefusers(cm *commModel, c op.CommRecipe, _ *commHandle, rs *refusals) {
	rs.commIf(c.ID == 0, "E-COMM.35", "domain_id 0")
	rs.commIf(rankCountBad(c), "E-COMM.36", "rank_count 0 or above 64, or domain_rank >= rank_count")
	rs.commIf(c.Win == 0, "E-COMM.37", "window_size 0")
	rs.commIf(c.GPProfile() != abi.CommProfileSimShm, "E-COMM.38", "a profile other than SIM_SHM (1)")
	rs.commIf(c.NullOut, "E-COMM.39", "a NULL descriptor_out")
	rs.commIf(c.NullBase, "E-COMM.39", "a NULL local_window_base_out")
	rs.commIf(c.ID != 0 && cm.globals[c.ID] != nil, "E-COMM.40", "a domain_id prepared and not released")
}

func globalImportRefusers(cm *commModel, c op.CommRecipe, _ *commHandle, rs *refusals) {
	g := cm.globals[c.ID]
	rs.commIf(g == nil, "E-COMM.42", "a domain not prepared")
	rs.commIf(c.Descs.Null, "E-COMM.42", "NULL descriptors")
	rs.commIf(c.NullOut, "E-COMM.42", "a NULL device_ctx_out")
	if g == nil {
		return // nothing to hold the descriptors to
	}
	rs.commIf(c.DescCount() != uint64(g.nranks), "E-COMM.43", "a descriptor_count other than the domain's rank_count")
	rs.commIf(g.imported, "E-COMM.44", "a domain imported already")
	if c.Descs.Null {
		return
	}
	// Each condition once, for the first descriptor that breaks it.
	var bad [len(importChecks)]bool
	var dup, open bool
	seen := map[uint32]bool{}
	for i := 0; uint64(i) < c.DescCount() && i < rankIDsRead; i++ {
		d := cm.importDesc(c, i)
		for k, x := range importChecks {
			bad[k] = bad[k] || x.bad(d, g)
		}
		dup = dup || seen[d.rank]
		seen[d.rank] = true
		open = open || (d.rank != g.rank && d.seg != -2 && (d.seg < 0 || !cm.segs[d.seg].linked))
	}
	for k, x := range importChecks {
		rs.commIf(bad[k], x.clause, "a descriptor's "+x.what)
	}
	rs.commIf(dup, "E-COMM.49", "a domain_rank an earlier descriptor named")
	rs.commIf(open, "E-COMM.50", "a peer's window that cannot be opened")
}
