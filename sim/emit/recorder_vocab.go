package emit

import (
	"fmt"
	"strings"

	"github.com/simabi/simabi/abi/tracevocab"
)

// vocabC is the trace vocabulary (abi/tracevocab) as C: a writer function
// per spelling of every form the recorder writes (tv_FORM_VARIANT, its
// holes as parameters), and the words of the lines, the header and the
// in-flight records as macros (TV_*). The template and the stubs write the
// trace through them only, so a spelling the vocabulary drops does not
// compile; names lists every writer and word, each of which the recorder
// must use (RecorderSource checks it), so a spelling the vocabulary adds
// fails the generation until the recorder writes it.
func vocabC() (code string, names []string) {
	var b strings.Builder
	def := func(name, value string) {
		fmt.Fprintf(&b, "#define %s %s\n", name, value)
		names = append(names, name)
	}
	b.WriteString("/* ==== The trace vocabulary (abi/tracevocab; generated) ==== */\n\n")
	def("TV_VERSION", fmt.Sprint(tracevocab.Version))
	def("TV_HEADER_MAGIC", cLit(tracevocab.HeaderMagic))
	for _, k := range tracevocab.HeaderKeys {
		if k == tracevocab.HeaderDied {
			continue // read from the in-flight records, never written in a trace
		}
		def("TV_HDR_"+strings.ToUpper(strings.ReplaceAll(k, "-", "_")), cLit(tracevocab.Comment+k+tracevocab.HeaderSep))
	}
	for _, w := range []struct{ name, value string }{
		{"TV_LINE_AT", tracevocab.LineAt}, {"TV_LINE_TO", tracevocab.LineTo}, {"TV_LINE_THREAD", tracevocab.LineThread},
		{"TV_LINE_DEV_KEY", tracevocab.LineDevKey}, {"TV_LINE_OP", tracevocab.LineOp}, {"TV_LINE_ARROW", tracevocab.LineArrow},
		{"TV_MISSING", tracevocab.Missing}, {"TV_FORKED_AT", tracevocab.ForkedAt}, {"TV_HEADER_END", "\n"}, {"TV_INFLIGHT_SUFFIX", tracevocab.InflightSuffix},
		{"TV_INFLIGHT_MAGIC", tracevocab.InflightMagic},
	} {
		def(w.name, cLit(w.value))
	}
	for _, n := range []struct {
		name  string
		value int
	}{
		{"TV_INFLIGHT_HEADER_SIZE", tracevocab.InflightHeaderSize}, {"TV_INFLIGHT_SLOT_SIZE", tracevocab.InflightSlotSize},
		{"TV_INFLIGHT_SLOTS", tracevocab.InflightSlots}, {"TV_INFLIGHT_PID_OFF", tracevocab.InflightPIDOff},
		{"TV_INFLIGHT_SIGNAL_OFF", tracevocab.InflightSignalOff}, {"TV_INFLIGHT_SLOTS_OFF", tracevocab.InflightSlotsOff},
		{"TV_INFLIGHT_SLOT_SIZE_OFF", tracevocab.InflightSlotSizeOff}, {"TV_INFLIGHT_SIGNAL_SEQ_OFF", tracevocab.InflightSignalSeqOff},
		{"TV_SLOT_STATE_OFF", tracevocab.SlotStateOff}, {"TV_SLOT_LEN_OFF", tracevocab.SlotLenOff},
		{"TV_SLOT_SEQ_OFF", tracevocab.SlotSeqOff}, {"TV_SLOT_THREAD_OFF", tracevocab.SlotThreadOff},
		{"TV_SLOT_DEV_OFF", tracevocab.SlotDevOff}, {"TV_SLOT_OWNER_OFF", tracevocab.SlotOwnerOff},
		{"TV_SLOT_TEXT_OFF", tracevocab.SlotTextOff},
		{"TV_SLOT_IDLE", tracevocab.SlotIdle}, {"TV_SLOT_IN_CALL", tracevocab.SlotInCall}, {"TV_SLOT_DIED", tracevocab.SlotDied},
		{"TV_DEV_NONE", tracevocab.DevNone}, {"TV_DEV_UNKNOWN", tracevocab.DevUnknown},
	} {
		def(n.name, fmt.Sprintf("(%d)", n.value))
	}
	b.WriteString("\n")
	for _, f := range tracevocab.Forms() {
		for _, v := range f.Variants() {
			if v.Until != 0 {
				continue // read from older traces only
			}
			name := "tv_" + strings.ToLower(f.GoName()) + "_" + v.Name
			names = append(names, name)
			var params []string
			var body []string
			k := 0
			for _, p := range v.Pieces {
				h := fmt.Sprintf("h%d", k)
				switch p.Hole {
				case 0:
					body = append(body, fmt.Sprintf("rb_lit(b, %s);", cLit(p.Lit)))
					continue
				case tracevocab.HoleInt:
					params = append(params, "int64_t "+h)
					body = append(body, fmt.Sprintf("rb_i64(b, %s);", h))
				case tracevocab.HoleUint:
					params = append(params, "uint64_t "+h)
					body = append(body, fmt.Sprintf("rb_u64(b, %s);", h))
				case tracevocab.HoleHex:
					params = append(params, "const uint8_t *"+h, "size_t "+h+"n")
					body = append(body, fmt.Sprintf("rb_hex(b, %s, %sn);", h, h))
				case tracevocab.HoleWord:
					params = append(params, "const char *"+h)
					body = append(body, fmt.Sprintf("rb_str(b, %s);", h))
				}
				k++
			}
			fmt.Fprintf(&b, "/* %s %s */\nREC_UNUSED static inline void %s(%s)\n{\n", f.Name(), v.Spelling(), name,
				strings.Join(append([]string{"rbuf *b"}, params...), ", "))
			for _, l := range body {
				b.WriteString("    " + l + "\n")
			}
			b.WriteString("}\n\n")
		}
	}
	return b.String(), names
}
