package encode

import (
	"math/rand"
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
			e.test().noRuns = first
			if !first {
				runs = e
			}
		})
	if runs.scr.quickJumps == 0 {
		t.Fatal("quickTail passed over no run: the case is not met")
	}
}

// TestSelfPrunes checks clevel.self's claim directly: at every level of
// every compiled plan that has one, binding the operation of the self
// variable, with the earlier levels bound at random in the windows of
// random histories (a saturator assigning variables, operations
// forgotten at random), is pruned by cbind at once: one binding, no
// variable, clause or watched instance. crec leaves that candidate out
// without calling cbind; TestCompiledAgreesWithInterpreter compares
// the clauses with the interpreter, which binds it.
func TestSelfPrunes(t *testing.T) {
	t.Parallel()
	checked := 0
	for _, obj := range h.Objects {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= 8; seed++ {
			cfg := seedConfig(obj, seed, 40, 2+int(seed%6))
			acts := generate(t, cfg)
			r := lazyRun(k, Config{Watch: true})
			e := r.e
			rng := rand.New(rand.NewSource(seed))
			feedForgetting(t, r, acts, rng, 4, func(int) {
				win := e.Ops()
				for _, a := range e.ax {
					if a.tmpl == nil || len(win) == 0 {
						continue
					}
					for f, lvs := range append([][]clevel{a.tmpl.levels}, a.tmpl.fixedLevels...) {
						for l := range lvs {
							lv := &lvs[l]
							if lv.self < 0 {
								continue
							}
							if cap(e.scr.env) < a.Vars() {
								e.scr.env = make([]*Op, a.Vars())
							}
							e.scr.env = e.scr.env[:a.Vars()]
							for i := range e.scr.env {
								e.scr.env[i] = win[rng.Intn(len(win))]
							}
							st := &e.scr.inst
							closed := rng.Intn(2) == 0
							st.a, st.must, st.closed, st.extra, st.win, st.nf, st.fixed = a, nil, closed, nil, win, len(a.Forall), f-1
							st.clv, st.na, st.nr = lvs, 0, 0
							if f > 0 {
								st.must = e.scr.env[lvs[0].v]
								st.one[0] = st.must
							}
							o := e.scr.env[lv.self]
							vars, clauses := e.Stats()
							watched, bindings := e.watches().watched, e.enum.bindings
							e.enum.cbind(st, lv, l, o, false, false)
							v2, c2 := e.Stats()
							if v2 != vars || c2 != clauses || e.watches().watched != watched || e.enum.bindings > bindings+1 {
								t.Fatalf("%v seed %d %s plan %d level %d: binding the self variable %d's operation made %d variables, %d clauses, %d watched instances, %d bindings",
									obj, seed, a.Name, f-1, l, lv.self, v2-vars, c2-clauses, e.watches().watched-watched, e.enum.bindings-bindings)
							}
							checked++
						}
					}
				}
				r.step()
			}, nil)
		}
	}
	if checked == 0 {
		t.Fatal("no level has a self variable: the test checks nothing")
	}
	t.Logf("%d self bindings checked", checked)
}

// TestFeedMethod checks feedMethod's premise on random histories of
// every kernel, SATURATE's encoder and the eager one, operations
// forgotten at random: when it names a method for a set of sides, every
// live operation of another method has no partner (returned or not) on
// one of those sides, so a level that binds only operations with
// returned partners on each of them may visit that method's operations
// alone.
func TestFeedMethod(t *testing.T) {
	t.Parallel()
	named := 0
	for _, obj := range h.Objects {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= 6; seed++ {
			cfg := seedConfig(obj, seed, 40, 2+int(seed%6))
			acts := generate(t, cfg)
			for _, lazy := range []bool{true, false} {
				var r *run
				every := 0 // the eager encoder forgets nothing
				if lazy {
					r = lazyRun(k, Config{})
					every = 4
				} else {
					sink := &recSink{}
					e := New(k, sink, Config{})
					e.Begin()
					r = &run{e: e, sink: sink}
				}
				e := r.e
				feedForgetting(t, r, acts, rand.New(rand.NewSource(seed)), every, func(int) {
					st := &e.scr.inst
					for sides := uint8(1); sides < 4; sides++ {
						m := e.enum.feedMethod(st, &clevel{feedSides: sides})
						if m == h.NoMethod {
							continue
						}
						named++
						for _, o := range e.Ops() {
							if o.Label.Method == m {
								continue
							}
							if (sides&1 == 0 || len(o.asX) > 0) && (sides&2 == 0 || len(o.asY) > 0) {
								t.Fatalf("%v seed %d lazy %v: feedMethod(%d) = %v, and %v %d has partners %d as x, %d as y",
									obj, seed, lazy, sides, m, o.Label.Method, o.Serial, len(o.asX), len(o.asY))
							}
						}
					}
				}, nil)
			}
		}
	}
	if named == 0 {
		t.Fatal("feedMethod named no method: the test checks nothing")
	}
	t.Logf("%d windows checked against a named method", named)
}
