package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/testutil"
	"github.com/satmon/satmon/internal/z"
)

// BenchmarkSaturateSyncStack checks the ten sync-stack histories (about
// 500 very concurrent operations each) with SATURATE to the end.
func BenchmarkSaturateSyncStack(b *testing.B) {
	benchSyncStack(b, Options{Algorithm: Saturate})
}

// BenchmarkSaturateRSyncStack is the same with -r.
func BenchmarkSaturateRSyncStack(b *testing.B) {
	benchSyncStack(b, Options{Algorithm: Saturate, RemoveObsolete: true})
}

func benchSyncStack(b *testing.B, opt Options) {
	dir := testutil.PaperHistories(b)
	files, _ := filepath.Glob(filepath.Join(dir, "sync-stack", "*.log"))
	for i := 0; i < b.N; i++ {
		steps := 0
		for _, f := range files {
			fh, err := os.Open(f)
			if err != nil {
				b.Fatal(err)
			}
			res, err := CheckLogFunc(fh, logfmt.Options{Name: f}, opt, nil)
			fh.Close()
			if err != nil {
				b.Fatal(err)
			}
			steps += res.Steps
		}
		b.ReportMetric(float64(steps), "steps")
	}
}

// BenchmarkSaturateRQueueStream streams a generated queue log (capacity
// 16, concurrency 8) through SATURATE -r; `satmon scale` prints the table
// for longer logs. BenchmarkSaturateRStream has the counters.
func BenchmarkSaturateRQueueStream(b *testing.B) {
	benchStream(b, h.Queue, 8)
}

// BenchmarkSaturateRStream streams generated queue and stack logs (10,000
// operations, capacity 16, concurrency 2 and 8) through SATURATE -r. Next
// to ns/step it reports deterministic counters, which do not depend on the
// machine's load: allocations, clauses emitted, variables and Tseitin
// helper variables created, propagations, candidates bound while
// enumerating instances, and ∀∃ instances watched and materialised, per
// step.
func BenchmarkSaturateRStream(b *testing.B) {
	for _, obj := range []h.Object{h.Queue, h.Stack} {
		for _, conc := range []int{2, 8} {
			b.Run(fmt.Sprintf("%v/c%d", obj, conc), func(b *testing.B) { benchStream(b, obj, conc) })
		}
	}
}

func benchStream(b *testing.B, obj h.Object, conc int) {
	var acts []h.Action
	err := gen.Generate(gen.Config{Object: obj, Ops: 10000, Concurrency: conc, Capacity: 16, Seed: 1}, func(a h.Action) error {
		acts = append(acts, a)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	opt := Options{Algorithm: Saturate, RemoveObsolete: true}
	run := func(m *Monitor) {
		for _, a := range acts {
			if _, err := m.Step(a); err != nil {
				b.Fatal(err)
			}
		}
		if r := m.Result(); r.Verdict != OK {
			b.Fatalf("verdict %s on a linearizable log", r.Verdict)
		}
	}
	newMonitor := func() *Monitor {
		m, err := New(obj, "", opt)
		if err != nil {
			b.Fatal(err)
		}
		return m
	}
	// One untimed pass counts: the encoder's clauses and variables, and,
	// by the names the encoder gives them, its Tseitin helpers.
	m := newMonitor()
	c := m.chk.(*satChecker)
	var created []z.Var
	c.sink.created = &created
	c.enc.Names = true
	helpers := 0
	for _, a := range acts {
		created = created[:0]
		if _, err := m.Step(a); err != nil {
			b.Fatal(err)
		}
		for _, v := range created {
			if c.enc.VarName(v) == "aux" {
				helpers++
			}
		}
	}
	vars, clauses := c.enc.Stats()
	gs := c.enc.GroundingStats()
	props := c.stats().Propagations
	steps := float64(len(acts))
	steady := steadyAllocs(b, newMonitor(), acts)

	var ms0, ms1 runtime.MemStats
	b.ReportAllocs()
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	cpu0 := testutil.CPUTime()
	for range b.N {
		run(newMonitor())
	}
	cpu := testutil.CPUTime() - cpu0
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	n := steps * float64(b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/step")
	if cpu > 0 {
		// CPU time beside wall time: on a shared machine wall time mostly
		// measures the neighbours.
		b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/step")
	}
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "allocs/step")
	b.ReportMetric(steady, "steady-allocs/step")
	b.ReportMetric(float64(clauses)/steps, "clauses/step")
	b.ReportMetric(float64(vars)/steps, "vars/step")
	b.ReportMetric(float64(helpers)/steps, "helpers/step")
	b.ReportMetric(float64(props)/steps, "props/step")
	b.ReportMetric(float64(gs.Bindings)/steps, "bindings/step")
	b.ReportMetric(float64(gs.Watched)/steps, "watched/step")
	b.ReportMetric(float64(gs.Materialised)/steps, "materialised/step")
}

// steadyAllocs steps m through acts, untimed, and returns the allocations
// per step over the second half: allocs/step counts making the monitor
// and the buffers that grow with the window too, and this shows what is
// left once they have grown.
func steadyAllocs(b *testing.B, m *Monitor, acts []h.Action) float64 {
	var ms0, ms1 runtime.MemStats
	half := len(acts) / 2
	for i, a := range acts {
		if i == half {
			runtime.ReadMemStats(&ms0)
		}
		if _, err := m.Step(a); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&ms1)
	return float64(ms1.Mallocs-ms0.Mallocs) / float64(len(acts)-half)
}

// BenchmarkSaturateRLongAllocs streams generated queue and stack logs of
// 1,000,000 steps (capacity 16, concurrency 2 and 8) through SATURATE -r,
// untimed, and reports the allocations of the monitor over the steps from
// 500,000 to 900,000 and over the last 100,000: what steady state
// allocates once the window has reached its size (a window that grows
// past its largest size so far still allocates, for the lists it has
// never held). The actions are made before the monitor steps, so that
// the generator's allocations do not count.
func BenchmarkSaturateRLongAllocs(b *testing.B) {
	const steps = 1000000
	for _, obj := range []h.Object{h.Queue, h.Stack} {
		for _, conc := range []int{2, 8} {
			b.Run(fmt.Sprintf("%v/c%d", obj, conc), func(b *testing.B) {
				acts := make([]h.Action, 0, steps)
				err := gen.Generate(gen.Config{Object: obj, Ops: steps / 2, Concurrency: conc, Capacity: 16, Seed: 1}, func(a h.Action) error {
					acts = append(acts, a)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				var mid, last float64
				for range b.N {
					m, err := New(obj, "", Options{Algorithm: Saturate, RemoveObsolete: true})
					if err != nil {
						b.Fatal(err)
					}
					var ms [3]runtime.MemStats
					for i, a := range acts {
						switch i {
						case steps / 2:
							runtime.ReadMemStats(&ms[0])
						case 9 * steps / 10:
							runtime.ReadMemStats(&ms[1])
						}
						if _, err := m.Step(a); err != nil {
							b.Fatal(err)
						}
					}
					runtime.ReadMemStats(&ms[2])
					if r := m.Result(); r.Verdict != OK {
						b.Fatalf("verdict %s on a linearizable log", r.Verdict)
					}
					mid = float64(ms[1].Mallocs-ms[0].Mallocs) / (4 * steps / 10)
					last = float64(ms[2].Mallocs-ms[1].Mallocs) / (steps / 10)
				}
				b.ReportMetric(mid, "allocs/step-500k-900k")
				b.ReportMetric(last, "allocs/step-last-100k")
			})
		}
	}
}

// BenchmarkSaturateVsSymbolic runs, history by history, SATURATE to the
// end of each sync-stack log and then SYMBOLIC (and SYMBOLIC -i) with that
// same time as its limit, side by side in one run, and logs the steps each
// reached. Run with -v to see the table.
func BenchmarkSaturateVsSymbolic(b *testing.B) {
	dir := testutil.PaperHistories(b)
	files, _ := filepath.Glob(filepath.Join(dir, "sync-stack", "*.log"))
	check := func(f string, opt Options) Result {
		fh, err := os.Open(f)
		if err != nil {
			b.Fatal(err)
		}
		defer fh.Close()
		res, err := CheckLogFunc(fh, logfmt.Options{Name: f}, opt, nil)
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	for i := 0; i < b.N; i++ {
		var tSat, tSatR float64
		var sSat, sSym, sSymI, sSatR int
		b.Logf("%-22s %8s %10s %12s %12s %10s", "history", "steps", "saturate", "symbolic", "symbolic -i", "sat -r")
		for _, f := range files {
			sat := check(f, Options{Algorithm: Saturate})
			limit := time.Duration(sat.Seconds * float64(time.Second))
			sym := check(f, Options{Algorithm: Symbolic, Timeout: limit})
			symI := check(f, Options{Algorithm: Symbolic, Incremental: true, Timeout: limit})
			satR := check(f, Options{Algorithm: Saturate, RemoveObsolete: true})
			b.Logf("%-22s %8d %9.2fs %12d %12d %9.2fs", filepath.Base(f), sat.Steps, sat.Seconds, sym.Steps, symI.Steps, satR.Seconds)
			tSat += sat.Seconds
			tSatR += satR.Seconds
			sSat += sat.Steps
			sSym += sym.Steps
			sSymI += symI.Steps
			sSatR += satR.Steps
		}
		b.Logf("total: saturate %d steps in %.2fs; symbolic %d and symbolic -i %d steps in the same time; saturate -r %d steps in %.2fs",
			sSat, tSat, sSym, sSymI, sSatR, tSatR)
	}
}

// BenchmarkTable1Shape prints, for each algorithm variant, the average
// steps processed within a per-history limit (SATMON_LIMIT, default 5s)
// and the violations found, on the ten sync-stack histories and on twenty
// generated very-concurrent queue histories (50 operations, concurrency 8,
// one injected fault each): the shape of the paper's Table 1. Run with -v.
func BenchmarkTable1Shape(b *testing.B) {
	limit := 5 * time.Second
	if d, err := time.ParseDuration(os.Getenv("SATMON_LIMIT")); err == nil {
		limit = d
	}
	type set struct {
		name  string
		hists []*h.History
	}
	var sets []set
	{
		if d := paperDirB(b); d != "" {
			files, _ := filepath.Glob(filepath.Join(d, "sync-stack", "*.log"))
			var hs []*h.History
			for _, f := range files {
				fh, err := os.Open(f)
				if err != nil {
					b.Fatal(err)
				}
				hist, err := logfmt.ReadHistory(fh, logfmt.Options{Name: f})
				fh.Close()
				if err != nil {
					b.Fatal(err)
				}
				hs = append(hs, hist)
			}
			sets = append(sets, set{"sync-stack (10)", hs})
		}
	}
	var qs []*h.History
	for seed := int64(1); seed <= 20; seed++ {
		hist, err := gen.History(gen.Config{Object: h.Queue, Ops: 50, Concurrency: 8, Seed: seed, Mutate: 1})
		if err != nil {
			b.Fatal(err)
		}
		qs = append(qs, hist)
	}
	sets = append(sets, set{"generated queue (20)", qs})
	variants := []Options{
		{Algorithm: Enumerate}, {Algorithm: Enumerate, Completion: true},
		{Algorithm: Symbolic}, {Algorithm: Symbolic, RemoveObsolete: true}, {Algorithm: Symbolic, Incremental: true},
		{Algorithm: Symbolic, Completion: true}, {Algorithm: Symbolic, Completion: true, Incremental: true},
		{Algorithm: Saturate}, {Algorithm: Saturate, RemoveObsolete: true},
	}
	for i := 0; i < b.N; i++ {
		for _, s := range sets {
			b.Logf("%s, limit %v per history", s.name, limit)
			b.Logf("%-16s %10s %12s %14s", "variant", "avg steps", "violations", "avg time/viol")
			for _, opt := range variants {
				opt.Timeout = limit
				steps, viol := 0, 0
				var tv float64
				for _, hist := range s.hists {
					res := check(hist, opt)
					steps += res.Steps
					if res.Verdict == Violation {
						viol++
						tv += res.Seconds
					}
				}
				avgT := "-"
				if viol > 0 {
					avgT = fmt.Sprintf("%.3fs", tv/float64(viol))
				}
				b.Logf("%-16s %10.1f %12d %14s", opt.Name(), float64(steps)/float64(len(s.hists)), viol, avgT)
			}
		}
	}
}

// paperDirB is the paper histories' directory, or "" when absent (the
// benchmark then runs on generated histories only).
func paperDirB(b *testing.B) string {
	d := filepath.Join(testutil.Root(b), "..", "shared", "data", "paper-histories")
	if _, err := os.Stat(filepath.Join(d, "verdicts.tsv")); err != nil {
		b.Logf("paper histories absent (%s): generated histories only", d)
		return ""
	}
	return d
}
