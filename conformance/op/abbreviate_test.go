package op

import (
	"strings"
	"testing"
)

func TestAbbreviate(t *testing.T) {
	long := strings.Repeat("ab", 40) + "deadbeef"
	for _, c := range []struct{ in, want string }{
		{"prepare c0 img=raw(9,0,abcd)", "prepare c0 img=raw(9,0,abcd)"},
		{"prepare c0 img=raw(44,3," + long + "): want OK", "prepare c0 img=raw(44,3,abababababababab…deadbeef): want OK"},
		{"kinit c0 cfg=raw(" + long + ") aicpu=none", "kinit c0 cfg=raw(abababababababab…deadbeef) aicpu=none"},
		{"prepare c0 img=raw(9999,0,trunc)", "prepare c0 img=raw(9999,0,trunc)"},
		{"args=raw(t=2,s=1,host=0)", "args=raw(t=2,s=1,host=0)"},
		{"a raw( with no end", "a raw( with no end"},
		{"two raw(" + long + ") raw(" + long + ")", "two raw(abababababababab…deadbeef) raw(abababababababab…deadbeef)"},
	} {
		if got := Abbreviate(c.in); got != c.want {
			t.Errorf("Abbreviate(%.40q…) = %q, want %q", c.in, got, c.want)
		}
	}
}
