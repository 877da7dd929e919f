package abi

import (
	"fmt"
	"strings"
)

// What a consumer of each revision resolves when it loads a runtime, so that
// a runtime's exports can be held to it before anything is called: a library
// missing one of these is one its consumer cannot load, whatever it does
// with the rest (C-BIND-1).
//
// The legacy revision's consumer is upstream's ChipWorker at 6ebaf77
// (src/common/worker/chip_worker.cpp:205-256, one load_symbol each, plus
// simpler_host_log_bind_state through src/common/log/include/common/host_log_binding.h):
// it resolves 43 symbols unconditionally and throws on the first missing.
// The target revision's consumer is C-BIND-1's: every required entry of
// docs/contract.md's table, the kernel trio only when supported.

// Consumer is a consumer whose symbol set a library is held to.
type Consumer uint8

// The consumers.
const (
	// KernelConsumer is the kernel revision's consumer, C-BIND-1's.
	KernelConsumer Consumer = iota
	// ChipWorker is upstream's ChipWorker at 6ebaf77, the legacy revision's
	// consumer: it resolves the rows whose ChipWorker is set.
	ChipWorker
)

// LegacyConsumer names the code whose set ChipWorker's is.
const LegacyConsumer = "upstream ChipWorker at 6ebaf77 (src/common/worker/chip_worker.cpp)"

// String names the consumer as the export check prints it.
func (c Consumer) String() string {
	if c == ChipWorker {
		return "the legacy consumer, " + LegacyConsumer
	}
	return "the kernel revision's consumer (C-BIND-1)"
}

// Revision is the revision the consumer loads.
func (c Consumer) Revision() Revision {
	if c == ChipWorker {
		return RevLegacy
	}
	return RevKernel
}

// ConsumerOf is the consumer of revision rev.
func ConsumerOf(rev Revision) Consumer {
	if rev == RevLegacy {
		return ChipWorker
	}
	return KernelConsumer
}

// ConsumerRequirement is one symbol that a consumer resolves at load.
type ConsumerRequirement struct {
	Symbol
	Consumer Consumer
	// Since says where the requirement comes from: for ChipWorker the
	// upstream change from which it resolves the symbol (the row's
	// ChipWorker); for the kernel consumer C-BIND-1.
	Since string
	// WhenSupported: required only when simpler_kernel_mode_supported
	// returns nonzero on a fresh context (the kernel trio).
	WhenSupported bool
}

// String names the symbol, its group and what requires it, as the export
// check prints it.
func (c ConsumerRequirement) String() string {
	return fmt.Sprintf("%s (%s; required by %s: %s)", c.Name, c.Group, c.Consumer, c.Since)
}

// Short names the symbol and its group, and for ChipWorker the upstream
// change that made it resolve the symbol: the form of a list whose consumer
// is named once (FormatMissing).
func (c ConsumerRequirement) Short() string {
	if c.Consumer == ChipWorker {
		return fmt.Sprintf("%s (%s, %s)", c.Name, c.Group, c.Since)
	}
	return fmt.Sprintf("%s (%s)", c.Name, c.Group)
}

// ConsumerSet returns what consumer c resolves at load, in table order: for
// ChipWorker its 43 symbols; for the kernel consumer C-BIND-1's required
// set, the kernel trio marked WhenSupported. Simulation hooks are never in
// it.
func ConsumerSet(c Consumer) []ConsumerRequirement {
	var out []ConsumerRequirement
	for _, s := range Symbols {
		r := ConsumerRequirement{Symbol: s, Consumer: c, Since: s.ChipWorker}
		switch {
		case !s.Revisions.Has(c.Revision()) || s.Required == Optional:
			continue
		case c == ChipWorker && s.ChipWorker == "":
			continue
		case c == KernelConsumer:
			r.Since = "C-BIND-1, docs/contract.md's entry table"
			if s.Required == RequiredWhenSupported {
				r.WhenSupported = true
				r.Since += ", when " + EntryKernelSupported.Name() + " is nonzero"
			}
		}
		out = append(out, r)
	}
	return out
}

// MissingExports returns the requirements of consumer c that a library
// whose exports are those exports reports lacks, in table order. The kernel
// trio counts only when whenSupported says the build reports support.
func MissingExports(c Consumer, exports func(name string) bool, whenSupported bool) []ConsumerRequirement {
	var out []ConsumerRequirement
	for _, r := range ConsumerSet(c) {
		if r.WhenSupported && !whenSupported {
			continue
		}
		if !exports(r.Name) {
			out = append(out, r)
		}
	}
	return out
}

// ExportRevision is the revision a library's export set shows: legacy when
// it has no simpler_kernel_mode_supported and does have
// simpler_provision_dma_workspace (C-BIND-1), else the target revision.
func ExportRevision(exports func(name string) bool) Revision {
	if !exports(EntryKernelSupported.Name()) && exports(EntryProvisionDMAWorkspace.Name()) {
		return RevLegacy
	}
	return RevKernel
}

// FormatMissing renders missing requirements of one revision on one line:
// each symbol with its group, then the consumer that requires them.
func FormatMissing(ms []ConsumerRequirement) string {
	if len(ms) == 0 {
		return ""
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.Short()
	}
	return strings.Join(parts, ", ") + "; required by " + ms[0].Consumer.String()
}
