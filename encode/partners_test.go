package encode

import (
	"fmt"
	"testing"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// TestPendingPartnersAgreeWithStored grounds random histories of the
// kernels whose pending operations' partners are read on demand
// (partners.go) twice, once storing every pair in the partner lists as
// the other kernels do, and requires the same clauses in the same order
// over the same variables, lazily over a saturator (operations forgotten
// at random) and eagerly with EmitOpen: every reader of a partner list
// sees the same operations in the same order either way. The histories
// keep many adds (writes) in the window while removes (reads) are
// pending, stall some operations, and inject faults.
func TestPendingPartnersAgreeWithStored(t *testing.T) {
	t.Parallel()
	virtual := 0
	for _, obj := range []h.Object{h.Queue, h.Stack, h.PQueue, h.Register} {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= seeds(40); seed++ {
			cfg := seedConfig(obj, seed, 40, 2+int(seed%7))
			cfg.Capacity = int(seed % 3 * 12)
			acts := generate(t, cfg)
			for _, lazy := range []bool{true, false} {
				name := fmt.Sprintf("%v/seed%d/lazy=%v", obj, seed, lazy)
				compareVariants(t, name, k, acts, lazy, seed, [2]string{"stored partners", "partners on demand"},
					func(e *Encoder, first bool) {
						if !first && e.ptn.virt {
							virtual++
						}
						e.ptn.virt = e.ptn.virt && !first
					})
			}
		}
	}
	if virtual == 0 {
		t.Fatal("no encoder read partners on demand: the comparison tests nothing")
	}
}
