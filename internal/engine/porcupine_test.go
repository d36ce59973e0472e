package engine

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/oracle"
	"github.com/satmon/satmon/internal/seqmodel"
	"github.com/satmon/satmon/internal/testhist"
	"github.com/satmon/satmon/internal/testutil"
)

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
		want := testhist.PorcupineLinearizable(hist)
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
		hist := testhist.RandomHistory(rng, objs[i%len(objs)], 8)
		if !testhist.PorcupineSupports(hist) {
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
		if !testhist.PorcupineSupports(hist) {
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
		if !testhist.PorcupineSupports(hist) || (c.Expect != "ok" && c.Expect != "violation") {
			continue
		}
		if got := testhist.PorcupineLinearizable(hist); got != (c.Expect == "ok") {
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
			if got := testhist.PorcupineLinearizable(hist); got != (v.Verdict == "ok") {
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
			t0, c0 := time.Now(), testutil.CPUTime()
			res := check(hist, opt)
			t1, c1 := time.Now(), testutil.CPUTime()
			lin := testhist.PorcupineLinearizable(hist)
			t2, c2 := time.Now(), testutil.CPUTime()
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
		hist := testhist.RandomHistory(rng, []h.Object{h.CASRegister, h.StringRegister}[i%2], 6)
		want := check(hist, enumC).Verdict == OK
		if got := testhist.PorcupineLinearizable(hist); got != want {
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
