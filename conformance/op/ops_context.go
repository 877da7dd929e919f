package op

// The context's own entries: create, destroy, supported, finalize,
// committed.

func init() {
	define(KindCreate, kindDef{
		name: "create", args: ctxOne, makesContext: true, entry: true, quiet: true,
		parse:  func(p *opParser) { p.op.C = p.slot(p.positional(1)[0]) },
		format: formatCtx,
		trace:  traceNothing, answer: answerCreate,
	})
	define(KindDestroy, kindDef{
		name: "destroy", args: ctxOne, entry: true, nullable: true,
		parse: parseCtxOnly, format: formatCtx,
		trace: traceNothing, answer: answerDestroy,
	})
	define(KindSupported, kindDef{
		name: "supported", args: ctxOne, kernel: true, entry: true, nullable: true, quiet: true,
		parse: parseCtxOnly, format: formatCtx,
		trace: traceNothing, answer: answerValue,
	})
	define(KindFinalize, kindDef{
		name: "finalize", args: ctxOne, entry: true, status: true, nullable: true,
		parse: parseCtxOnly, format: formatCtx,
		trace: traceNothing,
	})
	define(KindCommitted, kindDef{
		name: "committed", args: ctxOne, entry: true, nullable: true, quiet: true,
		parse: parseCtxOnly, format: formatCtx,
		trace: traceNothing, answer: answerCommitted,
	})
}

// parseCtxOnly reads an op whose one argument is a context (or null).
func parseCtxOnly(p *opParser) { p.op.C = p.ctx(p.positional(1)[0]) }

// formatCtx writes an op whose one argument is a context.
func formatCtx(t *opText, op Op) { t.w(ctxText(op.C)) }
