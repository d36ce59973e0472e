package engine

import (
	"runtime"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
)

// TestSaturateRSteadyAllocs streams generated queue and stack logs
// (concurrency 8, capacity 16, 120,000 steps) through SATURATE -r and
// counts the allocations (runtime.MemStats.Mallocs, never time) of the
// 60,000 steps after the first 60,000: once the window, its pools and
// its scratch buffers have grown to the sizes the log needs, a step
// allocates nothing, and only a step that takes the window or one of its
// tables past the largest size it has had may allocate, each such growth
// leaving room to spare (docs/encoding.md, "Allocations"). The bound is a
// handful over the 60,000 steps, not zero, because a random log still
// reaches a new largest size now and then. (Logs whose values recur, or
// with operations that stay pending, are left out: -r cannot bound their
// window, which then grows for as long as the log does.)
func TestSaturateRSteadyAllocs(t *testing.T) {
	const warm, measure = 60000, 60000
	const bound = 8
	for _, obj := range []h.Object{h.Queue, h.Stack} {
		cfg := gen.Config{Object: obj, Ops: (warm + measure) / 2, Concurrency: 8, Capacity: 16, Seed: 7}
		t.Run(obj.String(), func(t *testing.T) {
			var acts []h.Action
			if err := gen.Generate(cfg, func(a h.Action) error {
				acts = append(acts, a)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			// Mallocs counts the whole process: a goroutine that an
			// earlier test of the package left running can add to it,
			// never take away. The monitor's own count is the same on
			// every run, so the least of a few runs is its count.
			n, win := uint64(1<<63), 0
			for try := 0; try < 3 && n > bound; try++ {
				c, w := steadyMallocs(t, obj, acts, warm)
				n, win = min(n, c), w
			}
			t.Logf("%d allocations over steps %d to %d (window %d at the end)", n, warm, len(acts), win)
			if n > bound {
				t.Errorf("%d allocations over %d steps after %d of warm-up; want at most %d", n, len(acts)-warm, warm, bound)
			}
		})
	}
}

// steadyMallocs runs a new SATURATE -r monitor over acts and returns the
// allocations of the process after the first warm steps, and the
// window's size at the end.
func steadyMallocs(t *testing.T, obj h.Object, acts []h.Action, warm int) (uint64, int) {
	t.Helper()
	m, err := New(obj, "", Options{Algorithm: Saturate, RemoveObsolete: true})
	if err != nil {
		t.Fatal(err)
	}
	var ms0, ms1 runtime.MemStats
	for i, a := range acts {
		if i == warm {
			runtime.ReadMemStats(&ms0)
		}
		if _, err := m.Step(a); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&ms1)
	if r := m.Result(); r.Verdict != OK {
		t.Fatalf("verdict %s on a linearizable log", r.Verdict)
	}
	return ms1.Mallocs - ms0.Mallocs, m.win.size()
}
