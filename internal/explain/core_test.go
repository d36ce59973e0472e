package explain

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/enumerate"
	"github.com/satmon/satmon/internal/testhist"

	"github.com/anishathalye/porcupine"
	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/testutil"
	"github.com/satmon/satmon/theory"
)

// explainFile runs CheckLogExplain on a file.
func explainFile(t *testing.T, path string, opt engine.Options) (engine.Result, *Explanation) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, x, err := CheckLogExplain(f, logfmt.Options{Name: path}, opt, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return res, x
}

// enumBudget bounds each ENUMERATE -c check (in polls of 64 candidates):
// relaxed operations are pending, and each multiplies the completions.
// Past it the check is SYMBOLIC's alone, and the test says how often.
const enumBudget = 2000

// porcupineBudget is Porcupine's time for one core check past ENUMERATE's
// budget. On the checks of 20 Jepsen etcd histories (measured with a 1 s
// budget), Porcupine answered 42, all where SYMBOLIC's check finds the
// sub-history linearizable, in at most 0.54 s (most in a few
// milliseconds): it found a linearization. It answered none of the 29
// where SYMBOLIC finds it not linearizable, with 11-23 relaxed writes and
// cas pending (their orders must be tried exhaustively; the one given
// 30 s got no answer either): there it can only catch a false violation,
// by finding a linearization, which it would do as fast as above. So the
// fast tier asks it only where it can answer (SYMBOLIC says linearizable,
// or at most porcupineMaxPending operations are pending), for 250 ms
// each; SATMON_PORCUPINE_BUDGET (a Go duration; `make test-long` sets 1s)
// asks it on every check, for that long, to look for a linearization
// SYMBOLIC missed.
var porcupineBudget, porcupineEvery = func() (time.Duration, bool) {
	if d, err := time.ParseDuration(os.Getenv("SATMON_PORCUPINE_BUDGET")); err == nil && d > 0 {
		return d, true
	}
	return 250 * time.Millisecond, false
}()

// porcupineMaxPending is the most pending operations in a sub-history
// SYMBOLIC finds not linearizable for which the fast tier asks Porcupine.
const porcupineMaxPending = 8

// coreCounts counts how a test's core checks were decided. Each test has
// its own, so that tests run in parallel.
type coreCounts struct{ enumChecked, enumSkipped, porcupine, porcupineUnknown int }

// verifyCore checks a core with ENUMERATE -c, independently of the SAT
// checks FindCore shrank with: the core's sub-history is not
// linearizable, and relaxing any one more operation makes it linearizable.
func verifyCore(t *testing.T, name string, x *Explanation, st *coreCounts) {
	verifyCoreBudget(t, name, x, enumBudget, st)
}

// verifyCoreBudget is verifyCore with ENUMERATE -c's budget per check.
func verifyCoreBudget(t *testing.T, name string, x *Explanation, enumBudget int, st *coreCounts) {
	t.Helper()
	if st == nil {
		st = new(coreCounts)
	}
	if len(x.Core) == 0 {
		t.Errorf("%s: no core (%s)", name, x.Note)
		return
	}
	if !x.CoreExact {
		t.Errorf("%s: core of %d operations not shown exactly 1-minimal", name, len(x.Core))
	}
	k, err := theory.KernelOf(x.History.Object, x.History.Param)
	if err != nil {
		t.Fatal(err)
	}
	member := func(set []int) bool {
		keep := make([]bool, len(x.History.Ops))
		for _, i := range set {
			keep[i] = true
		}
		sub, _ := subHistory(x.History, keep)
		budget := enumBudget
		ok, err := enumerate.Member(k, sub, func() bool { budget--; return budget < 0 })
		if err == enumerate.ErrStopped {
			// Too many pending operations for ENUMERATE -c: Porcupine
			// decides where it models the object (an exact checker
			// independent of the theory), and the from-scratch SAT
			// check FindCore used must agree with it.
			st.enumSkipped++
			bad, err := violatesExact(k, sub, 0)
			if err != nil {
				t.Fatal(err)
			}
			if testhist.PorcupineSupports(sub) && (porcupineEvery || !bad || pendingOps(sub) <= porcupineMaxPending) {
				// Pending operations can make its search long too: it
				// gets a bounded time, and an unknown is counted.
				model, ops := testhist.ToPorcupine(sub)
				switch porcupine.CheckOperationsTimeout(model, ops, porcupineBudget) {
				case porcupine.Unknown:
					st.porcupineUnknown++
				case porcupine.Ok:
					st.porcupine++
					if bad {
						t.Fatalf("%s: porcupine says linearizable, SYMBOLIC's check not\n%v", name, sub)
					}
				case porcupine.Illegal:
					st.porcupine++
					if !bad {
						t.Fatalf("%s: porcupine says not linearizable, SYMBOLIC's check linearizable\n%v", name, sub)
					}
				}
			}
			return !bad
		}
		st.enumChecked++
		return ok
	}
	if member(x.Core) {
		t.Errorf("%s: core %v is linearizable for enumerate -c", name, x.Core)
	}
	for j := range x.Core {
		less := slices.Delete(slices.Clone(x.Core), j, j+1)
		if !member(less) {
			t.Errorf("%s: core %v less [%s] is still not linearizable: not 1-minimal", name, x.Core, x.History.Ops[x.Core[j]].ID)
		}
	}
}

// pendingOps counts hist's pending operations.
func pendingOps(hist *h.History) int {
	n := 0
	for i := range hist.Ops {
		if hist.Ops[i].Pending() || hist.Ops[i].Label.Pending {
			n++
		}
	}
	return n
}

func median(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// Every violation of testdata/ and of the paper's histories gets a core,
// verified with ENUMERATE -c.
func TestCores(t *testing.T) {
	t.Parallel()
	var st coreCounts
	var sizes []int
	for _, c := range testutil.Cases(t) {
		if c.Expect != "violation" {
			continue
		}
		res, x := explainFile(t, c.Path, engine.Options{Algorithm: engine.Saturate})
		if res.Verdict != engine.Violation {
			res, x = explainFile(t, c.Path, engine.Options{Algorithm: engine.Symbolic})
		}
		if res.Verdict != engine.Violation {
			t.Errorf("%s: no violation found", c.Path)
			continue
		}
		if len(res.Core) != len(x.Core) {
			t.Errorf("%s: Result.Core has %d operations, the explanation %d", c.Path, len(res.Core), len(x.Core))
		}
		t.Logf("%s: core %d of %d", c.Path, len(x.Core), len(x.History.Ops))
		verifyCore(t, c.Path, x, &st)
		sizes = append(sizes, len(x.Core))
	}
	t.Logf("checks by enumerate -c: %d; past its budget, by SYMBOLIC only: %d", st.enumChecked, st.enumSkipped)
	t.Logf("testdata: %d violations, core size median %d, max %d", len(sizes), median(sizes), slices.Max(sizes))

	t.Run("paper-histories", func(t *testing.T) {
		var st coreCounts
		dir := testutil.PaperHistories(t)
		var sizes []int
		var viols []testutil.Verdict
		for _, v := range testutil.PaperVerdicts(t, dir) {
			if v.Verdict == "violation" {
				viols = append(viols, v)
			}
		}
		// Every object's violations in the long tier; a few of each in
		// the fast one (73 in all: 20 s).
		for _, v := range testutil.Sample(viols, scale(len(viols)), func(v testutil.Verdict) string { return filepath.Dir(v.Path) }) {
			path := filepath.Join(dir, v.Path)
			res, x := explainFile(t, path, engine.Options{Algorithm: engine.Symbolic})
			if res.Verdict != engine.Violation {
				t.Errorf("%s: no violation found", path)
				continue
			}
			verifyCore(t, path, x, &st)
			sizes = append(sizes, len(x.Core))
		}
		t.Logf("checks by enumerate -c: %d; past its budget, by SYMBOLIC only: %d", st.enumChecked, st.enumSkipped)
		t.Logf("paper-histories: %d violations, core size median %d, max %d", len(sizes), median(sizes), slices.Max(sizes))
	})
}

// longViolation is a long linearizable history of obj (gen, drained),
// followed by a short sequential tail that is a violation, as a native
// log. The tail starts with an operation that leaves the object in a
// known state (the drained string register's last appends may overlap).
func longViolation(t *testing.T, obj h.Object, ops int, tail []h.Op) string {
	t.Helper()
	cfg := gen.Config{Object: obj, Ops: ops, Concurrency: 4, Seed: 7, Drain: true}
	if obj == h.Register {
		cfg.Values = 5 // the others' values repeat by nature, or are unique
	}
	hist, err := gen.History(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pos := 2 * len(hist.Ops)
	for _, o := range tail {
		o.Call, o.Return = pos, pos+1
		pos += 2
		hist.Ops = append(hist.Ops, o)
	}
	var b strings.Builder
	w, err := logfmt.NewWriter(&b, hist.Object, hist.Param)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range engine.Actions(hist) {
		if err := w.Write(a); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	return b.String()
}

// A violation after thousands of operations gets a core: the history is
// cut at a quiescent point in a known state (findCoreCut), and the core,
// among the operations after it, is verified with ENUMERATE -c from that
// state.
func TestCoreLongLog(t *testing.T) {
	t.Parallel()
	op := func(id string, m h.Method, arg, ret h.Value) h.Op {
		return h.Op{ID: id, Label: h.Label{Method: m, Arg: arg, Ret: ret}}
	}
	cas := func(id string, old, new, ret h.Value) h.Op {
		o := h.Op{ID: id, Label: h.CASLabel(old, new)}
		o.Label.Ret = ret
		return o
	}
	// The two registers whose writes -r never forgets are checked in
	// time quadratic in the log: shorter logs, still past coreMaxOps.
	for _, c := range []struct {
		obj  h.Object
		ops  int
		tail []h.Op
	}{
		{h.Queue, 3000, []h.Op{op("t1", h.Add, "u1", h.Void), op("t2", h.Add, "u2", h.Void), op("t3", h.Rem, h.Void, "u2")}},
		{h.Register, 3000, []h.Op{op("t1", h.Write, "u1", h.Void), op("t2", h.Read, h.Void, "u2")}},
		{h.CASRegister, 560, []h.Op{op("t1", h.Write, "7", h.Void), cas("t2", "7", "8", h.OK), cas("t3", "7", "9", h.OK)}},
		{h.StringRegister, 560, []h.Op{op("t0", h.Write, "w", h.Void), op("t1", h.Append, "u", h.Void), op("t2", h.Read, h.Void, "u")}},
	} {
		t.Run(c.obj.String(), func(t *testing.T) {
			t.Parallel()
			text := longViolation(t, c.obj, c.ops, c.tail)
			res, x, err := CheckLogExplain(strings.NewReader(text), logfmt.Options{Name: "long.log"}, engine.DefaultOptions(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != engine.Violation || res.Operations < c.ops {
				t.Fatalf("verdict %s after %d operations, want a violation after %d", res.Verdict, res.Operations, c.ops)
			}
			if x.Cut == nil || x.Cut.Before < c.ops*9/10 || len(x.History.Ops) > coreMaxOps {
				t.Fatalf("cut %+v, %d operations after it (%s)", x.Cut, len(x.History.Ops), x.Note)
			}
			if len(res.Core) != len(x.Core) {
				t.Fatalf("Result.Core has %d operations, the explanation %d", len(res.Core), len(x.Core))
			}
			verifyCore(t, "long "+c.obj.String(), x, nil)
			t.Logf("cut after line %d (%d operations before, state %q): core of %d among %d", x.Cut.Line, x.Cut.Before, x.Cut.State, len(x.Core), len(x.History.Ops))
		})
	}
}

// objectViolations checks each object of a log of many objects (any
// format) alone, as CheckMulti does, keeping its history up to its
// violation; for each object in violation it returns the explanation with
// its core (Explanation.findCore). SATURATE checks first; an object it
// finds no violation in is checked again by SYMBOLIC.
func objectViolations(t *testing.T, name string, data []byte) map[string]*Explanation {
	t.Helper()
	src, err := logfmt.NewSource(bytes.NewReader(data), logfmt.Auto, logfmt.Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	type object struct {
		decl *logfmt.ObjectDecl
		acts []h.Action
	}
	objs := map[string]*object{}
	var order []string
	for {
		ev, err := src.NextEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		o := objs[ev.Object.Name]
		if o == nil {
			o = &object{decl: ev.Object}
			objs[ev.Object.Name] = o
			order = append(order, ev.Object.Name)
		}
		a := ev.Action
		a.Seq = len(o.acts) // the object's own positions
		o.acts = append(o.acts, a)
	}
	out := map[string]*Explanation{}
	for _, n := range order {
		o := objs[n]
		for _, opt := range []engine.Options{{Algorithm: engine.Saturate}, {Algorithm: engine.Symbolic, Timeout: time.Minute}} {
			m, err := engine.New(o.decl.Kind, o.decl.Param, opt)
			if err != nil {
				t.Fatal(err)
			}
			b := h.NewBuilder(o.decl.Kind, o.decl.Param)
			var retLines []int
			viol := false
			for _, a := range o.acts {
				i, err := b.Add(a)
				if err != nil {
					t.Fatal(err)
				}
				for len(retLines) <= i {
					retLines = append(retLines, 0)
				}
				if a.Kind == h.Return {
					retLines[i] = a.Line
				}
				if viol, err = m.Step(a); err != nil {
					t.Fatal(err)
				}
				if viol {
					break
				}
			}
			if !viol {
				continue
			}
			x := &Explanation{History: &b.H, ReturnLines: retLines, Violation: OpIndex(&b.H, m.Result().ViolationOp)}
			x.FindCore(time.Minute)
			out[n] = x
			break
		}
	}
	return out
}

// Every violation of the Jepsen etcd and key-value histories of
// ../shared/data gets a core, verified with ENUMERATE -c as in TestCores.
func TestCoresRealHistories(t *testing.T) {
	t.Parallel()
	for _, set := range []string{"jepsen-etcd", "porcupine-kv"} {
		t.Run(set, func(t *testing.T) {
			t.Parallel()
			var sizes []int
			cut := 0
			var st coreCounts
			var viols []testhist.RealFile
			for _, f := range testhist.RealFiles(t, set) {
				if f.Verdict == "violation" {
					viols = append(viols, f)
				}
			}
			for _, f := range testutil.Sample(viols, scale(len(viols)), nil) {
				xs := objectViolations(t, f.Name, f.Data)
				if len(xs) == 0 {
					t.Errorf("%s: no object in violation", f.Name)
				}
				for obj, x := range xs {
					name := f.Name + " object " + obj
					// Their values repeat and many operations are pending
					// (Jepsen's :info): ENUMERATE -c evaluates the axioms
					// on each of very many candidates, so it gets a small
					// budget per check here; SYMBOLIC and Porcupine check
					// the rest (counted).
					verifyCoreBudget(t, name, x, 40, &st)
					sizes = append(sizes, len(x.Core))
					if x.Cut != nil {
						cut++
					}
					t.Logf("%s: core %d of %d operations", name, len(x.Core), len(x.History.Ops))
				}
			}
			if len(sizes) == 0 {
				t.Fatal("no violation")
			}
			t.Logf("checks by enumerate -c: %d; past its budget, by SYMBOLIC: %d, of them also by porcupine: %d (unknown in %v: %d)",
				st.enumChecked, st.enumSkipped, st.porcupine, porcupineBudget, st.porcupineUnknown)
			t.Logf("%s: %d violations (%d after a cut), core size median %d, max %d", set, len(sizes), cut, median(sizes), slices.Max(sizes))
		})
	}
}
