package encode

import (
	"strconv"
	"testing"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// script builds a log from steps "c ID method arg" (a call) and "r ID ret"
// (a return; ret "-" for void).
type script struct {
	acts   []h.Action
	labels map[string]h.Label
}

func (s *script) call(id string, m h.Method, arg h.Value) {
	if s.labels == nil {
		s.labels = map[string]h.Label{}
	}
	l := h.Label{Method: m, Arg: arg}
	s.labels[id] = l
	s.acts = append(s.acts, h.Action{Kind: h.Call, ID: id, Label: l, Seq: len(s.acts)})
}

func (s *script) ret(id string, v h.Value) {
	l := s.labels[id]
	l.Ret = v
	s.acts = append(s.acts, h.Action{Kind: h.Return, ID: id, Label: l, Seq: len(s.acts)})
}

// TestQuickRunCheckOverlap is the case runPasses's real-time test of the
// level's checks is there for: a run noted on an add A that overlaps the
// instance's bound operation w, with the run's witness order true by
// real time. EMPTY at the return of a remove E that returned empty binds
// each add a (the quick level) with the check b(a,E); A's remove RA
// returned before E was called, so the witness match(A,RA) ∧ b(RA,E)
// holds by real time, but A overlaps E and b(A,E) has no variable yet:
// binding A makes it (quickHolds does not pass A over), and so must the
// run that holds A, which an earlier empty remove E2 (called after A
// returned, so b(A,E2) is true by real time) noted. Without the check
// runPasses would pass the run over, and the clauses would differ.
func TestQuickRunCheckOverlap(t *testing.T) {
	k, err := theory.KernelOf(h.Queue, "")
	if err != nil {
		t.Fatal(err)
	}
	var s script
	// quickMin adds, each dequeued in turn, so that the adds' list is
	// long enough for quickTail.
	for i := 1; i <= quickMin; i++ {
		id := "p" + strconv.Itoa(i)
		s.call(id, h.Add, h.Value(strconv.Itoa(i)))
		s.ret(id, h.Void)
	}
	for i := 1; i <= quickMin; i++ {
		id := "q" + strconv.Itoa(i)
		s.call(id, h.Rem, h.Void)
		s.ret(id, h.Value(strconv.Itoa(i)))
	}
	s.call("A", h.Add, "100")
	s.call("RA", h.Rem, h.Void)
	s.ret("RA", "100")
	s.call("E", h.Rem, h.Void)
	s.ret("A", h.Void)
	s.call("E2", h.Rem, h.Void)
	s.ret("E2", h.Empty)
	s.ret("E", h.Empty)

	defer func(n int) { forgetEvery = n }(forgetEvery)
	forgetEvery = 1 << 30 // nothing is forgotten
	var runs *Encoder
	compareVariants(t, "queue/overlap", k, s.acts, true, 1,
		[2]string{"without runs", "with runs"},
		func(e *Encoder, first bool) {
			e.scr.noRuns = first
			if !first {
				runs = e
			}
		})
	if runs.scr.quickJumps == 0 {
		t.Fatal("quickTail passed over no run: the case is not met")
	}
}
