package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os/exec"
	"path"
	"slices"
	"strings"
)

// A consumer is one side of the differential: its name and its driver (a
// process that performs steps, run.go). A consumer compared with lifecycle
// (the other side of every comparison) also has what
// consumers/KEY/actions declares (its name, its records' header, its
// action list) and its expectation file, consumers/KEY/verdicts; its
// records are testdata/KEY.
type consumer struct {
	key      string
	name     string
	about    []string
	actions  []action
	verdicts []verdict
	start    func(ctx context.Context, f files, steps []string) *exec.Cmd
}

// An action is one named user scenario: the steps a user takes (steps.go),
// performed alike by both consumers, each over the recording runtime over
// the same legacy fake. Base are the fake's knobs for every variant of the
// action.
type action struct {
	name  string
	steps []string
	base  []string
}

func act(name, steps string, base ...string) action {
	return action{name: name, steps: strings.Fields(steps), base: base}
}

//go:embed consumers
var declarations embed.FS

// consumerKeys lists the consumers declared under consumers/.
func consumerKeys() []string {
	dirs, _ := fs.ReadDir(declarations, "consumers")
	var keys []string
	for _, d := range dirs {
		keys = append(keys, d.Name())
	}
	return keys
}

// loadConsumer reads the declarations of consumer key; its driver is the
// caller's to set.
func loadConsumer(key string) (consumer, error) {
	c := consumer{key: key}
	dir := path.Join("consumers", key)
	text, err := declarations.ReadFile(path.Join(dir, "actions"))
	if err != nil {
		return c, fmt.Errorf("no consumer %q (declared: %s)", key, strings.Join(consumerKeys(), ", "))
	}
	if err := c.parseActions(string(text), path.Join(dir, "actions")); err != nil {
		return c, err
	}
	text, err = declarations.ReadFile(path.Join(dir, "verdicts"))
	if err != nil {
		return c, err
	}
	c.verdicts, err = parseVerdicts(string(text), path.Join(dir, "verdicts"))
	return c, err
}

// parseActions reads the name, the about lines and the actions of c.
func (c *consumer) parseActions(text, name string) error {
	for n, line := range strings.Split(text, "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case key == "name":
			c.name = val
		case key == "about":
			c.about = append(c.about, val)
		default:
			a, rest, ok := strings.Cut(line, ": ")
			if !ok {
				return fmt.Errorf("%s:%d: want ACTION: STEP... [| KNOB...], got %q", name, n+1, line)
			}
			steps, base, _ := strings.Cut(rest, "|")
			c.actions = append(c.actions, act(a, steps, strings.Fields(base)...))
		}
	}
	for i := range c.actions {
		if len(c.actions[i].base) == 0 {
			c.actions[i].base = nil
		}
	}
	if c.name == "" {
		return fmt.Errorf("%s: no name line", name)
	}
	return checkActions(c.actions)
}

// checkActions reports an action table that breaks its own rules: a unique
// name, known steps, and no worker left initialized at the end or replaced
// while initialized.
func checkActions(as []action) error {
	seen := map[string]bool{}
	for _, a := range as {
		if seen[a.name] {
			return fmt.Errorf("action %s is listed twice", a.name)
		}
		seen[a.name] = true
		initialized := false
		for _, s := range a.steps {
			head := stepHead(s)
			if _, ok := goSteps[head]; !ok {
				return fmt.Errorf("action %s: unknown step %s", a.name, s)
			}
			switch head {
			case "init":
				initialized = true
			case "finalize":
				initialized = false
			case "new":
				if initialized {
					return fmt.Errorf("action %s: new while the worker may be initialized (finalize it first)", a.name)
				}
			}
		}
		if initialized {
			return fmt.Errorf("action %s: ends with the worker initialized (end with finalize)", a.name)
		}
	}
	return nil
}

// selectActions is the actions of c named in only (comma-separated; all
// when empty).
func (c consumer) selectActions(only string) ([]action, error) {
	if only == "" {
		return c.actions, nil
	}
	var as []action
	for _, n := range splitList(only) {
		i := slices.IndexFunc(c.actions, func(a action) bool { return a.name == n })
		if i < 0 {
			return nil, fmt.Errorf("no action %q (chipdiff list)", n)
		}
		as = append(as, c.actions[i])
	}
	return as, nil
}
