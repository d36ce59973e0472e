package encode

import (
	"testing"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// Every ∀∃ axiom of every kernel must be closable: once its universally
// bound operations returned, no later operation can be a witness. SATURATE
// only ever sees closed instances, so an unclosable axiom would be
// silently ignored by it.
func TestAllExistentialAxiomsClose(t *testing.T) {
	t.Parallel()
	for _, obj := range h.Objects {
		k, err := theory.KernelOf(obj, "2")
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range k.Axioms() {
			p := prepare(a)
			if len(a.Exists) > 0 && !p.closable {
				t.Errorf("%v: %s never closes", obj, a)
			}
		}
	}
	// The paper's own EXCHANGE does not close: a later exchange could be a
	// partner as far as that axiom alone can tell.
	if prepare(theory.Exchange().Parts[0]).closable {
		t.Error("the literal EXCHANGE was expected not to close")
	}
}
