package session

import (
	"github.com/simabi/simabi/conformance/model"

	"regexp"
	"testing"

	"github.com/simabi/simabi/conformance/report"
)

// TestAlignDetail: a detail's op index follows the op into the shrunk repro.
func TestAlignDetail(t *testing.T) {
	repro := []string{"create c0", "setdev 0", "kinit c0 dev=0 gen=1", "prepare c0 img=valid()+long(64)"}
	for _, c := range []struct{ in, want string }{
		{"#6 prepare c0 img=valid()+long(64): want INVALID_ARGUMENT", "#3 prepare c0 img=valid()+long(64): want INVALID_ARGUMENT"},
		{"#6.2 prepare c0 img=valid()+long(64): x", "#3.2 prepare c0 img=valid()+long(64): x"},
		{"#6 fail V-IMG: prepare c0 img=valid()+long(64): x", "#3 fail V-IMG: prepare c0 img=valid()+long(64): x"},
		{"#6 launch c0 id=0 stream=s0: x", "#6 launch c0 id=0 stream=s0: x"},
		{"no index", "no index"},
	} {
		if got := alignDetail(c.in, repro); got != c.want {
			t.Errorf("alignDetail(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"/a/b.so": "/a/b.so", "a b": "'a b'", "it's": `'it'\''s'`, "": "''"} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScriptTarget(t *testing.T) {
	if got := ScriptTarget("# abicheck repro\n# target: sim:refusing\ncreate c0\n"); got != "sim:refusing" {
		t.Errorf("got %q", got)
	}
	if got := ScriptTarget("# target: /x/lib.so\ncreate c0\n"); got != "" {
		t.Errorf("got %q", got)
	}
}

// JUnit classnames keep no '.' or '/', which report viewers split on.
func TestJUnitClassnamesKeepWhole(t *testing.T) {
	b, err := report.RenderJUnit("abicheck", []report.JUnitSuite{{Name: "/tmp/x.y/libhost_runtime.so",
		Cases: report.RuleCases("abicheck", "/tmp/x.y/libhost_runtime.so", []report.RuleReport{{Rule: "E-FIN", Verdict: model.Pass}}, nil)}})
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`classname="([^"]*)"`).FindSubmatch(b)
	if m == nil || string(m[1]) != "abicheck__tmp_x_y_libhost_runtime_so" {
		t.Fatalf("classname %q:\n%s", m, b)
	}
}
