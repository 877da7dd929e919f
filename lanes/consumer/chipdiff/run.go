package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/semantics"
)

// bench is what every run of the differential shares: the recorder, the
// inputs, the fakes built so far.
type bench struct {
	files files
	work  string // a directory for the runs' traces

	mu    sync.Mutex
	fakes map[string]*fakeBuild
	seq   int
}

type fakeBuild struct {
	once sync.Once
	path string
	err  error
}

// laneCallable is the ChipCallable image the actions register: the lane's
// copy-bytes callable (lanes/consumer/mkimage), the fake's simulated kernel
// simabi.copy_bytes with the signature [IN, OUT] and a 64-byte
// orchestration binary of zeros.
func laneCallable() ([]byte, error) {
	spec := abi.ChipCallableSpec{
		Signature: []abi.ArgDirection{abi.DirIn, abi.DirOut},
		FuncName:  semantics.KernelCopyBytes,
		Binary:    make([]byte, 64),
	}
	return spec.Build()
}

// newBench builds the legacy recorder and writes the inputs the actions
// read into work: the executor, dispatcher and warm-up binaries, an empty
// file and the callable.
func newBench(work string) (*bench, error) {
	rec, err := emit.BuildRecorder(emit.RecorderConfig{Revision: abi.RevLegacy}, emit.BuildOptions{})
	if err != nil {
		return nil, err
	}
	img, err := laneCallable()
	if err != nil {
		return nil, err
	}
	f := files{lib: rec.RuntimePath}
	for _, in := range []struct {
		to   *string
		name string
		data string
	}{
		{&f.aicpu, "aicpu.bin", "simabi chipdiff: aicpu executor bytes\n"},
		{&f.aicore, "aicore.bin", "simabi chipdiff: aicore executor bytes\n"},
		{&f.dispatcher, "dispatcher.bin", "simabi chipdiff: dispatcher bytes\n"},
		{&f.warmup, "warmup.bin", "simabi chipdiff: sdma warm-up bytes\n"},
		{&f.empty, "empty.bin", ""},
		{&f.callable, "copy-bytes.callable", string(img)},
	} {
		*in.to = filepath.Join(work, in.name)
		if err := os.WriteFile(*in.to, []byte(in.data), 0o644); err != nil {
			return nil, err
		}
	}
	return &bench{files: f, work: work, fakes: map[string]*fakeBuild{}}, nil
}

// fake builds (or finds in the cache) the legacy fake with knobs.
func (b *bench) fake(knobs []string) (string, error) {
	key := strings.Join(knobs, " ")
	b.mu.Lock()
	fb := b.fakes[key]
	if fb == nil {
		fb = &fakeBuild{}
		b.fakes[key] = fb
	}
	b.mu.Unlock()
	fb.once.Do(func() {
		var k emit.Knobs
		for _, kv := range knobs {
			if fb.err = emit.ParseKnob(kv, &k); fb.err != nil {
				return
			}
		}
		var art *emit.Artifacts
		// -O0: each knob's fake serves a few runs of short actions, and 35
		// of them are compiled from an empty cache.
		art, fb.err = emit.Build(emit.Config{Profile: emit.ProfileLegacy, Knobs: k}, emit.BuildOptions{Unoptimized: true})
		if fb.err == nil {
			fb.path = art.RuntimePath
		}
	})
	return fb.path, fb.err
}

var (
	invariantLine = regexp.MustCompile(`invariant violated \[[^\]]*\]: [^\n]*`)
	hexValue      = regexp.MustCompile(`0x[0-9a-f]+`)
)

// run performs steps with one consumer over the recorder over the fake of
// knobs and returns its transcript.
func (b *bench) run(c consumer, steps, knobs []string) (transcript, error) {
	fake, err := b.fake(knobs)
	if err != nil {
		return transcript{}, err
	}
	b.mu.Lock()
	b.seq++
	dir := filepath.Join(b.work, fmt.Sprintf("run-%d", b.seq))
	b.mu.Unlock()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return transcript{}, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := c.start(ctx, b.files, steps)
	cmd.Env = append(slices.Clone(cmd.Env), "SIMABI_RECORD_TARGET="+fake, "SIMABI_RECORD_FILE="+filepath.Join(dir, "trace-%p.ops"),
		"SIMABI_RECORD_PRELOAD=", "SIMABI_RECORD_IMAGE_LIMIT=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	exit := "0"
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ctx.Err() != nil {
			return transcript{}, fmt.Errorf("%s: %v\n%s", cmd.Path, err, stderr.String())
		}
		exit = ee.ProcessState.String()
		if m := invariantLine.FindString(stderr.String()); m != "" {
			exit += ": " + hexValue.ReplaceAllString(m, "0x?")
		}
	}
	traces, _ := filepath.Glob(filepath.Join(dir, "trace-*.ops"))
	var text string
	for _, p := range traces { // one process, one trace
		t, err := os.ReadFile(p)
		if err != nil {
			return transcript{}, err
		}
		text += string(t)
	}
	t, err := parseRun(stdout.String(), text, exit)
	if err != nil {
		return transcript{}, fmt.Errorf("%s %s: %v\nstderr:\n%s", cmd.Path, strings.Join(steps, " "), err, stderr.String())
	}
	return t, nil
}

// driverStart starts a consumer's driver: the step language's inputs as
// flags (f.lib is the recorder), then the steps.
func driverStart(driver string) func(ctx context.Context, f files, steps []string) *exec.Cmd {
	return func(ctx context.Context, f files, steps []string) *exec.Cmd {
		args := append([]string{"--lib", f.lib, "--aicpu", f.aicpu, "--aicore", f.aicore, "--dispatcher", f.dispatcher,
			"--warmup", f.warmup, "--empty", f.empty, "--callable", f.callable, "--"}, steps...)
		cmd := exec.CommandContext(ctx, driver, args...)
		cmd.Env = os.Environ()
		return cmd
	}
}

// childEnv carries lifecycle's driver's arguments to a child of this program
// (or of its test binary): the files and the steps, separated by US (0x1f).
const childEnv = "SIMABI_CHIPDIFF_CHILD"

// lifecycleConsumer is lifecycle.Worker, whose driver is this executable
// (the lane's chipdiff, or the test binary) started as a child.
func lifecycleConsumer(self string) consumer {
	return consumer{name: "lifecycle", start: func(ctx context.Context, f files, steps []string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, self)
		fields := append([]string{f.lib, f.aicpu, f.aicore, f.dispatcher, f.warmup, f.empty, f.callable}, steps...)
		cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(fields, "\x1f"))
		return cmd
	}}
}

// childMain is lifecycle's driver in a child started by lifecycleConsumer: it
// reports false when this process is no such child.
func childMain() bool {
	v, ok := os.LookupEnv(childEnv)
	if !ok {
		return false
	}
	fields := strings.Split(v, "\x1f")
	if len(fields) < 8 {
		fmt.Fprintln(os.Stderr, "chipdiff: malformed", childEnv)
		os.Exit(2)
	}
	f := files{lib: fields[0], aicpu: fields[1], aicore: fields[2], dispatcher: fields[3], warmup: fields[4], empty: fields[5], callable: fields[6]}
	if err := runGo(f, fields[7:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "chipdiff:", err)
		os.Exit(2)
	}
	os.Exit(0)
	return true
}
