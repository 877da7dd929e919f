package sim

import (
	"testing"

	"github.com/simabi/simabi/abi"
)

// TestACLFacet: streams (create, destroy, synchronize), device memory and
// the nine counters of the simulated ACL (semantics §3, §4).
func TestACLFacet(t *testing.T) {
	r := newTMR(t)
	acl := r.ACL()
	lockThread(t)
	if d, st := acl.GetDevice(); d != -1 || st != ACLErrorInvalidParam {
		t.Fatalf("GetDevice with none = (%d, %d)", d, st)
	}
	if st := acl.Init(); st != 0 {
		t.Fatal("Init")
	}
	if st := acl.Init(); st != ACLErrorRepeatInitialize {
		t.Fatalf("repeated Init = %d", st)
	}
	setDevice(t, r, 1)
	s1, st := acl.CreateStream()
	s2, _ := acl.CreateStream()
	if st != 0 || s1 == 0 || s2 == 0 || s1 == s2 {
		t.Fatalf("streams %#x %#x", s1, s2)
	}
	if st := acl.SynchronizeStream(0); st != ACLErrorInvalidParam {
		t.Fatal("sync NULL")
	}
	if st := acl.SynchronizeStream(s1); st != 0 {
		t.Fatal("sync idle")
	}
	if st := acl.DestroyStream(0); st != ACLErrorInvalidParam {
		t.Fatal("destroy NULL")
	}
	if st := acl.DestroyStream(streamA); st != ACLErrorInvalidParam {
		t.Fatal("destroy of a stream ACL never created")
	}
	// Destroy completes pending work first and reports its failure.
	ctx := kernelCtx(t, r, 1)
	mustPrepare(t, r, ctx, noopImage(t, 0), 0)
	want(t, "launch", launch(r, ctx, 0, emptyArgs(), s1), okS)
	want(t, "inject 8", r.SimInject(abi.SiteAsyncDeviceFail, 1, -1200), okS)
	if st := acl.DestroyStream(s1); st != -1200 {
		t.Fatalf("destroy with pending work = %d", st)
	}
	if r.PendingLaunches(s1) != 0 {
		t.Fatal("destroy left work pending")
	}
	if st := acl.DestroyStream(s1); st != ACLErrorInvalidParam {
		t.Fatal("double destroy")
	}
	want(t, "launch on s2", launch(r, ctx, 0, emptyArgs(), s2), okS)
	if st := acl.SynchronizeDevice(); st != 0 || r.PendingLaunches(s2) != 0 {
		t.Fatal("SynchronizeDevice")
	}
	if st := acl.Finalize(); st != 0 {
		t.Fatal("Finalize")
	}
	// Memory.
	if _, st := acl.Malloc(0); st != ACLErrorInvalidParam {
		t.Fatal("Malloc(0)")
	}
	p := devAlloc(t, r, []byte("hello"))
	if got := string(devRead(t, r, p, 5)); got != "hello" {
		t.Fatal(got)
	}
	if st := acl.CopyToDevice(p+3, []byte("xyz")); st != ACLErrorInvalidParam {
		t.Fatal("copy past the allocation")
	}
	if st := acl.CopyFromDevice(make([]byte, 1), 0x42); st != ACLErrorInvalidParam {
		t.Fatal("copy from nowhere")
	}
	if acl.LiveDeviceBytes() != 5 {
		t.Fatal("live bytes")
	}
	if st := acl.Free(p); st != 0 || acl.Free(p) != ACLErrorInvalidParam {
		t.Fatal("Free")
	}
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
	wantCounters := ACLCounters{Init: 2, Finalize: 1, SetDevice: 1, SynchronizeStream: 2, SynchronizeDevice: 1,
		CreateStream: 2, DestroyStream: 4, GetDevice: 1}
	if got := acl.Counters(); got != wantCounters {
		t.Fatalf("counters %+v, want %+v", got, wantCounters)
	}
	if wantCounters.Forbidden() != 2+1+1+2+1 {
		t.Fatal("Forbidden")
	}
}

// TestSimHooks: the hooks of docs/contract.md. simabi_sync_stream(NULL) → IA;
// simabi_inject applies abi.CheckInjectArgs, replaces the site's count and
// code (count 0 disarms), and a refusing build models no site.
func TestSimHooks(t *testing.T) {
	r := newTMR(t)
	want(t, "sync NULL", r.SimSyncStream(0), iaS)
	want(t, "sync unused", r.SimSyncStream(streamB), okS)
	for _, tc := range []struct {
		site, count, code int32
		want              abi.Status
	}{
		{0, 1, -1, iaS}, {11, 1, -1, iaS}, {10, 1, -1, okS}, {1, -1, -1, iaS}, {1, 1, 0, iaS},
		{6, 1, 0, okS}, {7, 1, 0, okS}, {2, 0, 0, okS}, {9, 3, -7, okS},
	} {
		if got := r.SimInject(tc.site, tc.count, tc.code); got != tc.want {
			t.Errorf("inject(%d, %d, %d) = %v, want %v", tc.site, tc.count, tc.code, got, tc.want)
		}
	}
	want(t, "arm", r.SimInject(abi.SitePrepareCopy, 5, -1), okS)
	want(t, "replace", r.SimInject(abi.SitePrepareCopy, 2, -2), okS)
	if r.FaultsRemaining()[abi.SitePrepareCopy] != 2 {
		t.Fatal("inject did not replace the count")
	}
	want(t, "disarm", r.SimInject(abi.SitePrepareCopy, 0, 0), okS)
	if r.FaultsRemaining()[abi.SitePrepareCopy] != 0 {
		t.Fatal("count 0 did not disarm")
	}
	ref := New(Refusing, Options{Faults: []Fault{{abi.SitePrepareCopy, 1, -1}}})
	want(t, "refusing inject", ref.SimInject(abi.SitePrepareCopy, 1, -1), unsup)
	want(t, "refusing inject bad", ref.SimInject(0, 1, -1), iaS)
	if ref.FaultsRemaining()[abi.SitePrepareCopy] != 0 {
		t.Fatal("a refusing build armed a fault from Options")
	}
	bad := New(TMR, Options{Faults: []Fault{{abi.SitePrepareCopy, 1, 0}, {abi.SiteLaunchEnqueue, 2, -3}}})
	if got := bad.FaultsRemaining(); got[abi.SitePrepareCopy] != 0 || got[abi.SiteLaunchEnqueue] != 2 {
		t.Fatalf("Options.Faults: %v", got)
	}
}

// TestLoader: Loader implements abi.Loader; each load is a fresh instance;
// Close is a no-op; an unknown profile does not load.
func TestLoader(t *testing.T) {
	l := Loader{Profile: TMR}
	if l.String() != "sim:tmr" || (Loader{Profile: Refusing}).String() != "sim:refusing" {
		t.Fatal(l.String())
	}
	var _ abi.Loader = &l
	a, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.LoadProbe()
	if err != nil {
		t.Fatal(err)
	}
	if a.KernelModeSupported(0) != 1 || a.(LoadedRuntime).Runtime == b.(LoadedRuntime).Runtime {
		t.Fatal("loads share an instance")
	}
	if _, ok := a.(abi.SimHooks); !ok {
		t.Fatal("a loaded sim runtime does not expose the hooks")
	}
	for i := 0; i < 2; i++ {
		if err := a.Close(); err != nil {
			t.Fatalf("Close #%d = %v", i+1, err)
		}
	}
	if _, err := (Loader{Profile: "legacy"}).Load(); err == nil {
		t.Fatal("an unknown profile loaded")
	}
	r := New("weird", Options{})
	if r.Profile() != "weird" || r.KernelModeSupported(0) != 0 {
		t.Fatal("an unknown profile must behave as refusing")
	}
}

// TestInstanceLoader: Runtime.Loader hands out the instance itself, so the
// device the caller set through its ACL is the one a consumer's calls see.
func TestInstanceLoader(t *testing.T) {
	rt := New(Refusing, Options{})
	l := rt.Loader()
	if l.String() != "sim:refusing" {
		t.Fatal(l.String())
	}
	for _, load := range []func() (abi.LoadedRuntime, error){l.Load, l.LoadProbe} {
		got, err := load()
		if err != nil {
			t.Fatal(err)
		}
		if got.(LoadedRuntime).Runtime != rt {
			t.Fatal("the instance loader returned another instance")
		}
		if err := got.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
