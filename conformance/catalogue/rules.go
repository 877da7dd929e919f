package catalogue

import (
	"strings"

	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/docs"
)

// The rule catalogue: every rule ID of docs/contract.md, what it
// constrains and which profiles are held to it (in step with the
// contract's "Applies to:" lines).

// RuleScope is what a rule constrains.
type RuleScope uint8

// Rule scopes.
const (
	ScopeRuntime  RuleScope = iota // a host runtime: checked by this engine
	ScopeConsumer                  // the Go consumer (lifecycle): checked by its tests
	ScopeEmitter                   // the emitted fake runtime (sim/emit): checked by its tests
)

// RuleAnchor is the link to r's section of the contract (HOOKS: F-1's).
func RuleAnchor(r model.Rule) string {
	if r == model.RHooks {
		return docs.Anchor("F-1")
	}
	return docs.Anchor(r.String())
}

// RuleEntry is one rule of the catalogue.
type RuleEntry struct {
	ID    string
	Rule  model.Rule // RuleNone for consumer and emitter rules
	Scope RuleScope
}

// AppliesTo says where the rule applies, in the contract's words.
func (e RuleEntry) AppliesTo() string {
	switch e.Scope {
	case ScopeConsumer:
		return "consumers (lifecycle)"
	case ScopeEmitter:
		return "the emitted fake runtime (sim/emit)"
	}
	return profilesText(e.Rule.Applies)
}

// Anchor is the link to the rule's section of the contract.
func (e RuleEntry) Anchor() string { return docs.Anchor(e.ID) }

// Rules is every rule: runtime rules in contract order, then the
// consumer and emitter rules.
func Rules() []RuleEntry {
	var out []RuleEntry
	for _, r := range model.RuntimeRules() {
		if r == model.RHooks {
			continue // the simulation hooks (F-1): not a rule of their own
		}
		out = append(out, RuleEntry{ID: r.String(), Rule: r, Scope: ScopeRuntime})
	}
	for _, id := range model.ConsumerRules {
		s := ScopeConsumer
		if strings.HasPrefix(id, "F-") { // the emitter's rules
			s = ScopeEmitter
		}
		out = append(out, RuleEntry{ID: id, Scope: s})
	}
	return out
}

// RuleRow is one line of abicheck rules (also its JSON).
type RuleRow struct {
	ID        string `json:"id"`
	AppliesTo string `json:"applies_to"`
	OneLine   string `json:"one_line"`
	Anchor    string `json:"anchor"`
}

// RuleRows lists the catalogue with each rule's one line from the contract.
func RuleRows() ([]RuleRow, error) {
	sections, err := docs.Rules()
	if err != nil {
		return nil, err
	}
	byID := map[string]docs.RuleSection{}
	for _, s := range sections {
		byID[s.ID] = s
	}
	var rows []RuleRow
	for _, e := range Rules() {
		rows = append(rows, RuleRow{ID: e.ID, AppliesTo: e.AppliesTo(), OneLine: byID[e.ID].OneLine, Anchor: e.Anchor()})
	}
	return rows, nil
}

// NearRules are the rule IDs id may have meant (a prefix, or equal but
// for punctuation and case).
func NearRules(id string) []string {
	want := strings.ToUpper(strings.TrimSpace(id))
	flat := func(s string) string {
		return strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToUpper(s))
	}
	var out []string
	for _, e := range Rules() {
		if want != "" && (strings.HasPrefix(e.ID, want) || flat(e.ID) == flat(want)) {
			out = append(out, e.ID)
		}
	}
	return out
}
