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

// ConsumerRequirement is one symbol that the consumer of a revision
// resolves at load.
type ConsumerRequirement struct {
	Symbol
	// Revision is the revision whose consumer requires it.
	Revision Revision
	// Since says where the requirement comes from: for the legacy revision
	// the upstream change from which ChipWorker resolves the symbol (its
	// string first appears among chip_worker.cpp's load_symbol calls); for
	// the target revision C-BIND-1.
	Since string
	// WhenSupported: required only when simpler_kernel_mode_supported
	// returns nonzero on a fresh context (the kernel trio).
	WhenSupported bool
}

// String names the symbol, its group and what requires it, as the export
// check prints it.
func (c ConsumerRequirement) String() string {
	return fmt.Sprintf("%s (%s; required by %s: %s)", c.Name, c.Group, ConsumerOf(c.Revision), c.Since)
}

// Short names the symbol and its group, and for a legacy requirement the
// upstream change that made ChipWorker resolve it: the form of a list whose
// consumer is named once (FormatMissing).
func (c ConsumerRequirement) Short() string {
	if c.Revision == RevLegacy {
		return fmt.Sprintf("%s (%s, %s)", c.Name, c.Group, c.Since)
	}
	return fmt.Sprintf("%s (%s)", c.Name, c.Group)
}

// ConsumerOf names the consumer of revision rev whose set ConsumerSet is.
func ConsumerOf(rev Revision) string {
	if rev == RevLegacy {
		return "the legacy consumer, " + LegacyConsumer
	}
	return "the kernel revision's consumer (C-BIND-1)"
}

// LegacyConsumer names the consumer whose set ConsumerSet(RevLegacy) is.
const LegacyConsumer = "upstream ChipWorker at 6ebaf77 (src/common/worker/chip_worker.cpp)"

// ConsumerSet returns what the consumer of revision rev resolves at load, in
// table order: for RevLegacy upstream's ChipWorker at 6ebaf77 (43 symbols);
// for RevKernel C-BIND-1's required set, the kernel trio marked
// WhenSupported. Simulation hooks are never in it.
func ConsumerSet(rev Revision) []ConsumerRequirement {
	var out []ConsumerRequirement
	for _, s := range Symbols {
		if !s.Revisions.Has(rev) || s.Required == Optional {
			continue
		}
		c := ConsumerRequirement{Symbol: s, Revision: rev}
		switch rev {
		case RevLegacy:
			if s.ChipWorker == "" {
				continue
			}
			c.Since = s.ChipWorker
		default:
			c.Since = "C-BIND-1, docs/contract.md's entry table"
			if s.Required == RequiredWhenSupported {
				c.WhenSupported = true
				c.Since += ", when " + EntryKernelSupported.Name() + " is nonzero"
			}
		}
		out = append(out, c)
	}
	return out
}

// MissingExports returns the requirements of rev's consumer that a library
// whose exports are those exports reports lacks, in table order. The kernel
// trio counts only when whenSupported says the build reports support.
func MissingExports(rev Revision, exports func(name string) bool, whenSupported bool) []ConsumerRequirement {
	var out []ConsumerRequirement
	for _, c := range ConsumerSet(rev) {
		if c.WhenSupported && !whenSupported {
			continue
		}
		if !exports(c.Name) {
			out = append(out, c)
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
	return strings.Join(parts, ", ") + "; required by " + ConsumerOf(ms[0].Revision)
}
