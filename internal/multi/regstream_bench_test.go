package multi

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	"github.com/satmon/satmon/internal/logfmt"
)

// BenchmarkRegisterStreamAllocs prints, for the register logs of the
// streaming target of #38 (satmon gen --format jepsen --object register
// --values 100 --clients 8 --info 0.01 --seed 1) at 20,000 and 200,000
// operations, the default check's allocations and bytes allocated per
// operation: counters that, unlike CPU time, do not move with the
// machine's load. The 200,000-operation log is past the warm-up in which
// the pool of crashed writes fills (docs/removal.md, "Limits"), so the
// two rows compare a log's start with its steady state. One worker, so
// that the counts repeat from run to run.
//
//	go test ./internal/multi -run '^$' -bench RegisterStreamAllocs -benchtime 1x
func BenchmarkRegisterStreamAllocs(b *testing.B) {
	var out strings.Builder
	fmt.Fprintf(&out, "\n| operations | verdict | allocs/op | bytes/op | GC cycles |\n|---|---|---|---|---|\n")
	for _, ops := range []int{20000, 200000} {
		var log bytes.Buffer
		cfg := gen.JepsenConfig{Ops: ops, Clients: 8, Values: 100, Reads: 0.5, Info: 0.01, Seed: 1}
		if err := gen.Jepsen(cfg, &log); err != nil {
			b.Fatal(err)
		}
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		res, err := CheckMulti(context.Background(), bytes.NewReader(log.Bytes()), logfmt.Auto, logfmt.Options{Name: "reg.log"},
			MultiOptions{Workers: 1}, nil)
		runtime.ReadMemStats(&m1)
		if err != nil {
			b.Fatal(err)
		}
		verdict := fmt.Sprint(res.Verdict)
		if !res.Exact {
			verdict += " (not exact)"
		}
		fmt.Fprintf(&out, "| %d | %s | %.1f | %.0f | %d |\n", ops, verdict,
			float64(m1.Mallocs-m0.Mallocs)/float64(ops), float64(m1.TotalAlloc-m0.TotalAlloc)/float64(ops), m1.NumGC-m0.NumGC)
	}
	fmt.Print(out.String())
}
