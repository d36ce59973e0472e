package saturate

import (
	"fmt"
	"testing"

	"github.com/satmon/satmon/internal/testutil"
)

// BenchmarkPropagate runs the sliding-window workload (see window): one
// iteration is one step, which forgets the oldest operation, adds a new
// one with its variables, order axioms and units, and propagates.
func BenchmarkPropagate(b *testing.B) {
	for _, size := range []int{4, 8, 16, 32} {
		b.Run(fmt.Sprintf("window=%d", size), func(b *testing.B) {
			w := newWindow(size, 7)
			for range 4 * size { // fill the window and reach a steady state
				w.step()
			}
			props0, clauses0 := w.s.Stats().Propagations, w.clauses
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := testutil.CPUTime()
			for range b.N {
				w.step()
			}
			b.StopTimer()
			cpu := (testutil.CPUTime() - cpu0).Seconds()
			if !w.s.Propagate() {
				b.Fatalf("conflict on a satisfiable workload")
			}
			props := float64(w.s.Stats().Propagations - props0)
			b.ReportMetric(props/b.Elapsed().Seconds(), "props/s")
			if cpu > 0 {
				b.ReportMetric(props/cpu, "props/cpu-s")
				b.ReportMetric(cpu*1e9/float64(b.N), "cpu-ns/step")
			}
			b.ReportMetric(props/float64(b.N), "props/step")
			b.ReportMetric(float64(w.clauses-clauses0)/float64(b.N), "clauses/step")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/step")
		})
	}
}
