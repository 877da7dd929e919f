package op

import "github.com/simabi/simabi/abi"

// The kernel-mode entries: kinit, prepare, launch.

func init() {
	define(KindKInit, kindDef{
		name: "kinit", args: ctxOne, kernel: true, entry: true, status: true, nullable: true,
		fields: []field{ctxArg, devKey, genKey, opt(cfgKey("cfg")), spanKey(SpanAicpu), spanKey(SpanAicore), spanKey(SpanDispatcher)},
	})
	define(KindPrepare, kindDef{
		name: "prepare", args: ctxOne, kernel: true, entry: true, status: true, nullable: true, prepares: true,
		fields: []field{ctxArg, imgKey, nullFlag("out", "ptr", func(o *Op) *bool { return &o.OutNull }), repKey},
		// A prepare takes the gate whatever it answers.
		gate: func(abi.Status) bool { return true },
	})
	define(KindLaunch, kindDef{
		name: "launch", args: ctxOne, kernel: true, entry: true, status: true, nullable: true,
		fields: []field{ctxArg, idKey, argsKey, streamKey, repKey},
		trace:  traceLaunch,
		// A launch refused with IA or IS did not take the gate: its
		// arguments are checked before it, and IS is (among others) the
		// fail-fast refusal itself.
		gate: func(st abi.Status) bool { return st != abi.InvalidState && st != abi.InvalidArgument },
	})
}
