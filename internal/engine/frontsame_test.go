package engine

import (
	"testing"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testhist"
)

// A crashed write that leaves the state as it is still hides the open
// writes: w(2) goes right before the crashed w(1), unseen, and cas(1→3)
// follows, which the reads of 3 need after w(2) has returned
// (linearizable: w(1), w(2), the crashed w(1), cas(1→3), the reads).
// The search skipped every crashed operation that leaves the state as
// it is, and reported a violation at the second read's return
// (TestFrontierTermsDifferential found it at SATMON_DIFF_SCALE=10).
func TestFrontierSameStateHides(t *testing.T) {
	t.Parallel()
	op := func(id string, l h.Label, call, ret int) h.Op { return h.Op{ID: id, Label: l, Call: call, Return: ret} }
	hist := &h.History{Object: h.CASRegister, Ops: []h.Op{
		op("0", h.Label{Method: h.Write, Arg: "1"}, 0, 1),
		op("1", h.Label{Method: h.CAS, Old: "1", Arg: "3", Ret: h.OK}, 2, 6),
		op("2", h.Label{Method: h.Write, Arg: "1", Pending: true, Ret: h.Void}, 3, -1),
		op("3", h.Label{Method: h.Write, Arg: "2"}, 4, 8),
		op("4", h.Label{Method: h.Read, Ret: "3"}, 5, 7),
		op("5", h.Label{Method: h.Read, Ret: "3"}, 9, 10),
	}}
	if !testhist.PorcupineLinearizable(hist) {
		t.Fatalf("porcupine: not linearizable\n%v", hist)
	}
	var tl frontierTally
	tl.agree(t, "same state", hist, 6)
	// Without the crashed write, w(2) cannot be overwritten before the
	// compare-and-set: a violation, which hiding must not hide.
	hist.Ops = append(hist.Ops[:2], hist.Ops[3:]...)
	compact(hist)
	if testhist.PorcupineLinearizable(hist) {
		t.Fatalf("porcupine: linearizable\n%v", hist)
	}
	tl.agree(t, "without the crashed write", hist, 6)
}
