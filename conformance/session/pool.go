package session

import (
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/simabi/simabi/conformance/isolate"
	"github.com/simabi/simabi/sim/emit"
)

// inParallel runs do(i) for every i < n, jobs at a time (jobs < 1: all at
// once); once a job returns ErrNoCompiler, the jobs not begun are left out
// and it returns ErrNoCompiler.
func inParallel(n, jobs int, do func(i int) error) error {
	if jobs < 1 {
		jobs = n
	}
	var noCC atomic.Bool
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(jobs, 1))
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if !noCC.Load() && errors.Is(do(i), emit.ErrNoCompiler) {
				noCC.Store(true)
			}
		})
	}
	wg.Wait()
	if noCC.Load() {
		return ErrNoCompiler
	}
	return nil
}

// eachMutant is row(i) of every mutant i < n, as many at a time as there
// are cores (the compiles are most of a cold run), and the time they took;
// then it removes what crashed or broken children left (E-COMM's
// segments) and the progress line.
func eachMutant[R any](n int, out *Printer, row func(i int) (R, error)) ([]R, time.Duration, error) {
	t0, rows := time.Now(), make([]R, n)
	err := inParallel(n, runtime.GOMAXPROCS(0), func(i int) (err error) {
		rows[i], err = row(i)
		return err
	})
	isolate.RemoveOrphanSegments()
	out.ClearProgress()
	return rows, time.Since(t0), err
}

// verboseTo is where the children's stderr is copied: stderr with -v.
func (o *Options) verboseTo(stderr io.Writer) io.Writer {
	if o.Verbose {
		return stderr
	}
	return nil
}

// mutantPool opens emit.Build's answer in child processes: ErrNoCompiler
// ends the run; a failed build or load is why (the row's error), p nil.
func mutantPool(a *emit.Artifacts, err error, o *Options, verbose io.Writer) (p *isolate.Pool, why string, _ error) {
	switch {
	case errors.Is(err, emit.ErrNoCompiler):
		return nil, "", err
	case err != nil:
		return nil, "build: " + FirstLine(err.Error()), nil
	}
	if p, err = isolate.NewPool(isolate.Config{Lib: a.RuntimePath}, o.CaseTimeout, 0, verbose); err != nil {
		return nil, err.Error(), nil
	}
	return p, "", nil
}

// plainPool opens the plain emitted build of profile p in child processes.
func plainPool(p emit.Profile, o *Options, verbose io.Writer) (*isolate.Pool, error) {
	a, err := emit.Build(emit.Config{Profile: p}, emit.BuildOptions{})
	switch {
	case errors.Is(err, emit.ErrNoCompiler):
		return nil, ErrNoCompiler
	case err != nil:
		return nil, err
	}
	return isolate.NewPool(isolate.Config{Lib: a.RuntimePath}, o.CaseTimeout, 0, verbose)
}
