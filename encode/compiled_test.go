package encode

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/saturate"
	"github.com/satmon/satmon/theory"
)

// generate returns the actions of the generated history cfg describes.
func generate(t *testing.T, cfg gen.Config) []h.Action {
	t.Helper()
	var acts []h.Action
	if err := gen.Generate(cfg, func(a h.Action) error { acts = append(acts, a); return nil }); err != nil {
		t.Fatal(err)
	}
	return acts
}

// seedConfig describes the random history of obj that seed picks, of ops
// operations at most conc at once: seed%3 of them left pending (never
// more than conc), faults injected (seed%2) and values repeated (seed%4)
// as seed says.
func seedConfig(obj h.Object, seed int64, ops, conc int) gen.Config {
	cfg := gen.Config{Object: obj, Ops: ops, Concurrency: conc, Pending: int(seed % 3),
		Seed: seed, Mutate: int(seed % 2), Values: int(seed % 4)}
	cfg.Pending = min(cfg.Pending, cfg.Concurrency)
	return cfg
}

// recSink records every clause and variable an encoder hands its sink,
// passing them on to a saturator when there is one.
type recSink struct {
	s       *saturate.Solver // nil: record only
	nvars   int
	clauses [][]Lit
	// enc, when set, is the encoder whose Origin each clause's entry of
	// origins records: the axiom's name and the operations' serials.
	enc     *Encoder
	origins []string
}

func (k *recSink) NewVar() z.Var {
	if k.s != nil {
		v := k.s.NewVar()
		k.nvars = max(k.nvars, int(v))
		return v
	}
	k.nvars++
	return z.Var(k.nvars)
}

func (k *recSink) AddClause(lits []Lit) {
	k.clauses = append(k.clauses, slices.Clone(lits))
	if k.enc != nil {
		o := ""
		if a, serials := k.enc.Origin(); a != nil {
			o = fmt.Sprint(a.Name, serials)
		}
		k.origins = append(k.origins, o)
	}
	if k.s == nil {
		return
	}
	k.s.AddClause(lits...)
}

func (k *recSink) Assignment() *[]z.Value { return k.s.Assignment() }

// run is one encoder of the comparison and its sink.
type run struct {
	e    *Encoder
	sink *recSink
	dead bool // its saturator found a conflict
}

// step propagates to the fixpoint, as SATURATE does after each return.
func (r *run) step() {
	if r.sink.s == nil || r.dead {
		return
	}
	for {
		if !r.sink.s.Propagate() {
			r.dead = true
			return
		}
		lits := r.sink.s.TakeAssigned()
		if len(lits) == 0 && !r.e.Waiting() {
			return
		}
		r.e.Assigned(lits)
	}
}

// TestCompiledAgreesWithInterpreter grounds random histories of every
// kernel twice, with the compiled templates and with the formula
// interpreter, and checks that the two emit the same clauses, in the same
// order, over the same variables: instance by instance, the template is
// the interpreter. Each history runs as SATURATE runs it (lazy, over a
// saturator whose facts feed back, operations forgotten at random once
// returned) and as SYMBOLIC runs it (eager, with EmitOpen after every
// return). The histories have pending operations, injected faults and
// repeated values, so that instances are pruned, settled and violated.
func TestCompiledAgreesWithInterpreter(t *testing.T) {
	t.Parallel()
	compiled := 0
	for _, obj := range h.Objects {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range k.Axioms() {
			if p := prepare(a); p.tmpl != nil {
				compiled++
			}
		}
		for seed := int64(1); seed <= seeds(30); seed++ {
			cfg := seedConfig(obj, seed, 24, 1+int(seed%5))
			cfg.Capacity = 3
			acts := generate(t, cfg)
			for _, lazy := range []bool{true, false} {
				name := fmt.Sprintf("%v/seed%d/lazy=%v", obj, seed, lazy)
				compareRuns(t, name, k, acts, lazy, seed)
			}
		}
	}
	if compiled == 0 {
		t.Fatal("no axiom was compiled")
	}
}

func compareRuns(t *testing.T, name string, k *theory.Kernel, acts []h.Action, lazy bool, seed int64) {
	t.Helper()
	compareVariants(t, name, k, acts, lazy, seed, [2]string{"the interpreter", "the template"},
		func(e *Encoder, first bool) { e.test().interpret = first })
}

// compareVariants runs acts through two encoders of k that setup makes
// differ (first: the first of them), as compareRuns describes, and
// requires the same clauses in the same order over the same variables;
// after each action it also checks the encoders' windows (CheckWindow).
// forgetEvery is how rarely compareVariants forgets an operation: one
// action in forgetEvery on average.
var forgetEvery = 4

func compareVariants(t *testing.T, name string, k *theory.Kernel, acts []h.Action, lazy bool, seed int64,
	names [2]string, setup func(e *Encoder, first bool)) {
	t.Helper()
	mk := func(first bool) *run {
		sink := &recSink{}
		if lazy {
			sink.s = saturate.New()
			sink.s.Observe()
		}
		var cfg Config
		if lazy {
			cfg.Lazy = sink
		}
		e := New(k, sink, cfg)
		sink.enc = e
		setup(e, first)
		e.Begin()
		return &run{e: e, sink: sink}
	}
	runs := [2]*run{mk(true), mk(false)}
	rng := rand.New(rand.NewSource(seed))
	serial, next := map[string]int{}, 1
	var returned []int
	check := func(i int) bool {
		a, b := runs[0].sink, runs[1].sink
		if len(a.clauses) != len(b.clauses) || a.nvars != b.nvars || runs[0].dead != runs[1].dead {
			t.Errorf("%s: after action %d: %s %d clauses, %d vars, conflict %v; %s %d clauses, %d vars, conflict %v",
				name, i, names[0], len(a.clauses), a.nvars, runs[0].dead, names[1], len(b.clauses), b.nvars, runs[1].dead)
			return false
		}
		for j := range a.clauses {
			if !slices.Equal(a.clauses[j], b.clauses[j]) {
				t.Errorf("%s: after action %d: clause %d is %v by %s, %v by %s", name, i, j, a.clauses[j], names[0], b.clauses[j], names[1])
				return false
			}
			// Explanations name each clause's instance (Origin).
			if a.origins[j] != b.origins[j] {
				t.Errorf("%s: after action %d: clause %d %v comes from %q by %s, %q by %s", name, i, j, a.clauses[j], a.origins[j], names[0], b.origins[j], names[1])
				return false
			}
		}
		for _, r := range runs {
			if err := r.e.CheckWindow(); err != nil {
				t.Errorf("%s: after action %d: %v", name, i, err)
				return false
			}
			if err := checkQuickRuns(r.e); err != nil {
				t.Errorf("%s: after action %d: %v", name, i, err)
				return false
			}
			// pendingForSame (witnessesX) is pendingFor with its memo's
			// same flag, for methods kept in the memo and beyond.
			for m := h.Method(0); m <= memoMethods; m++ {
				l, same := r.e.ptn.pendingForSame(m)
				want := r.e.ptn.pendingFor(m)
				wantSame := m < memoMethods && r.e.ptn.pendFor[m].same
				if !slices.Equal(l, want) || same != wantSame {
					t.Errorf("%s: after action %d: pendingForSame(%d) = %v, %v; pendingFor %v, same %v", name, i, m, l, same, want, wantSame)
					return false
				}
			}
		}
		return true
	}
	for i, a := range acts {
		var after func(*run)
		if !lazy && a.Kind == h.Return {
			after = func(r *run) { r.e.EmitOpen(r.e.sink.NewVar().Pos()) }
		}
		if sr := feed(runs[:], a, serial, &next, after); a.Kind == h.Return {
			returned = append(returned, sr)
			delete(serial, a.ID)
		}
		if !check(i) || runs[0].dead {
			return
		}
		// Forget a random returned operation now and then, as -r does.
		if lazy && len(returned) > 0 && rng.Intn(forgetEvery) == 0 {
			j := rng.Intn(len(returned))
			gone := []int{returned[j]}
			returned = slices.Delete(returned, j, j+1)
			for _, r := range runs {
				if err := r.sink.s.ForgetVars(r.e.Remove(gone)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestWatchedSameFixpoint runs SATURATE's grounding of random histories of
// every kernel twice, with watched ∀∃ instances and with their clauses
// and Tseitin helpers emitted at once, over saturators whose facts feed
// back, forgetting returned operations at random. After every action the
// two must agree on conflict and on the value of every b, used, match and
// ret variable: unit propagation reaches the same fixpoint.
func TestWatchedSameFixpoint(t *testing.T) {
	t.Parallel()
	materialised := 0
	for _, obj := range h.Objects {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= seeds(40); seed++ {
			cfg := seedConfig(obj, seed, 30, 1+int(seed%6))
			cfg.Capacity = 3
			acts := generate(t, cfg)
			materialised += compareFixpoints(t, fmt.Sprintf("%v/seed%d", obj, seed), k, acts, seed)
		}
	}
	if materialised == 0 {
		t.Fatal("no watched instance was materialised: the comparison tests nothing")
	}
}

// lazyRun is SATURATE's encoder with cfg over an observed saturator that
// records every clause, begun: Lazy is set here.
func lazyRun(k *theory.Kernel, cfg Config) *run {
	sink := &recSink{s: saturate.New()}
	sink.s.Observe()
	cfg.Lazy = sink
	e := New(k, sink, cfg)
	e.Begin()
	return &run{e: e, sink: sink}
}

// compareFixpoints returns how many watched instances were materialised.
func compareFixpoints(t *testing.T, name string, k *theory.Kernel, acts []h.Action, seed int64) int {
	t.Helper()
	mk := func(watch bool) *run {
		sink := &recSink{s: saturate.New()}
		sink.s.Observe()
		e := New(k, sink, Config{Lazy: sink, Watch: watch})
		e.Names = true
		e.Begin()
		return &run{e: e, sink: sink}
	}
	runs := [2]*run{mk(false), mk(true)}
	if !runs[1].e.watches().on {
		return 0 // not a sequential kernel: no lazy grounding
	}
	values := func(r *run) map[string]int8 {
		out := map[string]int8{}
		for v := z.Var(1); int(v) <= r.sink.nvars; v++ {
			n := r.e.VarName(v)
			if n == "" || n == "aux" || len(n) > 7 && n[len(n)-7:] == " ladder" {
				continue
			}
			if int(v) < len(r.e.reg.meaning) && r.e.reg.meaning[v].kind == vNone {
				continue // forgotten
			}
			out[n] = r.e.val(v.Pos())
		}
		return out
	}
	rng := rand.New(rand.NewSource(seed))
	serial, next := map[string]int{}, 1
	var returned []int
	for i, a := range acts {
		if sr := feed(runs[:], a, serial, &next, nil); a.Kind == h.Return {
			returned = append(returned, sr)
		}
		if runs[0].dead != runs[1].dead {
			t.Fatalf("%s: after action %d: conflict %v with clauses, %v watched", name, i, runs[0].dead, runs[1].dead)
		}
		if runs[0].dead {
			return runs[1].e.watches().materialised
		}
		want, got := values(runs[0]), values(runs[1])
		for n, v := range want {
			if got[n] != v {
				t.Fatalf("%s: after action %d: %s is %d with clauses, %d watched", name, i, n, v, got[n])
			}
		}
		for n, v := range got {
			if _, ok := want[n]; !ok && v != 0 {
				t.Fatalf("%s: after action %d: %s is %d watched, and has no variable with clauses", name, i, n, v)
			}
		}
		if len(returned) > 0 && rng.Intn(3) == 0 {
			j := rng.Intn(len(returned))
			gone := []int{returned[j]}
			returned = slices.Delete(returned, j, j+1)
			for _, r := range runs {
				if err := r.sink.s.ForgetVars(r.e.Remove(gone)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return runs[1].e.watches().materialised
}

// feed gives the action a to each run: a call gets the serial next (and
// next moves on), noted in serial by the action's id; both get the log's
// sequence number shifted past the encoder's own first actions. after,
// when not nil, runs on each run before its step. feed returns a's
// serial.
func feed(runs []*run, a h.Action, serial map[string]int, next *int, after func(*run)) int {
	seq := a.Seq + 2
	if a.Kind == h.Call {
		serial[a.ID] = *next
		*next++
	}
	s := serial[a.ID]
	for _, r := range runs {
		switch a.Kind {
		case h.Call:
			r.e.Call(Op{Serial: s, Label: a.Label, Call: seq})
		case h.Return:
			r.e.Return(s, a.Label.Ret, seq)
		}
		if after != nil {
			after(r)
		}
		r.step()
	}
	return s
}

// feedForgetting feeds acts to r in turn (feed) until r is dead. After
// each action r survives it calls each, when not nil, with the action's
// index; then, when every > 0 and an operation returned, it forgets one
// of the returned operations at random one action in every on average
// (rng.Intn(every) == 0, then rng.Intn for which), as -r does, and calls
// forgot, when not nil.
func feedForgetting(t *testing.T, r *run, acts []h.Action, rng *rand.Rand, every int, each func(i int), forgot func()) {
	t.Helper()
	serial, next := map[string]int{}, 1
	var returned []int
	for i, a := range acts {
		if s := feed([]*run{r}, a, serial, &next, nil); a.Kind == h.Return {
			returned = append(returned, s)
			delete(serial, a.ID)
		}
		if r.dead {
			return
		}
		if each != nil {
			each(i)
		}
		if every > 0 && len(returned) > 0 && rng.Intn(every) == 0 {
			j := rng.Intn(len(returned))
			gone := []int{returned[j]}
			returned = slices.Delete(returned, j, j+1)
			if err := r.sink.s.ForgetVars(r.e.Remove(gone)); err != nil {
				t.Fatal(err)
			}
			if forgot != nil {
				forgot()
			}
		}
	}
}

// TestKnownMatchBAgrees checks knownWit's path for a witness match(x,y) ∧
// b(u,w) (template.witMB) against the atom-by-atom one (knownWit's loop over knownAtom): the
// same value and, unless false, the same literals and values left for
// cfold, on random tuples of the window of random histories of the
// kernels whose witnesses have that shape, with a saturator assigning
// variables and operations forgotten at random.
func TestKnownMatchBAgrees(t *testing.T) {
	t.Parallel()
	checked := 0
	for _, obj := range []h.Object{h.Queue, h.Stack, h.PQueue} {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= seeds(20); seed++ {
			cfg := seedConfig(obj, seed, 30, 1+int(seed%6))
			acts := generate(t, cfg)
			r := lazyRun(k, Config{})
			e := r.e
			rng := rand.New(rand.NewSource(seed))
			feedForgetting(t, r, acts, rng, 4, func(int) {
				win := e.Ops()
				for _, ax := range e.ax {
					tm := ax.tmpl
					if tm == nil || !tm.witMB || len(win) == 0 {
						continue
					}
					if cap(e.scr.env) < ax.Vars() {
						e.scr.env = make([]*Op, ax.Vars())
					}
					e.scr.env = e.scr.env[:ax.Vars()]
					for try := 0; try < 20; try++ {
						for i := range e.scr.env {
							e.scr.env[i] = win[rng.Intn(len(win))]
						}
						got := e.gr.knownWit(tm)
						gl, gv := e.scr.inst.witLits, e.scr.inst.witVals
						// The template is the encoder's own here (no other
						// test runs in parallel with this one).
						tm.witMB = false
						want := e.gr.knownWit(tm)
						tm.witMB = true
						wl, wv := e.scr.inst.witLits, e.scr.inst.witVals
						if got != want || got != vFalse && (gl != wl || gv != wv) {
							t.Fatalf("%v seed %d %s: witMB %v %v %v, knownAtom %v %v %v",
								obj, seed, ax.Name, got, gl[:2], gv[:2], want, wl[:2], wv[:2])
						}
						checked++
					}
				}
			}, nil)
		}
	}
	if checked == 0 {
		t.Fatal("no witness match ∧ b was checked")
	}
}

// TestQuickHoldsAgrees grounds random histories of the kernels whose
// witnesses quickHolds reads (match ∧ b, the match atom the witness's
// source) as SATURATE does, with crec's quickHolds and witnessesX's
// rowExcluded and without them, and requires the same clauses in the
// same order over the same variables: a candidate either passes over
// must be one whose binding, or witness, grounds nothing. The histories
// are long and concurrent enough that closed instances find true
// witnesses and excluded ones, which the test checks it met.
func TestQuickHoldsAgrees(t *testing.T) {
	// It sets forgetEvery (read by compareVariants), so it is not parallel.
	defer func(n int) { forgetEvery = n }(forgetEvery)
	hits, excl, jumps := 0, 0, 0
	for _, obj := range []h.Object{h.Queue, h.Stack, h.PQueue} {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		// Seeds 1-40 are short windows, 41-52 long ones: both scaled.
		short, long := seeds(40), seeds(12)
		for seed := int64(1); seed <= 52; seed++ {
			if seed > short && seed <= 40 || seed > 40+long {
				continue
			}
			cfg := seedConfig(obj, seed, 100, 2+int(seed%7))
			if seed > 40 {
				// Long windows (operations are forgotten at random,
				// more slowly than they return) with operations left
				// pending throughout, as stalled ones: the method lists
				// are long enough for quickTail's runs (quickMin).
				cfg.Ops, cfg.Concurrency, cfg.Pending, cfg.Mutate, cfg.Values = 160, 8, int(seed%2), 0, 0
			}
			acts := generate(t, cfg)
			var quick *Encoder
			forgetEvery = 4
			if seed > 40 {
				forgetEvery = 1 << 30 // windows stay long
			}
			compareVariants(t, fmt.Sprintf("%v/seed%d", obj, seed), k, acts, true, seed,
				[2]string{"without quickHolds", "with quickHolds"},
				func(e *Encoder, first bool) {
					e.setNoQuick(first)
					if !first {
						quick = e
					}
				})
			hits += quick.scr.quickHits
			excl += quick.scr.exclHits
			jumps += quick.scr.quickJumps
		}
	}
	if hits == 0 || excl == 0 || jumps == 0 {
		t.Fatalf("quickHolds passed over %d candidates, rowExcluded over %d, quickTail over %d runs: the comparison tests little", hits, excl, jumps)
	}
	t.Logf("quickHolds passed over %d candidates, rowExcluded over %d witnesses, quickTail over %d runs", hits, excl, jumps)
}

// TestQuickRunsAgree compares crec with quickTail's runs (quickRun) and
// without them, quickHolds on in both, on long windows of random queue
// and stack histories with operations left pending throughout, as
// stalled ones, forgetting nothing (forgetting removes before their adds
// can leave two identical encoders' clause orders apart, a map order
// this test is not about); checkQuickRuns checks every run's premise
// after each action. TestQuickRunsDropped forgets removes before their
// adds.
func TestQuickRunsAgree(t *testing.T) {
	jumps := 0
	for _, obj := range []h.Object{h.Queue, h.Stack} {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= seeds(12); seed++ {
			cfg := gen.Config{Object: obj, Ops: 160, Concurrency: 4 + int(seed%5), Pending: int(seed % 3), Seed: seed}
			forgetEvery = 1 << 30
			var runs *Encoder
			compareVariants(t, fmt.Sprintf("%v/seed%d", obj, seed), k, generate(t, cfg), true, seed,
				[2]string{"without runs", "with runs"},
				func(e *Encoder, first bool) {
					e.test().noRuns = first
					if !first {
						runs = e
					}
				})
			forgetEvery = 4
			jumps += runs.scr.quickJumps
		}
	}
	if jumps == 0 {
		t.Fatal("quickTail passed over no run: the comparison tests nothing")
	}
	t.Logf("quickTail passed over %d runs", jumps)
}

// TestQuickRunsDropped forgets removes, oldest first, while the adds
// their true match variables name live on: every run must then be
// dropped (quickEpoch), which checkQuickRuns checks after each action.
// (Two encoders are not compared here: forgetting a y before its x
// leaves their clause orders apart even with the same settings.)
func TestQuickRunsDropped(t *testing.T) {
	t.Parallel()
	jumps, epochs := 0, 0
	for _, obj := range []h.Object{h.Queue, h.Stack} {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		// Not scaled: it is cheap, and only seeds 5 and 11 forget
		// rarely enough (1 in 2+seed%6) for runs to form.
		for seed := int64(1); seed <= 12; seed++ {
			acts := generate(t, gen.Config{Object: obj, Ops: 160, Concurrency: 8, Pending: int(seed % 3), Seed: seed})
			r := lazyRun(k, Config{})
			e, sink := r.e, r.sink
			rng := rand.New(rand.NewSource(seed))
			serial, next := map[string]int{}, 1
			var returned []int
			for i, a := range acts {
				if sr := feed([]*run{r}, a, serial, &next, nil); a.Kind == h.Return {
					returned = append(returned, sr)
					delete(serial, a.ID)
				}
				if r.dead {
					break
				}
				if err := checkQuickRuns(e); err != nil {
					t.Fatalf("%v/seed%d: after action %d: %v", obj, seed, i, err)
				}
				if rng.Intn(2+int(seed%6)) != 0 {
					continue
				}
				for j, s := range returned {
					if e.tab.op(s).Label.Method == h.Rem {
						returned = slices.Delete(returned, j, j+1)
						if err := sink.s.ForgetVars(e.Remove([]int{s})); err != nil {
							t.Fatal(err)
						}
						break
					}
				}
			}
			jumps += e.scr.quickJumps
			epochs += int(e.scr.quickEpoch)
		}
	}
	if jumps == 0 || epochs == 0 {
		t.Fatalf("quickTail passed over %d runs, all dropped %d times: the test checks little", jumps, epochs)
	}
	t.Logf("quickTail passed over %d runs, all dropped %d times", jumps, epochs)
}

// TestQuickHoldsExact checks quickHolds's claim directly: on random
// tuples of the windows of random histories (with a saturator assigning
// variables and operations forgotten at random), whenever it says that
// binding a candidate at the last level of a closed instance grounds
// nothing, cbind binds it and must indeed make no variable, emit no
// clause and watch no instance. Likewise rowExcluded's: a partner of x
// other than its true match's, without a match variable, is a witness
// that knownWit finds false.
func TestQuickHoldsExact(t *testing.T) {
	t.Parallel()
	hits, excl := 0, 0
	for _, obj := range []h.Object{h.Queue, h.Stack, h.PQueue} {
		k, err := theory.KernelOf(obj, "")
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= seeds(20); seed++ {
			cfg := seedConfig(obj, seed, 60, 2+int(seed%6))
			acts := generate(t, cfg)
			r := lazyRun(k, Config{Watch: true})
			e := r.e
			rng := rand.New(rand.NewSource(seed))
			feedForgetting(t, r, acts, rng, 4, func(int) {
				var done []*Op
				for _, o := range e.Ops() {
					if !o.pending() {
						done = append(done, o)
					}
				}
				win := e.Ops()
				for _, a := range e.ax {
					if g := a.witGen; a.tmpl != nil && g != nil && g.asX && a.tmpl.witSrc >= 0 && len(win) > 0 {
						env := e.scr.env[:0]
						for range a.Vars() {
							env = append(env, win[rng.Intn(len(win))])
						}
						e.scr.env = env
						x, p := env[g.from], env[len(a.Forall)]
						if ex := e.gr.rowExcluded(a.tmpl, x); ex >= 0 && p.Serial != ex && !e.gr.hasMatchVar(x, p) {
							excl++
							if got := e.gr.knownWit(a.tmpl); got != vFalse {
								t.Fatalf("%v seed %d %s: rowExcluded(%d) = %d, and knownWit finds the witness %d %v",
									obj, seed, a.Name, x.Serial, ex, p.Serial, got)
							}
						}
					}
					if a.tmpl == nil || !a.tmpl.quick || len(done) == 0 || !e.ptn.virt {
						continue
					}
					for f, lvs := range a.tmpl.fixedLevels {
						last := len(lvs) - 1
						lv := &lvs[last]
						if !lv.quick {
							continue
						}
						if cap(e.scr.env) < a.Vars() {
							e.scr.env = make([]*Op, a.Vars())
						}
						e.scr.env = e.scr.env[:a.Vars()]
						for try := 0; try < 10; try++ {
							st := &e.scr.inst
							must := done[rng.Intn(len(done))]
							st.a, st.must, st.closed, st.extra, st.win, st.nf, st.fixed = a, must, true, nil, e.Ops(), len(a.Forall), f
							st.clv, st.na, st.nr, st.one[0] = lvs, 0, 0, must
							for l := 0; l < last; l++ {
								e.scr.env[lvs[l].v] = done[rng.Intn(len(done))]
							}
							e.scr.env[lvs[0].v] = must
							o := done[rng.Intn(len(done))]
							if o.trueAsX == noLit || !e.enum.quickHolds(st, lv, o) {
								continue
							}
							hits++
							vars, clauses := e.Stats()
							watched := e.watches().watched
							e.enum.cbind(st, lv, last, o, false, false)
							v2, c2 := e.Stats()
							if v2 != vars || c2 != clauses || e.watches().watched != watched {
								t.Fatalf("%v seed %d %s fixed %d: quickHolds passed over %d, whose binding made %d variables, %d clauses, %d watched instances",
									obj, seed, a.Name, f, o.Serial, v2-vars, c2-clauses, e.watches().watched-watched)
							}
						}
					}
				}
				r.step()
			}, nil)
		}
	}
	if hits == 0 || excl == 0 {
		t.Fatalf("quickHolds passed over %d candidates, rowExcluded over %d: the test checks little", hits, excl)
	}
	t.Logf("quickHolds passed over %d candidates, rowExcluded over %d", hits, excl)
}

// checkQuickRuns checks the premise of every quickRun memo quickTail may
// still read (quickEpoch current, holder's own): each live operation of
// the holder's method list within the run is settled as quickHolds needs
// it (returned, its true match variable still naming it and a returned
// y), and the run's times bound its own and y's.
func checkQuickRuns(e *Encoder) error {
	for _, l := range e.tab.byMeth {
		for i, o := range l {
			if o.qEpoch != e.scr.quickEpoch || o.qrun.start != o.Serial+1 {
				continue
			}
			r := &o.qrun
			for _, p := range l[i:] {
				if p.Serial > r.end {
					break
				}
				lit := p.trueAsX
				if p.pending() || lit == noLit || e.val(lit) != 1 {
					return fmt.Errorf("run of %d to %d: %d is pending or has no true match variable", o.Serial, r.end, p.Serial)
				}
				y := e.reg.varOps[lit.Var()][1]
				if y == nil || y.pending() {
					return fmt.Errorf("run of %d to %d: %d's match names no returned y", o.Serial, r.end, p.Serial)
				}
				if m, ok := e.reg.vars.get(varPair{vMatch, int32(p.Serial), int32(y.Serial)}.key()); !ok || m != lit {
					return fmt.Errorf("run of %d to %d: %d's true match variable no longer names (%d,%d)", o.Serial, r.end, p.Serial, p.Serial, y.Serial)
				}
				if y.Return > r.yRet || y.Call < r.yCall || p.Return > r.ret || p.Call < r.call {
					return fmt.Errorf("run of %d to %d: the run's times do not bound %d's", o.Serial, r.end, p.Serial)
				}
			}
		}
	}
	return nil
}
