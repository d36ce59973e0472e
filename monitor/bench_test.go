package monitor

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/satmon/satmon/internal/gen"
	"github.com/satmon/satmon/internal/testutil"
	h "github.com/satmon/satmon/monitor/history"
	"github.com/satmon/satmon/monitor/logfmt"
)

// BenchmarkSaturateSyncStack checks the ten sync-stack histories (about
// 500 very concurrent operations each) with SATURATE to the end.
func BenchmarkSaturateSyncStack(b *testing.B) {
	dir := testutil.PaperHistories(b)
	files, _ := filepath.Glob(filepath.Join(dir, "sync-stack", "*.log"))
	if n := os.Getenv("SATMON_BENCH_FILES"); n != "" {
		files = files[:1]
	}
	for i := 0; i < b.N; i++ {
		steps := 0
		for _, f := range files {
			fh, err := os.Open(f)
			if err != nil {
				b.Fatal(err)
			}
			res, err := CheckLogFunc(fh, logfmt.Options{Name: f}, Options{Algorithm: Saturate}, nil)
			fh.Close()
			if err != nil {
				b.Fatal(err)
			}
			steps += res.Steps
		}
		b.ReportMetric(float64(steps), "steps")
	}
}

// BenchmarkSaturateRSyncStack is the same with -r.
func BenchmarkSaturateRSyncStack(b *testing.B) {
	dir := testutil.PaperHistories(b)
	files, _ := filepath.Glob(filepath.Join(dir, "sync-stack", "*.log"))
	for i := 0; i < b.N; i++ {
		steps := 0
		for _, f := range files {
			fh, err := os.Open(f)
			if err != nil {
				b.Fatal(err)
			}
			res, err := CheckLogFunc(fh, logfmt.Options{Name: f}, Options{Algorithm: Saturate, RemoveObsolete: true}, nil)
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
// for longer logs.
func BenchmarkSaturateRQueueStream(b *testing.B) {
	for i := 0; i < b.N; i++ {
		m, err := New(h.Queue, "", Options{Algorithm: Saturate, RemoveObsolete: true})
		if err != nil {
			b.Fatal(err)
		}
		steps := 0
		err = gen.Generate(gen.Config{Object: h.Queue, Ops: 10000, Concurrency: 8, Capacity: 16, Seed: 1}, func(a h.Action) error {
			steps++
			_, err := m.Step(a)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps*(i+1)), "ns/step")
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
