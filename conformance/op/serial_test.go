package op

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSerial: a two-thread op in serial order is its calls one after the
// other (X-1: the racers in the order the model's primary expectation
// follows; X-2: the hold without the wait, the prepare, the second call);
// every other op is itself.
func TestSerial(t *testing.T) {
	for _, tc := range []struct{ op, want string }{
		{"racekinit c0 c1 dev=1 gen=7", "kinit c0 dev=1 gen=7\nkinit c1 dev=1 gen=7\n"},
		{"holdlaunch c2 ms=20 img=valid(t=1,s=1) id=0 stream=s1",
			"inject site=7 count=1 code=0\nprepare c2 img=valid(t=1,s=1)\nlaunch c2 id=0 stream=s1\n"},
		{"holdprepare c0 ms=20 img=valid() img2=valid(x=1)",
			"inject site=7 count=1 code=0\nprepare c0 img=valid()\nprepare c0 img=valid(x=1)\n"},
		{"prepare c0 img=valid(b=100) rep=3", "prepare c0 img=valid(b=100) rep=3\n"},
	} {
		t.Run(tc.op, func(t *testing.T) {
			o, err := Parse(tc.op)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ParseScript(tc.want)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, o.Serial()); d != "" {
				t.Errorf("%s in serial order (-want +got):\n%s", tc.op, d)
			}
		})
	}
}
