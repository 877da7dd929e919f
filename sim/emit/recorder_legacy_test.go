package emit

import (
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
)

// docs/trace.md, the legacy revision: a legacy recorder over the legacy
// fake records the 9-parameter simpler_init (no sdma, a 1144-byte prewarm
// CallConfig) and the legacy codes as the target returns them; onboard
// binds it as a legacy build (no supported probe).
func TestRecorderLegacyProgramSession(t *testing.T) {
	fake := freshFake(t, Config{Profile: ProfileLegacy})
	rec := freshRecorder(t, RecorderConfig{Revision: abi.RevLegacy})
	trace := recordEnv(t, fake)
	pf := newProgramFixture(t)
	prewarm := make([]byte, abi.CallConfigSize)
	if err := (&abi.CallConfig{}).EncodeLegacy(prewarm); err != nil {
		t.Fatal(err)
	}
	got := runSession(t, rec, func(l *onboard.Library) observed {
		var o observed
		o.add("revision %v", l.Revision())
		c := l.CreateDeviceContext()
		o.add("finalize(NULL) %d", l.FinalizeDevice(0))
		o.add("pinit %d", l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, abi.Ptr(prewarm), 0, nil, 0))
		o.add("register %d", l.RegisterCallable(c, 0, abi.Ptr(pf.img)))
		o.add("finalize %d", l.FinalizeDevice(c))
		l.DestroyDeviceContext(c)
		return o
	})
	if diff := cmp.Diff(observed{"revision legacy", "finalize(NULL) -1", "pinit 0", "register 0", "finalize 0"}, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	want := append(traceHeader(fake, "legacy", DefaultImageLimit), recorded([]string{
		"dev=none call simpler_host_log_bind_state -> 0",
		"dev=none contract -> ptr",
		"dev=none create -> c0",
		"dev=none finalize null -> -1",
		"dev=none pinit c0 dev=0 aicpu=none aicore=none disp=none prewarm=raw(" + hex.EncodeToString(prewarm[:abi.LegacyCallConfigSize]) + ") -> 0",
		"dev=0 register c0 id=0 img=raw(" + fmt.Sprint(len(pf.img)) + ",0," + hex.EncodeToString(pf.img) + ") -> 0",
		"dev=0 finalize c0 -> 0",
		"dev=0 destroy c0 -> done",
	})...)
	if diff := cmp.Diff(want, readTrace(t, trace)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}
