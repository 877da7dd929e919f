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

// The steps of an action, performed by lifecycle.Worker here and by
// upstream's ChipWorker in ../actions.cpp, word for word (stepHeads is the
// list both understand; TestStepWordsMatchActionsCpp holds them equal):
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
var stepHeads = []string{"init", "finalize", "new", "register", "unregister", "malloc", "malloc0", "free", "copy",
	"copy_to0", "run", "prepare", "launch", "poll", "wait", "finrun", "committed"}

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

// step performs one step on the worker and returns its detail.
func (s *goSession) step(i int, word string) (string, error) {
	parts := strings.Split(word, ":")
	head, arg, _ := strings.Cut(parts[0], "=")
	opts := parts[1:]
	id := func() int32 { n, _ := strconv.Atoi(arg); return int32(n) }
	switch head {
	case "init":
		var cfg lifecycle.InitConfig
		cfg.Aicpu, cfg.Aicore = s.bins["aicpu"], s.bins["aicore"]
		if len(opts) > 0 {
			for _, o := range strings.Split(opts[0], ",") {
				switch {
				case o == "nobins":
					cfg.Aicpu, cfg.Aicore = nil, nil
				case o == "disp":
					cfg.Dispatcher = s.bins["dispatcher"]
				case o == "prewarm" || o == "badprewarm":
					c := &abi.CallConfig{AicpuThreadNum: 4}
					c.RingTaskWindow[0] = 1024
					if o == "badprewarm" {
						c.RingTaskWindow[0] = 1000
					}
					c.RingHeap[1] = 1 << 20
					c.RingDepPool[3] = 64
					cfg.Config = c
				case o == "sdma":
					cfg.EnableSDMA = true
				case o == "warmup":
					cfg.SDMAWarmup = s.bins["warmup"]
				case strings.HasPrefix(o, "dev="):
				default:
					return "", fmt.Errorf("unknown init option %s", o)
				}
			}
		}
		return "-", s.worker(i).Init(cfg)
	case "finalize":
		return "-", s.worker(i).Close()
	case "new":
		s.w = nil
		s.worker(i + 1)
		return "-", nil
	case "register":
		img := append([]byte(nil), s.image...)
		if len(opts) > 0 && opts[0] == "trailing" {
			img = append(img, 0xa5)
		}
		if len(opts) > 0 && opts[0] == "malformed" {
			binary.LittleEndian.PutUint32(img[abi.ChipSigCountOff:], 300)
		}
		return "-", s.worker(i).RegisterCallable(id(), alignedCopy(img))
	case "unregister":
		return "-", s.worker(i).UnregisterCallable(id())
	case "malloc":
		var err error
		if s.in, err = s.worker(i).DeviceMalloc(runBytes); err != nil {
			return "", err
		}
		if s.out, err = s.worker(i).DeviceMalloc(runBytes); err != nil {
			return "", err
		}
		return nonzero(s.in) + "," + nonzero(s.out), nil
	case "malloc0":
		p, err := s.worker(i).DeviceMalloc(0)
		return nonzero(p), err
	case "free":
		if err := s.worker(i).DeviceFree(s.in); err != nil {
			return "", err
		}
		return "-", s.worker(i).DeviceFree(s.out)
	case "copy":
		if err := s.worker(i).CopyToDevice(s.in, s.pattern); err != nil {
			return "", err
		}
		back := make([]byte, runBytes)
		if err := s.worker(i).CopyFromDevice(back, s.in); err != nil {
			return "", err
		}
		if string(back) == string(s.pattern) {
			return "equal", nil
		}
		return "differ", nil
	case "copy_to0":
		return "-", s.worker(i).CopyToDevice(0, s.pattern)
	case "run":
		cfg := &abi.CallConfig{}
		a, err := s.args(2)
		if err != nil {
			return "", err
		}
		for _, o := range opts {
			switch o {
			case "one":
				if a, err = s.args(1); err != nil {
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
		return "-", s.worker(i).Run(id(), a, cfg)
	case "prepare":
		lease := lifecycle.NativeRunLease{Generation: 1}
		for _, o := range opts {
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
		a, err := s.args(2)
		if err != nil {
			return "", err
		}
		s.kept = append(s.kept, a)
		r, err := s.worker(i).PrepareNativeRun(id(), a, &abi.CallConfig{}, lease)
		if err != nil {
			return "", err
		}
		s.token = r
		return fmt.Sprintf("slot %d gen %d", r.Slot, r.Generation), nil
	case "launch":
		return "-", s.worker(i).LaunchNativeRun(s.token)
	case "poll":
		ready, err := s.worker(i).PollNativeRun(s.token)
		if ready {
			return "ready", err
		}
		return "not ready", err
	case "wait":
		return "-", s.worker(i).WaitNativeRun(s.token)
	case "finrun":
		return "-", s.worker(i).FinalizeNativeRun(s.token)
	case "committed":
		n, err := s.worker(i).CommittedDeviceMemory()
		return strconv.FormatUint(n, 10), err
	}
	return "", fmt.Errorf("unknown step %s", word)
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
