package childproc

import (
	"encoding/json"
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Begin is the start of a child's main. It ignores SIGABRT, so that a
// runtime's abort() ends the process by the signal itself (which the
// parent names) instead of a Go traceback; it calls gone when the process
// whose pid is parent is no longer this one's parent (checked every
// 500 ms: a child whose parent was killed while it hung in the library
// ends itself, no orphan stays blocked forever); and it opens the report
// pipe on fd 3, whose writes call gone once the parent is gone.
func Begin(parent int, gone func()) (*Out, error) {
	signal.Ignore(syscall.SIGABRT)
	go func() {
		for range time.Tick(500 * time.Millisecond) {
			if os.Getppid() != parent {
				gone()
			}
		}
	}()
	f := os.NewFile(3, "abicheck-results")
	if f == nil {
		return nil, errors.New("child mode needs the parent's result pipe on fd 3")
	}
	return &Out{f: f, gone: gone}, nil
}

// Out is a child's report pipe to its parent: whole lines, one writer at
// a time.
type Out struct {
	mu   sync.Mutex
	f    *os.File
	gone func()
}

// Send writes b and a newline.
func (o *Out) Send(b []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b = append(b, '\n')
	for len(b) > 0 {
		n, err := o.f.Write(b)
		if err != nil {
			o.gone() // the parent is gone
		}
		b = b[n:]
	}
}

// SendJSON writes v as a JSON line, or when v does not encode, what
// fallback makes of the error.
func (o *Out) SendJSON(v any, fallback func(error) any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(fallback(err))
	}
	o.Send(b)
}
