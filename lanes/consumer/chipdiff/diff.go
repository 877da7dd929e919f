package main

import (
	"fmt"
	"slices"
	"strings"
)

// A difference is one place where lifecycle did not do what the consumer
// did in the same run of an action: a step's answer (ok with its detail, or an
// error of the same class), the native calls a step made, the calls at
// exit, or how the process ended.
type difference struct {
	Action, Variant string
	Step            int // 0: the process's end (after the last step)
	Word            string
	What            string // answer, calls, after, exit, steps
	CW, Go          string
	Names           [2]string // the consumer's, lifecycle's
}

func (d difference) String() string {
	where := "at exit"
	if d.Step > 0 {
		where = fmt.Sprintf("step %d %s", d.Step, d.Word)
	}
	w := max(len(d.Names[0]), len(d.Names[1])) + 1
	return fmt.Sprintf("%s [%s] %s: %s differ\n    %-*s %s\n    %-*s %s", d.Action, d.Variant, where, d.What,
		w, d.Names[0]+":", d.CW, w, d.Names[1]+":", d.Go)
}

// compare lists the differences of lifecycle's transcript gw from the
// consumer's cw, for one variant of an action; names are theirs.
func compare(names [2]string, a action, v variant, cw, gw transcript) []difference {
	var out []difference
	add := func(step int, word, what, c, g string) {
		out = append(out, difference{Action: a.name, Variant: v.Name, Step: step, Word: word, What: what, CW: c, Go: g, Names: names})
	}
	if len(cw.Steps) != len(gw.Steps) {
		add(0, "", "steps", fmt.Sprintf("%d steps", len(cw.Steps)), fmt.Sprintf("%d steps", len(gw.Steps)))
	}
	for i := range min(len(cw.Steps), len(gw.Steps)) {
		c, g := cw.Steps[i], gw.Steps[i]
		if c.answer() != g.answer() {
			add(c.N, c.Word, "answer", c.answer()+msgOf(c), g.answer()+msgOf(g))
		}
		if !slices.Equal(c.Calls, g.Calls) {
			add(c.N, c.Word, "calls", callsText(c.Calls), callsText(g.Calls))
		}
	}
	if !slices.Equal(cw.After, gw.After) {
		add(0, "", "after", callsText(cw.After), callsText(gw.After))
	}
	if cw.Exit != gw.Exit {
		add(0, "", "exit", cw.Exit, gw.Exit)
	}
	return out
}

func msgOf(s stepResult) string {
	if s.Msg == "" {
		return ""
	}
	return " (" + s.Msg + ")"
}

func callsText(calls []string) string {
	if len(calls) == 0 {
		return "no call"
	}
	return strings.Join(calls, "; ")
}
