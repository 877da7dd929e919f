package main

import (
	"github.com/simabi/simabi/conformance/op"

	"fmt"
	"io"
	"os"

	"github.com/simabi/simabi/conformance/session"
)

// replayMain runs an op script once on a target (-replay FILE [LIB]): LIB,
// else the target the file's header names, else sim:tmr. A repro (its
// "# finding:" header) exits 0 when its finding reproduces, 1 when not; a
// script without one exits 1 when it fails (a failure finding, a crash or
// a hang), 0 otherwise.
func replayMain(o *options, lib string, stdout, stderr io.Writer) int {
	text, err := os.ReadFile(o.Replay)
	if err != nil {
		return usage(stderr, "-replay: "+err.Error())
	}
	if session.IsTrace(string(text)) {
		return replayTraceMain(o, lib, string(text), stdout, stderr)
	}
	ops, err := op.ParseScript(string(text))
	if err != nil {
		return usage(stderr, fmt.Sprintf("-replay %s: %v", o.Replay, err))
	}
	if len(ops) == 0 {
		return usage(stderr, "-replay "+o.Replay+": no ops in the file")
	}
	expect, err := session.ExpectedFinding(string(text))
	if err != nil {
		return usage(stderr, fmt.Sprintf("-replay %s: %v", o.Replay, err))
	}
	spec, from := lib, ""
	if spec == "" {
		spec, from = session.ScriptTarget(string(text)), " (named by the file's header)"
	}
	if spec == "" && session.Header(string(text), "args") != "" {
		// The library the repro came from, with the flags that loaded it.
		words, err := session.ShellWords(session.Header(string(text), "args"))
		if err != nil {
			return usage(stderr, "-replay "+o.Replay+": # args: "+err.Error())
		}
		fs := newFlagSet(o)
		if err := fs.Parse(words); err != nil || fs.NArg() != 1 {
			return usage(stderr, "-replay "+o.Replay+": # args: is not [flags] LIB")
		}
		if err := o.Validate(fs.Arg(0)); err != nil {
			return usage(stderr, "-replay "+o.Replay+": # args: "+err.Error())
		}
		spec, from = fs.Arg(0), " (named by the file's header)"
	}
	if spec == "" {
		spec, from = "sim:tmr", " (the default: the file names no target)"
	}
	var t *session.Target
	if session.IsSimSpec(spec) {
		t = session.SimTarget(spec, o.CaseTimeout)
	} else {
		t, err = session.LibTarget(spec, o, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "abicheck: %v\n", err)
			return exitUsage
		}
	}
	defer t.Close()
	code, err := session.Replay(t, o.Replay, ops, from, expect, o, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "abicheck: %v\n", err)
		return exitUsage
	}
	return code
}

// replayTraceMain replays a recorded session on LIB (default sim:tmr).
func replayTraceMain(o *options, lib, text string, stdout, stderr io.Writer) int {
	if lib == "" {
		lib = "sim:tmr"
	}
	var t *session.Target
	if session.IsSimSpec(lib) {
		t = session.SimTarget(lib, o.CaseTimeout)
	} else {
		var err error
		if t, err = session.LibTarget(lib, o, stderr); err != nil {
			fmt.Fprintf(stderr, "abicheck: %v\n", err)
			return exitUsage
		}
	}
	defer t.Close()
	differ, err := session.ReplayTrace(t, o.Replay, text, o, stdout)
	switch {
	case err != nil:
		return usage(stderr, "-replay "+err.Error())
	case differ:
		return exitFindings
	}
	return exitOK
}
