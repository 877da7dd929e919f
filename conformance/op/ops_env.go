package op

import (
	"math"
	"strconv"

	"github.com/simabi/simabi/abi/tracevocab"
)

// The checker's environment and queries on no context.

func init() {
	define(KindContract, kindDef{name: "contract", entry: true, quiet: true, answer: answerUnrecorded})
	define(KindSetDev, kindDef{name: "setdev", quiet: true, fields: []field{deviceArg}})
	define(KindGetDev, kindDef{name: "getdev", quiet: true, answer: answerValue})
	define(KindSync, kindDef{name: "sync",
		fields: []field{streamGone(ref("stream", "", "s", MaxStreams, true, func(o *Op) *int8 { return &o.Stream }))}})
	define(KindInject, kindDef{name: "inject", quiet: true, fields: []field{
		i32("site", func(o *Op) *int32 { return &o.Site }), i32("count", func(o *Op) *int32 { return &o.Count }),
		i32("code", func(o *Op) *int32 { return &o.Code })}})
	define(KindClobber, kindDef{name: "clobber", fields: []field{imgKey}})
	define(KindUnload, kindDef{name: "unload", entry: true})
	// simpler_host_log_bind_state (S-2) with threshold= (Op.Code), version=
	// (Op.Site) and size= (Op.Count), or null.
	define(KindHostLog, kindDef{name: "hostlog", entry: true, status: true, fields: []field{
		{word: "null", read: func(p *opParser, _ string) { p.op.OutNull = true }, text: func(o Op) string {
			return map[bool]string{true: "null"}[o.OutNull]
		}},
		i32("threshold", func(o *Op) *int32 { return &o.Code }),
		dflt(nat("version", 0, math.MaxUint32, func(o *Op) *int32 { return &o.Site }), func(o *Op) { o.Site = 1 }),
		dflt(nat("size", 0, math.MaxInt32, func(o *Op) *int32 { return &o.Count }), func(o *Op) { o.Count = 16 }),
	}})
}

// deviceArg is setdev's device: a number >= 0, or none (-1, as is a
// recorded none or no device at all).
var deviceArg = field{samples: []string{"0", "7", "none"},
	read: func(p *opParser, v string) {
		p.op.Dev = -1
		if v == "none" {
			return
		}
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < 0 {
			p.fail("bad device %q (want a device >= 0 or none)", v)
		}
		p.op.Dev = int32(n)
	},
	text: func(o Op) string {
		if o.Dev < 0 {
			return "none"
		}
		return strconv.Itoa(int(o.Dev))
	},
	rec: func(t *traceFields, v tracevocab.Value) {
		t.c.Op.Dev = -1
		if v.Is("n") {
			t.c.Op.Dev = clampI32(v.Int(0))
		}
	},
	gone: func(t *traceFields) { t.c.Op.Dev = -1 },
}
