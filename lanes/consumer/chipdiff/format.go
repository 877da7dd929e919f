package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A record file (testdata/KEY/ACTION.txt) holds a consumer's transcripts
// of one action, one per variant:
//
//	action NAME
//	steps STEP...
//	variant NAME | KNOB...
//	step N WORD | OUTCOME | DETAIL [| MESSAGE]
//	  CALL
//	after
//	  CALL
//	exit EXIT
//
// MESSAGE is what the consumer threw, for reading; it is not compared.

// record is one action's recorded variants.
type record struct {
	Action   string
	Steps    []string
	Variants []recordedVariant
}

type recordedVariant struct {
	Variant variant
	T       transcript
}

// writeRecord writes r under a header of the consumer's about lines.
func writeRecord(w io.Writer, about []string, r record) error {
	b := bufio.NewWriter(w)
	for _, l := range about {
		fmt.Fprintf(b, "# %s\n", l)
	}
	fmt.Fprintf(b, "action %s\nsteps %s\n", r.Action, strings.Join(r.Steps, " "))
	for _, v := range r.Variants {
		knobs := strings.Join(v.Variant.Knobs, " ")
		if knobs == "" {
			knobs = "-"
		}
		fmt.Fprintf(b, "variant %s | %s\n", v.Variant.Name, knobs)
		writeTranscript(b, v.T)
	}
	return b.Flush()
}

func writeTranscript(b io.Writer, t transcript) {
	for _, s := range t.Steps {
		fmt.Fprintf(b, "step %d %s | %s | %s", s.N, s.Word, s.Outcome, s.Detail)
		if s.Msg != "" {
			fmt.Fprintf(b, " | %s", s.Msg)
		}
		fmt.Fprintln(b)
		for _, c := range s.Calls {
			fmt.Fprintf(b, "  %s\n", c)
		}
	}
	if len(t.After) > 0 {
		fmt.Fprintln(b, "after")
		for _, c := range t.After {
			fmt.Fprintf(b, "  %s\n", c)
		}
	}
	fmt.Fprintf(b, "exit %s\n", t.Exit)
}

func readRecord(rd io.Reader) (record, error) {
	var r record
	var cur *recordedVariant
	var calls *[]string
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	bad := func(f string, a ...any) (record, error) {
		return record{}, fmt.Errorf("line %d: %s", n, fmt.Sprintf(f, a...))
	}
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "  "):
			if calls == nil {
				return bad("a call outside a step")
			}
			*calls = append(*calls, strings.TrimPrefix(line, "  "))
		case strings.HasPrefix(line, "action "):
			r.Action = strings.TrimPrefix(line, "action ")
		case strings.HasPrefix(line, "steps "):
			r.Steps = strings.Fields(strings.TrimPrefix(line, "steps "))
		case strings.HasPrefix(line, "variant "):
			name, knobs, ok := strings.Cut(strings.TrimPrefix(line, "variant "), " | ")
			if !ok {
				return bad("want variant NAME | KNOBS")
			}
			v := variant{Name: name}
			if knobs != "-" {
				v.Knobs = strings.Fields(knobs)
			}
			r.Variants = append(r.Variants, recordedVariant{Variant: v})
			cur, calls = &r.Variants[len(r.Variants)-1], nil
		case cur == nil:
			return bad("%q before the first variant", line)
		case strings.HasPrefix(line, "step "):
			f := strings.SplitN(strings.TrimPrefix(line, "step "), " | ", 4)
			if len(f) < 3 {
				return bad("want step N WORD | OUTCOME | DETAIL")
			}
			num, word, _ := strings.Cut(f[0], " ")
			k, err := strconv.Atoi(num)
			if err != nil {
				return bad("step number %q", num)
			}
			s := stepResult{N: k, Word: word, Outcome: f[1], Detail: f[2]}
			if len(f) == 4 {
				s.Msg = f[3]
			}
			cur.T.Steps = append(cur.T.Steps, s)
			calls = &cur.T.Steps[len(cur.T.Steps)-1].Calls
		case line == "after":
			calls = &cur.T.After
		case strings.HasPrefix(line, "exit "):
			cur.T.Exit = strings.TrimPrefix(line, "exit ")
			calls = nil
		default:
			return bad("unknown line %q", line)
		}
	}
	return r, sc.Err()
}
