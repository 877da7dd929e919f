package conformance

import (
	"github.com/simabi/simabi/conformance/op"

	"testing"

	"github.com/simabi/simabi/conformance/model"
)

// Adding an op (docs/architecture.md "Where to add"): every kind of the op
// language has its entry in each layer's table, the model's (defineStep)
// and the engine's (defineOp), and no table holds a kind the language does
// not define. A kind defined in one table only would parse and then be
// skipped or judged by no rule.
func TestEveryKindHasItsThreeTableEntries(t *testing.T) {
	for k := op.KindInvalid + 1; k < op.NumKinds; k++ {
		if !k.Defined() {
			t.Errorf("kind %d: not defined in the op language (conformance/op)", k)
			continue
		}
		if !model.Judges(k) {
			t.Errorf("%s: no defineStep in conformance/model", k)
		}
		if classOf(k) == nil {
			t.Errorf("%s: no defineOp in conformance", k)
		}
	}
	for k, c := range opClasses {
		if c != nil && !op.Kind(k).Defined() {
			t.Errorf("kind %d: an engine entry for a kind the op language does not define", k)
		}
	}
}
