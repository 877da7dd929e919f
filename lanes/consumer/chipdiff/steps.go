package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/lifecycle"
	"github.com/simabi/simabi/onboard"
)

// runBytes is the size of each device buffer of an action.
const runBytes = 256

// files are the inputs of an action's steps.
type files struct {
	lib, aicpu, aicore, dispatcher, warmup, empty, callable string
}

// goSession performs steps with lifecycle.Worker.
type goSession struct {
	f       files
	steps   []string
	w       *lifecycle.Worker
	bins    map[string][]byte
	image   []byte
	in, out abi.DevicePtr
	pattern []byte
	token   lifecycle.NativeRun
	kept    []*abi.TaskArgs
}

// deviceOf is the device of the first init in steps[i:] before the next
// "new": ChipWorker takes its device at init, lifecycle.Worker when it is
// made.
func deviceOf(steps []string, i int) int32 {
	for ; i < len(steps); i++ {
		w := steps[i]
		if w == "new" {
			break
		}
		if !strings.HasPrefix(w, "init") {
			continue
		}
		_, opts, _ := strings.Cut(w, ":")
		for _, o := range strings.Split(opts, ",") {
			if d, ok := strings.CutPrefix(o, "dev="); ok {
				n, _ := strconv.Atoi(d)
				return int32(n)
			}
		}
		return 0
	}
	return 0
}

func (s *goSession) worker(i int) *lifecycle.Worker {
	if s.w == nil {
		s.w = lifecycle.New(lifecycle.Config{Mode: lifecycle.Program, DeviceID: deviceOf(s.steps, i),
			Loader: onboard.Loader{Path: s.f.lib}, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	}
	return s.w
}

func (s *goSession) args(tensors int) (*abi.TaskArgs, error) {
	a := abi.NewTaskArgs()
	for i := range tensors {
		p := s.in
		if i%2 == 1 {
			p = s.out
		}
		t, err := abi.ContiguousTensor(uint64(p), abi.Uint8, runBytes)
		if err != nil {
			return nil, err
		}
		if err := a.AddTensor(t); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// alignedCopy returns b in a 64-byte-aligned buffer, as the C++ driver
// passes its images.
func alignedCopy(b []byte) []byte {
	c := abi.AlignedBytes(len(b), 64)
	copy(c, b)
	return c
}

func nonzero(p abi.DevicePtr) string {
	if p == 0 {
		return "zero"
	}
	return "nonzero"
}

// stepCall is one step word taken apart: HEAD[=ARG][:OPT...], for the i-th
// step of the session.
type stepCall struct {
	s    *goSession
	i    int
	arg  string
	opts []string
}

func (c stepCall) w() *lifecycle.Worker { return c.s.worker(c.i) }
func (c stepCall) id() int32            { n, _ := strconv.Atoi(c.arg); return int32(n) }

// The steps of an action, the step language every consumer's driver speaks
// (goSteps performs them with lifecycle.Worker, ../actions.cpp with
// ChipWorker; TestActions_tableAndStepWords holds their words equal):
//
//	init[:opt,...]    Init (ChipWorker::init); opts: nobins (no executor
//	                  binaries), disp (a dispatcher binary), prewarm (a
//	                  prewarm CallConfig), badprewarm (one whose task window
//	                  is no power of two), sdma (the SDMA workspace), warmup
//	                  (an SDMA warm-up binary), dev=N (the device)
//	finalize          Close (ChipWorker::finalize)
//	new               a fresh worker (after the old one was finalized)
//	register=ID[:trailing|:malformed]  RegisterCallable of the lane's
//	                  copy-bytes image, with one byte more than its header
//	                  describes, or with sig_count 300
//	unregister=ID     UnregisterCallable
//	malloc            two DeviceMallocs of 256 bytes (the buffers in, out)
//	malloc0           DeviceMalloc(0)
//	free              DeviceFree of in and out
//	copy              CopyToDevice(in, pattern), CopyFromDevice(in): equal?
//	copy_to0          CopyToDevice to device address 0
//	run=ID[:one|:nil|:badcfg|:diag]  Run with [in, out] (one: [in]; nil:
//	                  no args) and the zero CallConfig (badcfg: task window
//	                  1000; diag: swimlane without an output prefix)
//	prepare=ID[:gen=N][:slot=N]  PrepareNativeRun with [in, out] (gen 1,
//	                  slot 0 by default)
//	launch, poll, wait, finrun   the phases of the last prepared run
//	committed         CommittedDeviceMemory
var goSteps = map[string]func(c stepCall) (string, error){
	"init":     initStep,
	"finalize": func(c stepCall) (string, error) { return "-", c.w().Close() },
	"new": func(c stepCall) (string, error) {
		c.s.w = nil
		c.s.worker(c.i + 1)
		return "-", nil
	},
	"register": func(c stepCall) (string, error) {
		img := append([]byte(nil), c.s.image...)
		if len(c.opts) > 0 && c.opts[0] == "trailing" {
			img = append(img, 0xa5)
		}
		if len(c.opts) > 0 && c.opts[0] == "malformed" {
			binary.LittleEndian.PutUint32(img[abi.ChipSigCountOff:], 300)
		}
		return "-", c.w().RegisterCallable(c.id(), alignedCopy(img))
	},
	"unregister": func(c stepCall) (string, error) { return "-", c.w().UnregisterCallable(c.id()) },
	"malloc": func(c stepCall) (string, error) {
		var err error
		if c.s.in, err = c.w().DeviceMalloc(runBytes); err != nil {
			return "", err
		}
		if c.s.out, err = c.w().DeviceMalloc(runBytes); err != nil {
			return "", err
		}
		return nonzero(c.s.in) + "," + nonzero(c.s.out), nil
	},
	"malloc0": func(c stepCall) (string, error) {
		p, err := c.w().DeviceMalloc(0)
		return nonzero(p), err
	},
	"free": func(c stepCall) (string, error) {
		if err := c.w().DeviceFree(c.s.in); err != nil {
			return "", err
		}
		return "-", c.w().DeviceFree(c.s.out)
	},
	"copy": func(c stepCall) (string, error) {
		if err := c.w().CopyToDevice(c.s.in, c.s.pattern); err != nil {
			return "", err
		}
		back := make([]byte, runBytes)
		if err := c.w().CopyFromDevice(back, c.s.in); err != nil {
			return "", err
		}
		if string(back) == string(c.s.pattern) {
			return "equal", nil
		}
		return "differ", nil
	},
	"copy_to0": func(c stepCall) (string, error) { return "-", c.w().CopyToDevice(0, c.s.pattern) },
	"run":      runStep,
	"prepare":  prepareStep,
	"launch":   func(c stepCall) (string, error) { return "-", c.w().LaunchNativeRun(c.s.token) },
	"poll": func(c stepCall) (string, error) {
		ready, err := c.w().PollNativeRun(c.s.token)
		if ready {
			return "ready", err
		}
		return "not ready", err
	},
	"wait":   func(c stepCall) (string, error) { return "-", c.w().WaitNativeRun(c.s.token) },
	"finrun": func(c stepCall) (string, error) { return "-", c.w().FinalizeNativeRun(c.s.token) },
	"committed": func(c stepCall) (string, error) {
		n, err := c.w().CommittedDeviceMemory()
		return strconv.FormatUint(n, 10), err
	},
}

// stepHead is a step word's head: init of init:nobins, run of run=0:one.
func stepHead(word string) string {
	head, _, _ := strings.Cut(word, ":")
	head, _, _ = strings.Cut(head, "=")
	return head
}

// step performs one step on the worker and returns its detail.
func (s *goSession) step(i int, word string) (string, error) {
	parts := strings.Split(word, ":")
	_, arg, _ := strings.Cut(parts[0], "=")
	f, ok := goSteps[stepHead(word)]
	if !ok {
		return "", fmt.Errorf("unknown step %s", word)
	}
	return f(stepCall{s: s, i: i, arg: arg, opts: parts[1:]})
}

func initStep(c stepCall) (string, error) {
	var cfg lifecycle.InitConfig
	cfg.Aicpu, cfg.Aicore = c.s.bins["aicpu"], c.s.bins["aicore"]
	if len(c.opts) > 0 {
		for _, o := range strings.Split(c.opts[0], ",") {
			switch {
			case o == "nobins":
				cfg.Aicpu, cfg.Aicore = nil, nil
			case o == "disp":
				cfg.Dispatcher = c.s.bins["dispatcher"]
			case o == "prewarm" || o == "badprewarm":
				p := &abi.CallConfig{AicpuThreadNum: 4}
				p.RingTaskWindow[0] = 1024
				if o == "badprewarm" {
					p.RingTaskWindow[0] = 1000
				}
				p.RingHeap[1] = 1 << 20
				p.RingDepPool[3] = 64
				cfg.Config = p
			case o == "sdma":
				cfg.EnableSDMA = true
			case o == "warmup":
				cfg.SDMAWarmup = c.s.bins["warmup"]
			case strings.HasPrefix(o, "dev="):
			default:
				return "", fmt.Errorf("unknown init option %s", o)
			}
		}
	}
	return "-", c.w().Init(cfg)
}

func runStep(c stepCall) (string, error) {
	cfg := &abi.CallConfig{}
	a, err := c.s.args(2)
	if err != nil {
		return "", err
	}
	for _, o := range c.opts {
		switch o {
		case "one":
			if a, err = c.s.args(1); err != nil {
				return "", err
			}
		case "nil":
			a = nil
		case "badcfg":
			cfg.RingTaskWindow[0] = 1000
		case "diag":
			cfg.EnableChipSwimlane = 1
		default:
			return "", fmt.Errorf("unknown run option %s", o)
		}
	}
	return "-", c.w().Run(c.id(), a, cfg)
}

func prepareStep(c stepCall) (string, error) {
	lease := lifecycle.NativeRunLease{Generation: 1}
	for _, o := range c.opts {
		switch {
		case strings.HasPrefix(o, "gen="):
			lease.Generation, _ = strconv.ParseUint(o[4:], 10, 64)
		case strings.HasPrefix(o, "slot="):
			n, _ := strconv.Atoi(o[5:])
			lease.Slot = uint32(n)
		default:
			return "", fmt.Errorf("unknown prepare option %s", o)
		}
	}
	a, err := c.s.args(2)
	if err != nil {
		return "", err
	}
	c.s.kept = append(c.s.kept, a)
	r, err := c.w().PrepareNativeRun(c.id(), a, &abi.CallConfig{}, lease)
	if err != nil {
		return "", err
	}
	c.s.token = r
	return fmt.Sprintf("slot %d gen %d", r.Slot, r.Generation), nil
}

// errorClass is code=N for a code an entry returned and the worker
// forwarded (a StatusError naming the entry, with no message of the
// worker's own), else host: the worker refused or failed by itself.
func errorClass(err error) string {
	var se *lifecycle.StatusError
	if errors.As(err, &se) && se.Msg == "" && se.Op != "" && !strings.HasPrefix(se.Op, "Worker.") {
		return "code=" + strconv.Itoa(int(se.Code))
	}
	return "host"
}

// oneLine keeps a message on one line and free of the field separator.
func oneLine(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ", "|", "/").Replace(s)
}

// traceCalls counts the call lines of this process's trace so far (-1 when
// nothing is recorded).
func traceCalls() int {
	pattern := os.Getenv("SIMABI_RECORD_FILE")
	if pattern == "" {
		return -1
	}
	b, err := os.ReadFile(strings.ReplaceAll(pattern, "%p", strconv.Itoa(os.Getpid())))
	if err != nil {
		return 0
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "@") {
			n++
		}
	}
	return n
}

// runGo performs steps with lifecycle.Worker on one locked OS thread and
// writes the step lines of ../actions.cpp to out.
func runGo(f files, steps []string, out io.Writer) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s := &goSession{f: f, steps: steps, bins: map[string][]byte{}}
	for name, path := range map[string]string{"aicpu": f.aicpu, "aicore": f.aicore, "dispatcher": f.dispatcher, "warmup": f.warmup} {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s.bins[name] = b
	}
	img, err := os.ReadFile(f.callable)
	if err != nil {
		return err
	}
	s.image = img
	for k := range runBytes {
		s.pattern = append(s.pattern, byte(k*7+3))
	}
	for i, word := range steps {
		detail, err := s.step(i, word)
		if err != nil {
			fmt.Fprintf(out, "STEP %d %s | err | %s | %d | %s\n", i+1, word, errorClass(err), traceCalls(), oneLine(err.Error()))
			continue
		}
		fmt.Fprintf(out, "STEP %d %s | ok | %s | %d\n", i+1, word, oneLine(detail), traceCalls())
	}
	s.w = nil
	fmt.Fprintf(out, "END %d\n", traceCalls())
	return nil
}
