// Package catalogue is the checker's catalogue: the directed checks
// (checks/*.ops), the clause table binding each clause of docs/contract.md
// to the checks that judge it and the mutants that break it, the rule
// catalogue and abicheck explain's text. It is data and pure functions, so
// the reports read it without the runner (package conformance).
package catalogue

import (
	"embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// Check is a directed rule check: a named op sequence tagged with the rules
// it exercises. The model decides every expectation; a check only chooses
// the ops.
type Check struct {
	Name     string
	Rules    []model.Rule
	Kills    []string        // the mutants of the clauses it judges
	Needs    Caps            // capabilities without which the check is skipped
	Profiles []model.Profile // profiles it applies to (nil: tmr and refusing)
	Slow     bool            // takes more than a few milliseconds (M-4, M-5, X-2)
	// Shared names the calls (op text) whose deciding clause shares its
	// code with the next on purpose, each with why (conformance.MaskedCalls).
	Shared map[string]string
	Script string
	ops    []op.Op
	src    string // the file and line its script starts after
	line   int
}

// Ops is the check's sequence.
func (c *Check) Ops() []op.Op { return c.ops }

// AppliesTo reports whether the check runs on a build of profile p.
func (c *Check) AppliesTo(p model.Profile) bool {
	if c.Profiles == nil {
		return p == model.ProfileTMR || p == model.ProfileRefusing
	}
	return slices.Contains(c.Profiles, p)
}

// The directed checks are op scripts, checks/*.ops, read in name order
// (the order they run and reports list them). A check starts at a header
// of comment lines, so each file stays a script abicheck replay takes:
//
//	# check: NAME
//	# rules: RULE...            the rules its findings are filed under
//	# profiles: PROFILE...      absent: tmr and refusing
//	# needs: CAP...             capabilities without which it is skipped
//	# slow: yes
//	# judges: CLAUSE [MUTANT...]
//
// and ends at the next "# check:". A "judges" line binds the check to a
// clause and the clause's mutants (each named once); a clause lists the
// checks naming mutants first. A lone "#" ends the header; "# shared: WHY"
// after an op text fills Check.Shared.
//
//go:embed checks/*.ops
var checkFiles embed.FS

// judged is what the catalogue's headers bind to one clause.
type judged struct{ killers, others, mutants []string }

// catalogueData is the loaded catalogue: the checks and the clause table.
type catalogueData struct {
	checks  []Check
	clauses []ClauseSpec
}

// loaded reads the embedded catalogue once; it is source, so an error in
// it fails every test.
var loaded = sync.OnceValue(func() catalogueData {
	d, err := loadCatalogue()
	if err != nil {
		panic(err)
	}
	return d
})

func loadCatalogue() (catalogueData, error) {
	files, err := checkFiles.ReadDir("checks")
	if err != nil {
		return catalogueData{}, err
	}
	var checks []Check
	clauses := map[string]*judged{}
	for _, f := range files {
		path := "checks/" + f.Name()
		text, err := checkFiles.ReadFile(path)
		if err != nil {
			return catalogueData{}, err
		}
		cs, err := parseChecks(path, string(text), clauses)
		if err != nil {
			return catalogueData{}, err
		}
		checks = append(checks, cs...)
	}
	seen := map[string]bool{}
	for _, c := range checks {
		if seen[c.Name] {
			return catalogueData{}, fmt.Errorf("checks: two checks are named %s", c.Name)
		}
		seen[c.Name] = true
	}
	cl, err := clauseTable(clauses)
	if err != nil {
		return catalogueData{}, err
	}
	kills := claimedMutants(cl)
	for i := range checks {
		checks[i].Kills = kills[checks[i].Name]
	}
	return catalogueData{checks, cl}, nil
}

// checkParser reads one file of checks.
type checkParser struct {
	path    string
	checks  []Check
	clauses map[string]*judged
	header  bool // in the current check's header
	start   int  // the file line its script starts after
	body    strings.Builder
}

func parseChecks(path, text string, clauses map[string]*judged) ([]Check, error) {
	p := &checkParser{path: path, clauses: clauses}
	for i, line := range strings.Split(text, "\n") {
		if name, ok := strings.CutPrefix(line, "# check: "); ok {
			if err := p.finish(); err != nil {
				return nil, err
			}
			p.checks = append(p.checks, Check{Name: strings.TrimSpace(name)})
			p.header, p.start = true, i+1
			p.body.Reset()
		} else if err := p.line(i+1, line); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p.checks, nil
}

func (p *checkParser) line(n int, line string) error {
	if p.header {
		if key, val, ok := strings.Cut(strings.TrimPrefix(line, "# "), ": "); ok && strings.HasPrefix(line, "# ") {
			return p.headerLine(key, strings.Fields(val))
		}
		p.header, p.start = false, n-1
	}
	if len(p.checks) == 0 {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			return nil
		}
		return fmt.Errorf("%q is outside a check (a check starts at \"# check: NAME\")", line)
	}
	p.body.WriteString(line + "\n")
	c := &p.checks[len(p.checks)-1]
	if call, why, ok := strings.Cut(line, "# shared: "); ok {
		call = strings.TrimSpace(call)
		if _, dup := c.Shared[call]; dup || call == "" {
			return fmt.Errorf("check %s: a second or empty shared note for %q", c.Name, call)
		}
		if c.Shared == nil {
			c.Shared = map[string]string{}
		}
		c.Shared[call] = why
	}
	return nil
}

// headerLine applies one "# key: value" line of a check's header.
func (p *checkParser) headerLine(key string, val []string) error {
	c := &p.checks[len(p.checks)-1]
	switch key {
	case "rules":
		for _, v := range val {
			r, ok := model.RuleByName(v)
			if !ok {
				return fmt.Errorf("check %s: no rule %q", c.Name, v)
			}
			c.Rules = append(c.Rules, r)
		}
	case "profiles":
		c.Profiles = []model.Profile{}
		for _, v := range val {
			pr, ok := abi.ParseProfile(v)
			if !ok {
				return fmt.Errorf("check %s: no profile %q", c.Name, v)
			}
			c.Profiles = append(c.Profiles, pr)
		}
	case "needs":
		for _, v := range val {
			cp, ok := capNamed(v)
			if !ok {
				return fmt.Errorf("check %s: no capability %q", c.Name, v)
			}
			c.Needs |= cp
		}
	case "slow":
		c.Slow = slices.Equal(val, []string{"yes"})
	case "judges":
		if len(val) == 0 {
			return fmt.Errorf("check %s: judges names no clause", c.Name)
		}
		j := p.clauses[val[0]]
		if j == nil {
			j = &judged{}
			p.clauses[val[0]] = j
		}
		if len(val) == 1 {
			j.others = append(j.others, c.Name)
			return nil
		}
		j.killers = append(j.killers, c.Name)
		j.mutants = append(j.mutants, val[1:]...)
	default:
		return fmt.Errorf("check %s: unknown header %q (rules, profiles, needs, slow, judges)", c.Name, key)
	}
	return nil
}

// finish closes the current check (its script is parsed later, parsed).
func (p *checkParser) finish() error {
	if len(p.checks) == 0 {
		return nil
	}
	c := &p.checks[len(p.checks)-1]
	c.Script, c.src, c.line = p.body.String(), p.path, p.start
	if len(c.Rules) == 0 {
		return fmt.Errorf("%s:%d: check %s names no rules", p.path, p.start, c.Name)
	}
	return nil
}

// parsed is the catalogue with each check's ops, parsed on first use.
var parsed = sync.OnceValue(func() []Check {
	checks := slices.Clone(loaded().checks)
	for i := range checks {
		if err := checks[i].parse(); err != nil {
			panic(err)
		}
	}
	return checks
})

// parse reads the check's script into its ops.
func (c *Check) parse() error {
	ops, err := op.ParseScript(c.Script)
	switch {
	case err != nil: // again at the file's lines, so the error names its line
		_, err = op.ParseScript(strings.Repeat("\n", c.line) + c.Script)
		return fmt.Errorf("%s: check %s: %w", c.src, c.Name, err)
	case len(ops) == 0:
		return fmt.Errorf("%s:%d: check %s has no ops", c.src, c.line, c.Name)
	}
	c.ops = ops
	return nil
}

// Checks returns the directed checks, parsed.
func Checks() []Check { return slices.Clone(parsed()) }
