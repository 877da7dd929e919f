package conformance_test

import (
	"github.com/simabi/simabi/conformance/op"

	"fmt"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/sim"
)

// Run a short sequence on sim and print its history: every call was checked
// against the model (E-KINIT, E-PREP, M-1, M-7, E-LAUNCH, D-2, E-FIN).
func ExampleRun() {
	rt := sim.New(sim.TMR, sim.Options{})
	ops := op.MustParseScript(`
create c0
setdev 0
kinit c0 dev=0 gen=1
prepare c0 img=valid(t=2,s=1)
prepare c0 img=valid()+mis(4)
launch c0 id=0 stream=s0
launch c0 id=0 args=match(dt=1) stream=s0
setdev 1
launch c0 id=0 stream=s0   # the wrong device: D-2
setdev 0
finalize c0
`)
	history, findings := conformance.Run(&conformance.Basic{RT: rt, SimHooks: rt}, ops)
	fmt.Print(history)
	fmt.Println(len(findings), "findings")
	// Output:
	// #0 create c0 -> ok mem=0
	// #1 setdev 0 -> OK
	// #2 kinit c0 dev=0 gen=1 -> OK mem=0
	// #3 prepare c0 img=valid(t=2,s=1) -> OK out=0 mem=up
	// #4 prepare c0 img=valid()+mis(4) -> INVALID_ARGUMENT out=-1 mem=same
	// #5 launch c0 id=0 stream=s0 -> OK mem=same
	// #6 launch c0 id=0 args=match(dt=1) stream=s0 -> INVALID_ARGUMENT mem=same
	// #7 setdev 1 -> OK
	// #8 launch c0 id=0 stream=s0 -> INVALID_STATE mem=same
	// #9 setdev 0 -> OK
	// #10 finalize c0 -> OK mem=0
	// 0 findings
}
