package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
)

// A transcript is what one consumer did in one run of an action: per step
// its outcome and the native calls it made (normalized trace lines), the
// calls made after the last step (the process's exit), and how the process
// ended.
type transcript struct {
	Steps []stepResult
	After []string
	Exit  string // "0", or "exit N: <the fake's invariant line>" when it died
}

// stepResult is one step: ok with its detail, or err with its class
// (code=N: the consumer forwarded an entry's code; host: it refused or
// failed by itself) and, for reading only, its message.
type stepResult struct {
	N       int
	Word    string
	Outcome string // ok, err
	Detail  string
	Msg     string
	Calls   []string
}

// answer is a step's outcome and detail, what is compared of it.
func (s stepResult) answer() string { return s.Outcome + " " + s.Detail }

var stepLine = regexp.MustCompile(`^STEP (\d+) (\S+) \| (ok|err) \| ([^|]*) \| (-?\d+)(?: \| (.*))?$`)

// parseRun reads a consumer's step lines (out) and its trace (trace, the
// recorder's file; "" when none was written) into a transcript. exit is
// "0" or what ended the process.
func parseRun(out, trace, exit string) (transcript, error) {
	calls, err := normalizeTrace(trace)
	if err != nil {
		return transcript{}, err
	}
	t := transcript{Exit: exit}
	at := 0
	take := func(upto int) []string {
		// A load marker before the first call of a step belongs to it.
		n := 0
		var got []string
		for at < len(calls) {
			c := calls[at]
			if c != "load" {
				if n == upto {
					break
				}
				n++
			}
			got = append(got, c)
			at++
		}
		return got
	}
	seen := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	ended := false
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "END "); ok {
			n, _ := strconv.Atoi(rest)
			t.After = take(n - seen)
			seen = n
			ended = true
			continue
		}
		m := stepLine.FindStringSubmatch(line)
		if m == nil {
			return transcript{}, fmt.Errorf("not a step line: %q", line)
		}
		n, _ := strconv.Atoi(m[1])
		c, _ := strconv.Atoi(m[5])
		if c < seen {
			c = seen
		}
		s := stepResult{N: n, Word: m[2], Outcome: m[3], Detail: strings.TrimSpace(m[4]), Msg: strings.TrimSpace(m[6])}
		s.Calls = take(c - seen)
		seen = c
		t.Steps = append(t.Steps, s)
	}
	if !ended { // the process died: what it called after its last step line
		t.After = take(len(calls))
	}
	return t, sc.Err()
}

var (
	callLine  = regexp.MustCompile(`^@\d+(?:-\d+)? t\d+ (dev=\S+ .*)$`)
	rawField  = regexp.MustCompile(`\b(cfg|prewarm|desc)=raw\(([0-9a-f]*)\)`)
	imgField  = regexp.MustCompile(`\bimg=raw\((\d+),(\d+),([0-9a-f]+)\)`)
	epochName = regexp.MustCompile(`epoch=(\d+)`)
)

// normalizeTrace turns a recorder trace into normalized call lines: the
// sequence numbers and thread dropped (one thread calls), each session's
// header one "load" line, a CallConfig as its nonzero bytes, a descriptor
// as its fields with the run epoch numbered by first appearance (e1, e2,
// ...), an image as its size, alignment and a hash of its bytes. Handles,
// storages and pointers the recorder already names (c0, st=0, ptr).
func normalizeTrace(text string) ([]string, error) {
	var out []string
	epochs := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "# simabi trace "):
			out = append(out, "load")
		case strings.HasPrefix(line, "#"):
		default:
			m := callLine.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("not a trace line: %q", line)
			}
			c := rawField.ReplaceAllStringFunc(m[1], func(f string) string {
				sm := rawField.FindStringSubmatch(f)
				b, err := hex.DecodeString(sm[2])
				if err != nil {
					return f
				}
				if sm[1] == "desc" {
					return "desc=" + descText(b)
				}
				return sm[1] + "=" + sparse(b)
			})
			c = imgField.ReplaceAllStringFunc(c, func(f string) string {
				sm := imgField.FindStringSubmatch(f)
				b, _ := hex.DecodeString(sm[3])
				sum := sha256.Sum256(b)
				return fmt.Sprintf("img=raw(%s,%s,#%x)", sm[1], sm[2], sum[:4])
			})
			c = epochName.ReplaceAllStringFunc(c, func(f string) string {
				v := strings.TrimPrefix(f, "epoch=")
				if _, ok := epochs[v]; !ok {
					epochs[v] = fmt.Sprintf("e%d", len(epochs)+1)
				}
				return "epoch=" + epochs[v]
			})
			out = append(out, c)
		}
	}
	return out, nil
}

// sparse writes bytes as their length and nonzero runs, @offset:hex.
func sparse(b []byte) string {
	var parts []string
	for i := 0; i < len(b); {
		if b[i] == 0 {
			i++
			continue
		}
		j := i
		for j < len(b) && b[j] != 0 {
			j++
		}
		parts = append(parts, fmt.Sprintf("@%d:%x", i, b[i:j]))
		i = j
	}
	if len(parts) == 0 {
		return fmt.Sprintf("zero(%d)", len(b))
	}
	return fmt.Sprintf("bytes(%d;%s)", len(b), strings.Join(parts, ","))
}

// descText writes a NativeRunDescriptor's fields.
func descText(b []byte) string {
	if len(b) < abi.NativeRunDescSize {
		return "short(" + hex.EncodeToString(b) + ")"
	}
	le := binary.LittleEndian
	acc := "null"
	if le.Uint64(b[abi.DescAcceptedStateOff:]) != 0 {
		acc = "set"
	}
	return fmt.Sprintf("{slot=%d bank=%d run=%d gen=%d dispatch=%d epoch=%d accepted=%s/%d}",
		le.Uint32(b[abi.DescPipelineSlotOff:]), le.Uint32(b[abi.DescArenaBankOff:]), le.Uint64(b[abi.DescRunIDOff:]),
		le.Uint64(b[abi.DescGenerationOff:]), le.Uint64(b[abi.DescDispatchIDOff:]), le.Uint64(b[abi.DescRunEpochOff:]),
		acc, int32(le.Uint32(b[abi.DescAcceptedValueOff:])))
}

// entryOf names the entry of a normalized call line ("" for a load line or
// a line the legacy vocabulary does not know).
func entryOf(call string) string {
	if call == "load" {
		return ""
	}
	f := strings.Fields(call)
	if len(f) < 2 {
		return ""
	}
	body := f[1:]
	for i, w := range body {
		if w == "->" {
			body = body[:i]
			break
		}
	}
	e, err := tracevocab.Lookup(abi.RevLegacy, body[0], body[1:])
	if err != nil {
		return ""
	}
	return e.Symbol
}
