package explain

import (
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/testhist"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/seqmodel"
)

// replayWitness checks w against hist with the separately written
// sequential models: every complete operation appears once with its
// label, pending ones are completed or dropped, the order extends real
// time, and the model accepts the labels in order (for the exchanger:
// the completed non-null exchanges pair up as overlapping swaps).
func replayWitness(hist *h.History, w *engine.Witness) string {
	n := len(hist.Ops)
	pos := make([]int, n)
	for i := range pos {
		pos[i] = -1
	}
	for p, wo := range w.Order {
		i := wo.Index
		if i < 0 || i >= n || pos[i] >= 0 {
			return "an operation is listed twice or out of range"
		}
		o := &hist.Ops[i]
		if wo.ID != o.ID || wo.Label.Pending {
			return "[" + wo.ID + "] has the wrong id or no return"
		}
		if !o.Pending() && wo.Label != o.Label {
			return "[" + wo.ID + "]'s label was changed"
		}
		if o.Pending() && (wo.Label.Method != o.Label.Method || wo.Label.Arg != o.Label.Arg || wo.Label.Prio != o.Label.Prio) {
			return "pending [" + wo.ID + "] was completed as another call"
		}
		pos[i] = p
	}
	dropped := map[string]bool{}
	for _, id := range w.Dropped {
		dropped[id] = true
	}
	for i := range hist.Ops {
		if pos[i] < 0 && !(hist.Ops[i].Pending() && dropped[hist.Ops[i].ID]) {
			return "[" + hist.Ops[i].ID + "] is neither in the order nor a dropped pending operation"
		}
	}
	if hist.Object == h.Exchanger {
		byID := map[string]engine.WitnessOp{}
		for _, wo := range w.Order {
			byID[wo.ID] = wo
		}
		for _, wo := range w.Order {
			if wo.Label.Ret == h.Null {
				continue
			}
			p, ok := byID[wo.Partner]
			if !ok || p.Partner != wo.ID || p.ID == wo.ID {
				return "exchange [" + wo.ID + "] has no partner"
			}
			x, y := &hist.Ops[wo.Index], &hist.Ops[p.Index]
			if wo.Label.Ret != p.Label.Arg || h.Before(x, y) || h.Before(y, x) {
				return "exchange [" + wo.ID + "] and its partner do not swap while overlapping"
			}
		}
		return ""
	}
	for i := range hist.Ops {
		for j := range hist.Ops {
			if pos[i] >= 0 && pos[j] >= 0 && h.Before(&hist.Ops[i], &hist.Ops[j]) && pos[i] > pos[j] {
				return "the order contradicts real time: [" + hist.Ops[i].ID + "] returned before [" + hist.Ops[j].ID + "] was called"
			}
		}
	}
	states := []seqmodel.Model{seqmodel.New(hist.Object, hist.Param)}
	for _, wo := range w.Order {
		var next []seqmodel.Model
		for _, s := range states {
			next = append(next, s.Steps(wo.Label)...)
		}
		if len(next) == 0 {
			return "the sequential model refuses [" + wo.ID + "] " + wo.Op
		}
		states = next[:min(len(next), 64)]
	}
	return ""
}

// Every witness replays on the sequential models, and there is one
// exactly when the brute-force oracle says linearizable; thousands of
// random histories of all eight objects.
func TestWitnessReplays(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 17))
	perObject := scale(1000)
	for _, obj := range h.Objects {
		found, none := 0, 0
		for range perObject {
			hist := testhist.RandomHistory(rng, obj, 7)
			w, err := FindWitness(hist, 0)
			if err != nil {
				t.Fatalf("%v: %v\n%s", obj, err, hist)
			}
			lin := seqmodel.Linearizable(hist)
			switch {
			case lin && w == nil:
				t.Errorf("%v: linearizable, but no witness\n%s", obj, hist)
			case !lin && w != nil:
				t.Errorf("%v: not linearizable, yet a witness\n%s", obj, hist)
			case w != nil:
				found++
				if msg := replayWitness(hist, w); msg != "" {
					t.Errorf("%v: witness %+v: %s\n%s", obj, w, msg, hist)
				}
			default:
				none++
			}
		}
		t.Logf("%v: %d witnesses replayed, %d histories without one", obj, found, none)
		if found == 0 {
			t.Errorf("%v: no linearizable history drawn: the test proves nothing", obj)
		}
	}
}
