package childproc

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// tail keeps what a child wrote on stdout and stderr: the last lines, until
// a Go runtime dump starts (then the dump's first line, and nothing after
// it, so that the library's own last message survives a long traceback).
type tail struct {
	mu      sync.Mutex
	partial []byte
	lines   []string
	dump    string   // the first line of a Go runtime dump
	dumpTop []string // its first few lines
}

var dumpStart = regexp.MustCompile(`^(SIG[A-Z]+: |fatal error: |panic: |\[signal SIG|goroutine \d+ |runtime: |unexpected fault address)`)
var sigRE = regexp.MustCompile(`SIG[A-Z]+`)

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			t.partial = append(t.partial, b...)
			if len(t.partial) > 4096 {
				t.partial = t.partial[len(t.partial)-4096:]
			}
			break
		}
		line := string(append(t.partial, b[:i]...))
		t.partial = t.partial[:0]
		b = b[i+1:]
		t.line(line)
	}
	return n, nil
}

func (t *tail) line(l string) {
	if t.dump != "" {
		if len(t.dumpTop) < 4 {
			t.dumpTop = append(t.dumpTop, l)
		}
		return
	}
	if dumpStart.MatchString(l) {
		t.dump = l
		t.dumpTop = append(t.dumpTop, l)
		return
	}
	if strings.TrimSpace(l) == "" {
		return
	}
	t.lines = append(t.lines, l)
	if len(t.lines) > 16 {
		t.lines = t.lines[1:]
	}
}

// lastMessage is "; last message: ..." for the last line before any dump, or
// "".
func (t *tail) lastMessage() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	last := ""
	if len(t.partial) > 0 && t.dump == "" {
		last = string(t.partial)
	} else if len(t.lines) > 0 {
		last = t.lines[len(t.lines)-1]
	}
	if last == "" {
		return ""
	}
	if len(last) > 300 {
		last = last[:300] + "..."
	}
	return "; last message: " + last
}

// goSignal is the signal a Go runtime dump names, or "".
func (t *tail) goSignal() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if strings.HasPrefix(t.dump, "panic: ") {
		return ""
	}
	return sigRE.FindString(strings.Join(t.dumpTop, "\n"))
}

// goPanic is the message of a Go panic dump, or "".
func (t *tail) goPanic() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if strings.HasPrefix(t.dump, "panic: ") || strings.HasPrefix(t.dump, "fatal error: ") {
		return t.dump
	}
	return ""
}
