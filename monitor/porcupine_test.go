package monitor

import (
	"hash/maphash"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/oracle"
	"github.com/satmon/satmon/internal/seqmodel"
	"github.com/satmon/satmon/internal/testutil"
	"github.com/satmon/satmon/monitor/logfmt"
)

// Porcupine (github.com/anishathalye/porcupine) is a general
// linearizability checker: a depth-first search over linearizations with a
// cache of (linearized set, state) pairs. It serves twice here: as a
// second exact oracle, independent of the theory and of ENUMERATE, and as
// the yardstick for SATURATE -r's speed on the paper's long Michael–Scott
// queue logs. It is a test-only dependency.
//
// Its models are written for its search: values are interned to int32
// once, states are small immutable slices (a step copies, so that states
// on the search stack are never shared), and every model has a Hash so
// that the cache compares few states. The priority queue keeps its
// multiset sorted, so that equal states are equal slices. The set is
// partitioned per element (a set is the product of independent per-element
// booleans), so each partition's state is one bool.

// Interned special values. Real values are interned to 0, 1, 2, ...
const (
	pEmpty int32 = -1
	pVoid  int32 = -2
	pTrue  int32 = -3
	pFalse int32 = -4
	pNone  int32 = -5 // the register before its first write, when it has no initial value
	pOK    int32 = -6
	pFail  int32 = -7
)

// pOp is an operation as a Porcupine model sees it: its Input. The output
// travels in the input too (Output is unused) because a pending operation
// has none and may return anything.
type pOp struct {
	method  h.Method
	arg     int32
	old     int32 // cas(old, arg)
	prio    int64
	ret     int32
	pending bool
	// The string register's argument and return, as strings.
	str, retStr string
}

// pItem is one element of a collection state.
type pItem struct {
	val  int32
	prio int64
}

var pSeed = maphash.MakeSeed()

func hashItems(s []pItem) uint64 {
	var m maphash.Hash
	m.SetSeed(pSeed)
	var b [12]byte
	for _, it := range s {
		u := uint32(it.val)
		p := uint64(it.prio)
		b = [12]byte{byte(u), byte(u >> 8), byte(u >> 16), byte(u >> 24),
			byte(p), byte(p >> 8), byte(p >> 16), byte(p >> 24), byte(p >> 32), byte(p >> 40), byte(p >> 48), byte(p >> 56)}
		m.Write(b[:])
	}
	return m.Sum64()
}

// collectionModel is the queue, stack or priority queue. A removal that is
// pending may take any element the object would hand out, or find it
// empty; Porcupine places it anywhere after its call, last included, so
// leaving its result open is exactly "it may or may not have taken effect".
func collectionModel(obj h.Object) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return []pItem(nil) },
		Step: func(state, input, _ any) (bool, any) {
			s := state.([]pItem)
			o := input.(*pOp)
			switch o.method {
			case h.Add:
				if !o.pending && o.ret != pVoid {
					return false, nil
				}
				n := make([]pItem, len(s)+1)
				copy(n, s)
				n[len(s)] = pItem{o.arg, o.prio}
				if obj == h.PQueue {
					slices.SortFunc(n, cmpItem)
				}
				return true, n
			case h.Rem:
				if len(s) == 0 {
					return o.pending || o.ret == pEmpty, s
				}
				i := -1
				switch obj {
				case h.Queue:
					i = 0
				case h.Stack:
					i = len(s) - 1
				case h.PQueue:
					// Sorted by priority, then value: the top priority
					// is at the end; the removal takes an element of its
					// value among them, if any. (A pending removal could
					// take any of them: several successors, which this
					// deterministic model does not express, so
					// porcupineSupports leaves such histories out.)
					top := s[len(s)-1].prio
					for j := len(s) - 1; j >= 0 && s[j].prio == top; j-- {
						if s[j].val == o.ret {
							i = j
							break
						}
					}
				}
				if i < 0 || !o.pending && s[i].val != o.ret {
					return false, nil
				}
				return true, slices.Delete(slices.Clone(s), i, i+1)
			}
			return false, nil
		},
		Equal: func(a, b any) bool { return slices.Equal(a.([]pItem), b.([]pItem)) },
		Hash:  func(state any) uint64 { return hashItems(state.([]pItem)) },
	}
}

func cmpItem(a, b pItem) int {
	if a.prio != b.prio {
		if a.prio < b.prio {
			return -1
		}
		return 1
	}
	return int(a.val) - int(b.val)
}

// registerModel is the read/write register; state is the interned value.
func registerModel(initial int32) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return initial },
		Step: func(state, input, _ any) (bool, any) {
			v := state.(int32)
			o := input.(*pOp)
			switch o.method {
			case h.Write:
				return o.pending || o.ret == pVoid, o.arg
			case h.Read:
				return o.pending || v != pNone && o.ret == v, v
			}
			return false, nil
		},
		Hash: func(state any) uint64 { return uint64(uint32(state.(int32))) },
	}
}

// casRegisterModel is the compare-and-set register; state is the
// interned value, the interned nil while absent. A cas succeeds iff it
// finds its old value; a pending operation returns anything, but its
// effect, when it is placed, is the atomic one.
func casRegisterModel(initial int32) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return initial },
		Step: func(state, input, _ any) (bool, any) {
			v := state.(int32)
			o := input.(*pOp)
			switch o.method {
			case h.Write:
				return o.pending || o.ret == pVoid, o.arg
			case h.Read:
				return o.pending || o.ret == v, v
			case h.CAS:
				if v == o.old {
					return o.pending || o.ret == pOK, o.arg
				}
				return o.pending || o.ret == pFail, v
			}
			return false, nil
		},
		Hash: func(state any) uint64 { return uint64(uint32(state.(int32))) },
	}
}

// stringRegisterModel is the string register (a key of a key-value
// store); state is the string itself, "" when empty.
func stringRegisterModel() porcupine.Model {
	return porcupine.Model{
		Init: func() any { return "" },
		Step: func(state, input, _ any) (bool, any) {
			v := state.(string)
			o := input.(*pOp)
			switch o.method {
			case h.Write:
				return o.pending || o.ret == pVoid, o.str
			case h.Append:
				return o.pending || o.ret == pVoid, v + o.str
			case h.Read:
				return o.pending || o.retStr == v, v
			}
			return false, nil
		},
		Hash: func(state any) uint64 {
			var m maphash.Hash
			m.SetSeed(pSeed)
			m.WriteString(state.(string))
			return m.Sum64()
		},
	}
}

// setModel is the set, partitioned by element: state is whether the
// element is present.
func setModel() porcupine.Model {
	return porcupine.Model{
		Partition: func(ops []porcupine.Operation) [][]porcupine.Operation {
			by := map[int32][]porcupine.Operation{}
			var keys []int32
			for _, op := range ops {
				k := op.Input.(*pOp).arg
				if _, ok := by[k]; !ok {
					keys = append(keys, k)
				}
				by[k] = append(by[k], op)
			}
			out := make([][]porcupine.Operation, 0, len(keys))
			for _, k := range keys {
				out = append(out, by[k])
			}
			return out
		},
		Init: func() any { return false },
		Step: func(state, input, _ any) (bool, any) {
			in := state.(bool)
			o := input.(*pOp)
			if !o.pending && o.ret != pTrue && o.ret != pFalse {
				return false, nil
			}
			ok := func(want bool) bool { return o.pending || (o.ret == pTrue) == want }
			switch o.method {
			case h.Add:
				return ok(!in), true
			case h.Rem:
				return ok(in), false
			case h.Contains:
				return ok(in), in
			}
			return false, nil
		},
		Hash: func(state any) uint64 {
			if state.(bool) {
				return 1
			}
			return 0
		},
	}
}

// porcupineSupports reports whether toPorcupine models hist: the objects
// above, without pending priority-queue removals (their several successor
// states would need a nondeterministic model).
func porcupineSupports(hist *h.History) bool {
	switch hist.Object {
	case h.Queue, h.Stack, h.Register, h.Set, h.CASRegister, h.StringRegister:
		return true
	case h.PQueue:
		for i := range hist.Ops {
			if o := &hist.Ops[i]; o.Pending() && o.Label.Method == h.Rem {
				return false
			}
		}
		return true
	}
	return false
}

// toPorcupine converts hist to Porcupine's operations and model. Call and
// Return are the actions' positions, which are distinct, so Porcupine's
// closed intervals order operations exactly as real time does; a pending
// operation returns at +∞.
func toPorcupine(hist *h.History) (porcupine.Model, []porcupine.Operation) {
	ids := map[h.Value]int32{h.Empty: pEmpty, h.Void: pVoid}
	switch hist.Object {
	case h.Set:
		ids[h.True], ids[h.False] = pTrue, pFalse
	case h.CASRegister:
		ids[h.OK], ids[h.Fail] = pOK, pFail
	}
	intern := func(v h.Value) int32 {
		id, ok := ids[v]
		if !ok {
			id = int32(len(ids))
			ids[v] = id
		}
		return id
	}
	ops := make([]porcupine.Operation, len(hist.Ops))
	in := make([]pOp, len(hist.Ops))
	for i := range hist.Ops {
		o := &hist.Ops[i]
		l := o.Label
		in[i] = pOp{method: l.Method, arg: intern(l.Arg), prio: l.Prio, pending: o.Pending() || l.Pending,
			str: string(l.Arg)}
		if l.Method == h.CAS {
			in[i].old = intern(l.Old)
		}
		if !in[i].pending {
			in[i].ret = intern(l.Ret)
			in[i].retStr = string(l.Ret)
		}
		ret := int64(math.MaxInt64)
		if !o.Pending() {
			ret = int64(o.Return)
		}
		ops[i] = porcupine.Operation{Input: &in[i], Call: int64(o.Call), Return: ret}
	}
	var model porcupine.Model
	switch hist.Object {
	case h.Register:
		initial := pNone
		if hist.Param != "" {
			initial = intern(h.Value(hist.Param))
		}
		model = registerModel(initial)
	case h.CASRegister:
		initial := intern(h.Nil)
		if hist.Param != "" {
			initial = intern(h.Value(hist.Param))
		}
		model = casRegisterModel(initial)
	case h.StringRegister:
		model = stringRegisterModel()
	case h.Set:
		model = setModel()
	default:
		model = collectionModel(hist.Object)
	}
	return model, ops
}

func porcupineLinearizable(hist *h.History) bool {
	model, ops := toPorcupine(hist)
	return porcupine.CheckOperations(model, ops)
}

// Porcupine as a second, independent exact oracle. On random histories of
// the objects it models: ENUMERATE -c and SYMBOLIC -i (exact) agree with
// it, the polynomial collection algorithms agree with it where they apply,
// and neither SATURATE nor SATURATE -r reports a violation it calls
// linearizable. Longer generated histories (where ENUMERATE is too slow)
// check SATURATE -r and the polynomial algorithms against it only.
func TestPorcupineOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 15))
	objs := []h.Object{h.Queue, h.Stack, h.PQueue, h.Set, h.Register}
	n := scale(1000)
	exact := []Options{enumC, {Algorithm: Symbolic, Incremental: true}}
	sound := []Options{{Algorithm: Saturate}, {Algorithm: Saturate, RemoveObsolete: true}}
	var checked, illegal, oracleChecked, satFound int
	check := func(i int, hist *h.History, exact []Options) {
		want := porcupineLinearizable(hist)
		checked++
		if !want {
			illegal++
		}
		for _, opt := range exact {
			if got := check(hist, opt); (got.Verdict == OK) != want {
				t.Fatalf("history %d: %s says %s, porcupine says linearizable=%v\n%v", i, opt.Name(), got.Verdict, want, hist)
			}
		}
		for _, opt := range sound {
			got := check(hist, opt)
			if got.Verdict == Violation {
				if want {
					t.Fatalf("FALSE VIOLATION: history %d: %s says violation at %d, porcupine says linearizable\n%v",
						i, opt.Name(), *got.ViolationStep, hist)
				}
				satFound++
			} else if got.Verdict != OK {
				t.Fatalf("history %d: %s says %s", i, opt.Name(), got.Verdict)
			}
		}
		if lin, err := oracle.Check(hist); err == nil {
			oracleChecked++
			if lin != want {
				t.Fatalf("history %d: the polynomial algorithm says linearizable=%v, porcupine says %v\n%v", i, lin, want, hist)
			}
		}
	}
	for i := 0; i < n; i++ {
		hist := randomHistory(rng, objs[i%len(objs)], 8)
		if !porcupineSupports(hist) {
			continue
		}
		check(i, hist, exact)
	}
	long := scale(100)
	for i := 0; i < long; i++ {
		obj := objs[i%len(objs)]
		cfg := gen.Config{Object: obj, Ops: 20 + rng.IntN(60), Concurrency: 2 + rng.IntN(7), Seed: rng.Int64(),
			Mutate: rng.IntN(3), Capacity: rng.IntN(6)}
		cfg.Pending = rng.IntN(cfg.Concurrency + 1)
		if obj == h.Register || obj == h.Set {
			cfg.Values = rng.IntN(5)
		}
		hist, err := gen.History(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !porcupineSupports(hist) {
			continue
		}
		check(n+i, hist, nil)
	}
	if illegal == 0 || illegal == checked || oracleChecked == 0 || satFound == 0 {
		t.Fatalf("degenerate sample: %d histories, %d not linearizable, %d in the polynomial algorithms' domain, %d saturate violations",
			checked, illegal, oracleChecked, satFound)
	}
	t.Logf("%d histories (%d not linearizable) agree with porcupine; %d also with the polynomial algorithms; saturate (-r) found %d violations",
		checked, illegal, oracleChecked, satFound)
}

// The models themselves, on histories whose verdict is known: every
// testdata log of the objects Porcupine models, and the paper's small Scal
// histories against verdicts.tsv.
func TestPorcupineKnownVerdicts(t *testing.T) {
	n := 0
	for _, c := range testutil.Cases(t) {
		hist := readHistoryFile(t, c.Path)
		if !porcupineSupports(hist) || (c.Expect != "ok" && c.Expect != "violation") {
			continue
		}
		if got := porcupineLinearizable(hist); got != (c.Expect == "ok") {
			t.Errorf("%s: porcupine says linearizable=%v, expected %s", c.Path, got, c.Expect)
		}
		n++
	}
	dir := filepath.Join(testutil.Root(t), "..", "shared", "data", "paper-histories")
	if _, err := os.Stat(filepath.Join(dir, "verdicts.tsv")); err == nil {
		for _, v := range testutil.PaperVerdicts(t, dir) {
			if filepath.Dir(filepath.Dir(v.Path)) != "scal-small" && filepath.Dir(v.Path) != "simple" {
				continue
			}
			hist := readHistoryFile(t, filepath.Join(dir, v.Path))
			if got := porcupineLinearizable(hist); got != (v.Verdict == "ok") {
				t.Errorf("%s: porcupine says linearizable=%v, verdicts.tsv says %s", v.Path, got, v.Verdict)
			}
			n++
		}
	} else {
		t.Logf("paper histories absent (%s): testdata only", dir)
	}
	if n == 0 {
		t.Fatal("no history checked")
	}
	t.Logf("%d histories with known verdicts", n)
}

func readHistoryFile(t testing.TB, path string) *h.History {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hist, err := logfmt.ReadHistory(f, logfmt.Options{Name: path})
	if err != nil {
		t.Fatal(err)
	}
	return hist
}

// BenchmarkPorcupineBigMSQ checks the five 10,000-operation Michael–Scott
// queue logs of the paper's artifact with SATURATE -r and with Porcupine,
// alternating history by history in the same run, from histories already
// in memory (Porcupine's time includes converting to its operations).
// It reports each side's ns per history and porcupine/satmon, the factor
// by which SATURATE -r is faster (below 1: slower), in wall and in CPU
// time. Both must say "ok",
// as verdicts.tsv does. Beside the times it reports satmon's
// deterministic counters per step, from one untimed pass: candidates
// bound while enumerating instances, and allocations (and, from another,
// steady-allocs/step: those over the second half of each log).
func BenchmarkPorcupineBigMSQ(b *testing.B) {
	dir := testutil.PaperHistories(b)
	files, _ := filepath.Glob(filepath.Join(dir, "big-msq", "*.log"))
	if len(files) == 0 {
		b.Skipf("no logs in %s/big-msq", dir)
	}
	var hists []*h.History
	for _, f := range files {
		hists = append(hists, readHistoryFile(b, f))
	}
	opt := Options{Algorithm: Saturate, RemoveObsolete: true}
	bindings, countSteps := 0, 0
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	for _, hist := range hists {
		m, err := New(hist.Object, hist.Param, opt)
		if err != nil {
			b.Fatal(err)
		}
		for _, a := range Actions(hist) {
			if _, err := m.Step(a); err != nil {
				b.Fatal(err)
			}
		}
		bindings += m.chk.(*satChecker).enc.GroundingStats().Bindings
		countSteps += m.Result().Steps
	}
	runtime.ReadMemStats(&ms1)
	steady := 0.0
	for _, hist := range hists {
		m, err := New(hist.Object, hist.Param, opt)
		if err != nil {
			b.Fatal(err)
		}
		steady += steadyAllocs(b, m, Actions(hist)) / float64(len(hists))
	}
	var tSat, tPorc, cSat, cPorc time.Duration
	steps := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, hist := range hists {
			t0, c0 := time.Now(), cpuTime()
			res := check(hist, opt)
			t1, c1 := time.Now(), cpuTime()
			lin := porcupineLinearizable(hist)
			t2, c2 := time.Now(), cpuTime()
			if res.Verdict != OK || !lin {
				b.Fatalf("%s: satmon says %s, porcupine says linearizable=%v; verdicts.tsv says ok", files[j], res.Verdict, lin)
			}
			tSat += t1.Sub(t0)
			tPorc += t2.Sub(t1)
			cSat += c1 - c0
			cPorc += c2 - c1
			steps += res.Steps
		}
	}
	per := float64(b.N * len(hists))
	b.ReportMetric(float64(tSat.Nanoseconds())/per, "satmon-ns/hist")
	b.ReportMetric(float64(tPorc.Nanoseconds())/per, "porcupine-ns/hist")
	b.ReportMetric(float64(tSat.Nanoseconds())/float64(steps), "satmon-ns/step")
	b.ReportMetric(tPorc.Seconds()/tSat.Seconds(), "porcupine/satmon")
	if cSat > 0 && cPorc > 0 {
		// The same ratio in CPU time, which the machine's other
		// processes disturb less than wall time.
		b.ReportMetric(cPorc.Seconds()/cSat.Seconds(), "cpu-porcupine/satmon")
		b.ReportMetric(float64(cSat.Nanoseconds())/float64(steps), "satmon-cpu-ns/step")
	}
	b.ReportMetric(float64(bindings)/float64(countSteps), "bindings/step")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(countSteps), "allocs/step")
	b.ReportMetric(steady, "steady-allocs/step")
}

// The compare-and-set and string register models above agree with
// ENUMERATE -c and with the separately written sequential models
// (internal/seqmodel) on random histories, pending operations included.
func TestPorcupineRMWModels(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(18, 4))
	n := scale(600)
	bad := 0
	for i := 0; i < n; i++ {
		hist := randomHistory(rng, []h.Object{h.CASRegister, h.StringRegister}[i%2], 6)
		want := check(hist, enumC).Verdict == OK
		if got := porcupineLinearizable(hist); got != want {
			t.Fatalf("history %d: porcupine says linearizable=%v, ENUMERATE -c %v\n%v", i, got, want, hist)
		}
		if got := seqmodel.Linearizable(hist); got != want {
			t.Fatalf("history %d: seqmodel says linearizable=%v, ENUMERATE -c %v\n%v", i, got, want, hist)
		}
		if !want {
			bad++
		}
	}
	if bad == 0 || bad == n {
		t.Fatalf("%d of %d histories not linearizable: degenerate sample", bad, n)
	}
	t.Logf("%d histories (%d not linearizable) agree", n, bad)
}
