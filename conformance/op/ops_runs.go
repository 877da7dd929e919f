package op

// The run family with valid arguments on real run storage (program mode).

func init() {
	define(KindRegister, runDef("register", nil, ctxArg, idKey, opt(imgKey)))
	define(KindUnregister, runDef("unregister", nil, ctxArg, idKey))
	// The run's CallConfig and descriptor are the runner's valid ones;
	// cfg=null and desc=null pass NULL (E-PROG: refused with IA).
	start := []field{ctxArg, stKey, idKey, argsKey, nullFlag("cfg", "", func(o *Op) *bool { return &o.Cfg.Null }),
		nullFlag("desc", "", func(o *Op) *bool { return &o.OutNull })}
	define(KindPrepareRun, runDef("prepare_run", traceRun, start...))
	define(KindRun, runDef("run", traceRun, start...))
	define(KindLaunchRun, runDef("launch_run", traceRun, ctxArg, stKey))
	poll := runDef("poll_run", traceRun, ctxArg, stKey)
	poll.polls = func(Op) bool { return true }
	define(KindPollRun, poll)
	define(KindWaitRun, runDef("wait_run", traceRun, ctxArg, stKey))
	define(KindFinalizeRun, runDef("finalize_run", traceRun, ctxArg, stKey))
}

// stKey is a run op's storage, st=0..3 (or null).
var stKey = ref("run storage", "st", "", MaxStorages, true, func(o *Op) *int8 { return &o.St })

// runDef: an entry on a context that returns a status, held to S-3 for NULL.
func runDef(name string, trace func(f *traceFields), fields ...field) kindDef {
	return kindDef{name: name, args: ctxOne, entry: true, status: true, nullable: true, runFamily: true, fields: fields, trace: trace}
}
