package conformance

import "sync"

// Supplementary directed checks: checks beside the catalogue of catalogue.go
// that the CLI runs too. Each says why it exists; once catalogue.go covers
// the same ground, it goes.
var supplementary = []Check{
	// m-5/byte-budget starts with the size step of E-PREP (a 2 GiB + 64
	// image), so a runtime that does not enforce the budget fails there,
	// under E-PREP, and the model stops before the budget itself is reached.
	// This check fills the budget first, so the missing budget is reported
	// under M-5 (mutant no-byte-budget).
	{Name: "m-5/fill-the-budget", Rules: []Rule{RM5}, Kills: []string{"no-byte-budget"}, Profiles: tmrOnly, Slow: true, Script: prelude + `
prepare c0 img=valid(b=1048576) rep=1024
prepare c0 img=valid(b=1048576)
prepare c0 img=valid()
launch c0 id=1024 stream=s0
launch c0 id=1023 stream=s0
`},
}

var supplementaryOnce sync.Once

// SupplementaryChecks returns the supplementary directed checks, parsed.
func SupplementaryChecks() []Check {
	supplementaryOnce.Do(func() {
		for i := range supplementary {
			supplementary[i].ops = MustParseScript(supplementary[i].Script)
		}
	})
	out := make([]Check, len(supplementary))
	copy(out, supplementary)
	return out
}

// FullCatalogue is Catalogue followed by SupplementaryChecks: what the CLI
// runs.
func FullCatalogue() []Check { return append(Catalogue(), SupplementaryChecks()...) }
