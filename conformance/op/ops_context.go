package op

// The context's own entries: create, destroy, supported, finalize,
// committed.

func init() {
	ctx := []field{ctxArg}
	define(KindCreate, kindDef{
		name: "create", args: ctxOne, makesContext: true, entry: true, quiet: true, fields: []field{slotArg},
		answer: answerCreate,
	})
	define(KindDestroy, kindDef{
		name: "destroy", args: ctxOne, entry: true, nullable: true, fields: ctx,
		answer: answerDestroy,
	})
	define(KindSupported, kindDef{
		name: "supported", args: ctxOne, kernel: true, entry: true, nullable: true, quiet: true, fields: ctx,
		answer: answerValue,
	})
	define(KindFinalize, kindDef{
		name: "finalize", args: ctxOne, entry: true, status: true, nullable: true, fields: ctx,
	})
	define(KindCommitted, kindDef{
		name: "committed", args: ctxOne, entry: true, nullable: true, quiet: true, fields: ctx,
		answer: answerCommitted,
	})
}
