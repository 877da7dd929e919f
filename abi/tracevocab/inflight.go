package tracevocab

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
)

// In-flight records: what a process that dies or is killed inside a call
// leaves behind. A trace line is written when a call returns, so a call
// that never returns has none. Besides its trace the recorder keeps, per
// process, a small file mapped into memory, TRACE + InflightSuffix + PID,
// with one slot per calling thread: when a call enters, its thread's slot
// gets the call's B, thread, device and op text (a copy into shared memory,
// no system call on the launch hot path) and is marked in a call; when the
// call's line has been written the slot is marked idle. The kernel keeps the
// mapping's pages when the process dies, so a slot still marked in a call
// is a call that never returned. A process that exits normally with no call
// in flight removes the file. On a fatal signal (SIGSEGV, SIGBUS, SIGILL,
// SIGFPE, SIGABRT, when the process had no handler of its own for it) the
// recorder notes the signal in the header and, when the signal hit a thread
// inside a recorded call, marks that slot as the call the process died in.
//
// All numbers are little-endian (the recording process's byte order on
// every platform simabi supports).
const (
	InflightSuffix = ".inflight-" // then the pid
	InflightMagic  = "simabi inflight v1\n"

	InflightHeaderSize = 4096
	InflightSlotSize   = 4096
	InflightSlots      = 256 // threads numbered beyond get no slot

	// Header fields (byte offsets).
	InflightMagicOff     = 0  // InflightMagic, zero-padded to 32 bytes
	InflightPIDOff       = 32 // int64
	InflightSignalOff    = 40 // int32: the fatal signal the process died of, 0 if none was seen
	InflightSlotsOff     = 44 // uint32: InflightSlots
	InflightSlotSizeOff  = 48 // uint32: InflightSlotSize
	InflightSignalSeqOff = 56 // uint64: B of the call the signal hit, 0 outside any call

	// Slot fields (byte offsets within a slot).
	SlotStateOff  = 0  // uint32: SlotIdle, SlotInCall, SlotDied
	SlotLenOff    = 4  // uint32: the op text's length (more than the slot holds: cut)
	SlotSeqOff    = 8  // uint64: B
	SlotThreadOff = 16 // int32
	SlotDevOff    = 20 // int32: >= 0, DevNone, DevUnknown
	SlotOwnerOff  = 24 // uint64: the recorder's own (the calling thread, for its signal handler)
	SlotTextOff   = 32 // the op text
	SlotTextMax   = InflightSlotSize - SlotTextOff

	SlotIdle   = 0
	SlotInCall = 1
	SlotDied   = 2 // the fatal signal hit the thread inside this call

	DevNone    = -1
	DevUnknown = -2
)

// InflightName is the in-flight file of the process pid that writes the
// trace at path.
func InflightName(path string, pid int) string { return path + InflightSuffix + strconv.Itoa(pid) }

// InflightCall is a call a process was inside when it stopped.
type InflightCall struct {
	B      uint64
	Thread int32
	Dev    int32
	Op     string // the op text, cut at a field boundary when Cut
	Cut    bool
	Died   bool // the fatal signal hit the thread inside this call
}

// Inflight is a process's in-flight records.
type Inflight struct {
	PID    int64
	Signal int32  // the fatal signal the process died of (0: none seen)
	SigAt  uint64 // B of the call it hit (0: outside any recorded call)
	Calls  []InflightCall
}

// ReadInflight decodes an in-flight file.
func ReadInflight(b []byte) (*Inflight, error) {
	if len(b) < InflightHeaderSize || !bytes.HasPrefix(b, []byte(InflightMagic)) {
		return nil, fmt.Errorf("not a simabi in-flight file")
	}
	le := binary.LittleEndian
	in := &Inflight{PID: int64(le.Uint64(b[InflightPIDOff:])), Signal: int32(le.Uint32(b[InflightSignalOff:])),
		SigAt: le.Uint64(b[InflightSignalSeqOff:])}
	slots, size := int(le.Uint32(b[InflightSlotsOff:])), int(le.Uint32(b[InflightSlotSizeOff:]))
	if size != InflightSlotSize || slots != InflightSlots {
		return nil, fmt.Errorf("in-flight file of %d slots of %d bytes, want %d of %d", slots, size, InflightSlots, InflightSlotSize)
	}
	for i := 0; i < slots; i++ {
		off := InflightHeaderSize + i*size
		if off+size > len(b) {
			break // the file is sparse and may be short of its last pages
		}
		s := b[off : off+size]
		st := le.Uint32(s[SlotStateOff:])
		if st != SlotInCall && st != SlotDied {
			continue
		}
		c := InflightCall{B: le.Uint64(s[SlotSeqOff:]), Thread: int32(le.Uint32(s[SlotThreadOff:])),
			Dev: int32(le.Uint32(s[SlotDevOff:])), Died: st == SlotDied}
		n := int(le.Uint32(s[SlotLenOff:]))
		text := s[SlotTextOff:]
		if n <= len(text) {
			c.Op = string(text[:n])
		} else {
			// Cut at the last complete field.
			t := text
			if k := bytes.LastIndexByte(t, ' '); k > 0 {
				t = t[:k]
			}
			c.Op, c.Cut = string(t), true
		}
		in.Calls = append(in.Calls, c)
	}
	sort.Slice(in.Calls, func(i, j int) bool { return in.Calls[i].B < in.Calls[j].B })
	return in, nil
}

// Lines renders the records as the trace lines a parser reads after the
// trace's own: the died comment, then an entry record per call.
func (in *Inflight) Lines() []string {
	var out []string
	if in.Signal != 0 {
		s := Comment + HeaderDied + HeaderSep + "signal " + strconv.Itoa(int(in.Signal))
		if in.SigAt != 0 {
			s += " in " + LineAt + strconv.FormatUint(in.SigAt, 10)
		}
		out = append(out, s)
	}
	for _, c := range in.Calls {
		out = append(out, Entered(c.B, c.Thread, c.Dev, c.Op, c.Cut))
	}
	return out
}

// ParseDied reads a died header value: the signal, and the call it hit (0:
// none).
func ParseDied(v string) (signal int, at uint64, err error) {
	var rest string
	if _, err = fmt.Sscanf(v, "signal %d", &signal); err != nil {
		return 0, 0, fmt.Errorf("bad died: %q", v)
	}
	if i := bytes.Index([]byte(v), []byte(" in "+LineAt)); i >= 0 {
		rest = v[i+len(" in "+LineAt):]
		if at, err = strconv.ParseUint(rest, 10, 64); err != nil {
			return 0, 0, fmt.Errorf("bad died: %q", v)
		}
	}
	return signal, at, nil
}
