package multi

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/gen"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/testhist"
)

// Every history of ../shared/data/jepsen-etcd and porcupine-kv gets its
// verdicts.tsv verdict from the default variant, every ok exact.
func TestFrontierRealHistories(t *testing.T) {
	t.Parallel()
	for _, set := range []string{"jepsen-etcd", "porcupine-kv"} {
		for _, f := range testhist.RealFiles(t, set) {
			res, err := CheckMulti(context.Background(), bytes.NewReader(f.Data), logfmt.Auto, logfmt.Options{Name: f.Name},
				MultiOptions{Options: engine.Options{}, Workers: 1}, nil)
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if string(res.Verdict) != f.Verdict || res.Verdict == engine.OK && !res.Exact {
				t.Errorf("%s/%s: %v (exact %v), want %s", set, f.Name, res.Verdict, res.Exact, f.Verdict)
			}
			if res.Algorithm != engine.FrontierAlgorithm {
				t.Errorf("%s/%s: algorithm %s", set, f.Name, res.Algorithm)
			}
		}
	}
}

// The three lines: the register starts absent, so the crashed
// cas(2, 1) cannot succeed and nothing writes 1.
func TestFrontierCrashedCAS(t *testing.T) {
	t.Parallel()
	log := "INFO  jepsen.util - 0\t:invoke\t:cas\t[2 1]\n" +
		"INFO  jepsen.util - 1\t:invoke\t:read\tnil\n" +
		"INFO  jepsen.util - 1\t:ok\t:read\t1\n"
	res, err := CheckMulti(context.Background(), strings.NewReader(log), logfmt.Auto, logfmt.Options{Name: "three"},
		MultiOptions{Workers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != engine.Violation || *res.ViolationStep != 3 {
		t.Fatalf("%v at %v, want a violation at step 3", res.Verdict, deref(res.ViolationStep))
	}
	// With a cas(nil, 1)… no: with a write of 2 before, the crashed cas
	// may take effect and the read is explained.
	log = "INFO  jepsen.util - 2\t:invoke\t:write\t2\n" +
		"INFO  jepsen.util - 2\t:ok\t:write\t2\n" + log
	res, err = CheckMulti(context.Background(), strings.NewReader(log), logfmt.Auto, logfmt.Options{Name: "five"},
		MultiOptions{Workers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != engine.OK || !res.Exact {
		t.Fatalf("%v (exact %v), want an exact ok", res.Verdict, res.Exact)
	}
}

// Crashed operations do not keep the log alive: a compare-and-set
// register log with a crashed write or cas every 50 operations keeps a
// window of the open operations, and no warning is printed.
func TestFrontierCrashedWindowBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	rng := rand.New(rand.NewPCG(38, 4))
	ops := scale(4000)
	gen := 0
	proc := func(p int) string { return fmt.Sprintf("%d", p+8*gen) }
	state := 0
	for i := 0; i < ops; i++ {
		p := i % 4
		v := rng.IntN(5)
		switch {
		case i%50 == 49:
			fmt.Fprintf(&b, "INFO  jepsen.util - %s\t:invoke\t:cas\t[%d %d]\n", proc(p), rng.IntN(5), v)
			fmt.Fprintf(&b, "INFO  jepsen.util - %s\t:info\t:cas\t[%d %d]\n", proc(p), rng.IntN(5), v)
		case rng.IntN(2) == 0:
			fmt.Fprintf(&b, "INFO  jepsen.util - %s\t:invoke\t:write\t%d\n", proc(p), v)
			fmt.Fprintf(&b, "INFO  jepsen.util - %s\t:ok\t:write\t%d\n", proc(p), v)
			state = v
		default:
			fmt.Fprintf(&b, "INFO  jepsen.util - %s\t:invoke\t:read\tnil\n", proc(p))
			fmt.Fprintf(&b, "INFO  jepsen.util - %s\t:ok\t:read\t%d\n", proc(p), state)
		}
	}
	var warn bytes.Buffer
	res, err := CheckMulti(context.Background(), strings.NewReader(b.String()), logfmt.Auto, logfmt.Options{Name: "crashes"},
		MultiOptions{Options: engine.Options{Warn: &warn}, Workers: 1, KeepIdle: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != engine.OK || !res.Exact || warn.Len() > 0 {
		t.Fatalf("%v (exact %v), warnings %q", res.Verdict, res.Exact, warn.String())
	}
	if w := res.Objects[0].Stats.MaxWindow; w > engine.ConfirmOps+ops/50+8 {
		t.Errorf("largest window %d", w)
	}
}

// Generated Jepsen logs with crashes (gen.Jepsen, 1–4% :info, 3–8
// clients, 10 values) are linearizable: the default says so, exactly; with
// one stale read added they are not, and the default finds it, exactly.
// Long enough (300–700 operations) for crashed operations to pile up in
// the pool and for configurations to differ in which of them they used.
func TestFrontierCrashedJepsen(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 8))
	n := scale(40)
	for i := 0; i < n; i++ {
		cfg := gen.JepsenConfig{Ops: 300 + rng.IntN(400), Clients: 3 + rng.IntN(6), Values: 10,
			Reads: 0.5, Info: 0.01 + 0.03*rng.Float64(), Stale: i%2 == 1, Seed: rng.Int64()}
		if i%4 >= 2 {
			cfg.CAS = 0.25
		}
		var log bytes.Buffer
		if err := gen.Jepsen(cfg, &log); err != nil {
			t.Fatal(err)
		}
		res, err := CheckMulti(context.Background(), &log, logfmt.Auto, logfmt.Options{Name: "gen"},
			MultiOptions{Options: engine.DefaultOptions(), Workers: 1, Finite: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := engine.OK
		if cfg.Stale {
			want = engine.Violation
		}
		if res.Verdict != want || !res.Exact {
			t.Fatalf("%+v: %v (exact %v), want %v", cfg, res.Verdict, res.Exact, want)
		}
	}
}
