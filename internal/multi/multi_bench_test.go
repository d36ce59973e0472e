package multi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	h "github.com/satmon/satmon/internal/history"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/testutil"

	"github.com/satmon/satmon/internal/gen"
	"github.com/satmon/satmon/internal/logfmt"
)

// multiLog is a generated log of n objects of every kind, 64 under way at
// once, each of ops operations and drained at its end.
func multiLog(b *testing.B, n, ops int) string {
	var specs []gen.ObjectSpec
	kinds := []h.Object{h.Queue, h.Stack, h.PQueue, h.Set, h.Register, h.Lock, h.Semaphore, h.Exchanger}
	for i := 0; i < n; i++ {
		specs = append(specs, gen.ObjectSpec{Name: fmt.Sprintf("o%d", i), Config: gen.Config{
			Object: kinds[i%len(kinds)], Ops: ops, Concurrency: 4, Seed: int64(i), Drain: true, Values: 3}})
	}
	var sb strings.Builder
	var buf []byte
	err := gen.Interleave(specs, 64, 1, func(e gen.MultiEvent) error {
		s := specs[e.Object]
		if e.Declare {
			buf = logfmt.AppendDecl(buf[:0], s.Name, s.Config.Object, s.Config.Param())
		} else {
			buf = logfmt.AppendNamedAction(buf[:0], s.Name, s.Config.Object, e.Action)
		}
		sb.Write(append(buf, '\n'))
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return sb.String()
}

// BenchmarkMultiWorkers checks one log of 2,000 objects with 1, 2 and 4
// workers; ns/step is wall time per action of the log, cpu-ns/step the
// process's CPU time (all workers and the reader) per action. The
// speed-up from 1 to N workers is bounded by the cores free: run it on an
// idle machine, with -count to alternate the worker counts.
func BenchmarkMultiWorkers(b *testing.B) {
	text := multiLog(b, 2000, 40)
	for _, w := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			steps := 0
			c0 := testutil.CPUTime()
			for i := 0; i < b.N; i++ {
				res, err := CheckMulti(context.Background(), strings.NewReader(text), logfmt.Native, logfmt.Options{Name: "bench"},
					MultiOptions{Options: engine.Options{Algorithm: engine.Saturate}, Workers: w}, nil)
				if err != nil || res.Verdict != engine.OK {
					b.Fatal(err, res.Verdict)
				}
				steps += res.Steps
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
			if c := testutil.CPUTime() - c0; c > 0 {
				b.ReportMetric(float64(c.Nanoseconds())/float64(steps), "cpu-ns/step")
			}
		})
	}
}
