package abi_test

import (
	"reflect"
	"testing"

	"github.com/simabi/simabi/abi"
)

// Every entry of the unsupported base answers as an unbound entry does
// (onboard's rule for an entry it did not bind): UNSUPPORTED for a status,
// the zero value otherwise.
func TestUnsupportedRuntimeAnswersUnsupported(t *testing.T) {
	v := reflect.ValueOf(abi.UnsupportedRuntime{})
	statusType := reflect.TypeOf(abi.Status(0))
	rt := reflect.TypeOf((*abi.Runtime)(nil)).Elem()
	if v.NumMethod() != rt.NumMethod() {
		t.Errorf("UnsupportedRuntime has %d methods, abi.Runtime %d", v.NumMethod(), rt.NumMethod())
	}
	for i := 0; i < rt.NumMethod(); i++ {
		name := rt.Method(i).Name
		m := v.MethodByName(name)
		args := make([]reflect.Value, m.Type().NumIn())
		for j := range args {
			args[j] = reflect.Zero(m.Type().In(j))
		}
		for _, out := range m.Call(args) {
			want := reflect.Zero(out.Type())
			if out.Type() == statusType {
				want = reflect.ValueOf(abi.Unsupported)
			}
			if !out.Equal(want) {
				t.Errorf("%s returned %v, want %v", name, out, want)
			}
		}
	}
}

// The base claims none of the optional hooks, so a double embedding it does
// not either.
func TestUnsupportedRuntimeClaimsNoHooks(t *testing.T) {
	var rt any = abi.UnsupportedRuntime{}
	if _, ok := rt.(abi.SimHooks); ok {
		t.Error("UnsupportedRuntime implements abi.SimHooks")
	}
	if _, ok := rt.(abi.SimControl); ok {
		t.Error("UnsupportedRuntime implements abi.SimControl")
	}
	if _, ok := rt.(abi.SimCommTimeout); ok {
		t.Error("UnsupportedRuntime implements abi.SimCommTimeout")
	}
}
