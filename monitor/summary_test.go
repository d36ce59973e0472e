package monitor

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
)

// repeatedHistory draws a small history whose values repeat: half from
// the generator with a pool of 1–4 values (linearizable or mutated), a
// quarter random labels over three values, and a quarter short blocks of
// such labels one after the other, so that quiescent points fall between
// them and later blocks are checked against summaries.
func repeatedHistory(rng *rand.Rand, obj h.Object, maxOps int) *h.History {
	n := 2 + rng.IntN(maxOps-1)
	switch rng.IntN(4) {
	case 0:
		return garbageHistory(rng, obj, n)
	case 1:
		return blocks(rng, obj, n)
	}
	{
		cfg := gen.Config{Object: obj, Ops: n, Concurrency: 1 + rng.IntN(4), Seed: rng.Int64(),
			Mutate: rng.IntN(3), Capacity: rng.IntN(4), Values: 1 + rng.IntN(4)}
		if obj == h.Semaphore {
			cfg.Capacity = 1 + rng.IntN(2)
		}
		cfg.Pending = rng.IntN(min(cfg.Concurrency, n) + 1)
		if hist, err := gen.History(cfg); err == nil {
			return hist
		}
	}
	return garbageHistory(rng, obj, n)
}

// blocks strings random-label histories of 1–4 operations together, each
// called after the previous one's last action.
func blocks(rng *rand.Rand, obj h.Object, n int) *h.History {
	out := garbageHistory(rng, obj, min(n, 1+rng.IntN(4)))
	for len(out.Ops) < n {
		b := garbageHistory(rng, obj, min(n-len(out.Ops), 1+rng.IntN(4)))
		end := 0
		for _, o := range out.Ops {
			end = max(end, o.Call+1, o.Return+1)
		}
		for _, o := range b.Ops {
			o.ID = fmt.Sprintf("%d", len(out.Ops)+1)
			o.Call += end
			if o.Return >= 0 {
				o.Return += end
			}
			out.Ops = append(out.Ops, o)
		}
	}
	return out
}

// With -r, summaries at quiescent points (summary.go) never make a
// checker report a violation that ENUMERATE -c does not confirm at the
// same step or earlier, on histories whose values repeat; and every
// violation a variant finds without -r it also finds with -r. The
// histories mix every object, weighted towards the register and the set
// (which are summarized) and the collections with duplicate values.
func TestRepeatedValuesSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2))
	n := scale(600)
	objs := []h.Object{h.Register, h.Set, h.Register, h.Set, h.Register, h.Set,
		h.Queue, h.Stack, h.PQueue, h.Lock, h.Semaphore, h.Exchanger}
	variants := []Options{
		{Algorithm: Saturate},
		{Algorithm: Symbolic},
		{Algorithm: Symbolic, Incremental: true},
	}
	type count struct{ found, lost, gained, earlier, later int }
	counts := make([]count, len(variants))
	summaries, viol := 0, 0
	for i := 0; i < n; i++ {
		obj := objs[i%len(objs)]
		hist := repeatedHistory(rng, obj, 9)
		var oracle exactOracle
		for j, opt := range variants {
			plain := CheckHistory(hist, opt)
			opt.RemoveObsolete = true
			rem := CheckHistory(hist, opt)
			summaries += rem.Stats.Summaries
			a := oracle.confirm(t, i, hist, plain, opt.Name()+" without -r")
			b := oracle.confirm(t, i, hist, rem, opt.Name())
			c := &counts[j]
			switch {
			case a && !b:
				c.lost++
				t.Logf("history %d: %s loses the violation found without -r at step %d\n%v", i, opt.Name(), *plain.ViolationStep, hist)
			case b && !a:
				c.gained++
			case a && b && *rem.ViolationStep < *plain.ViolationStep:
				c.earlier++
			case a && b && *rem.ViolationStep > *plain.ViolationStep:
				c.later++
				t.Logf("history %d: %s finds at step %d the violation found at step %d without -r (%d summaries)\n%v",
					i, opt.Name(), *rem.ViolationStep, *plain.ViolationStep, rem.Stats.Summaries, hist)
			}
			if b {
				c.found++
				viol++
			}
		}
	}
	if summaries == 0 || viol == 0 {
		t.Fatalf("%d summaries, %d violations: the test tests nothing", summaries, viol)
	}
	for j, opt := range variants {
		opt.RemoveObsolete = true
		c := counts[j]
		t.Logf("%-18s violations %5d; against no -r: lost %d, gained %d, earlier %d, later %d", opt.Name(), c.found, c.lost, c.gained, c.earlier, c.later)
		if c.lost > 0 {
			t.Errorf("%s lost %d violations found without -r", opt.Name(), c.lost)
		}
	}
	t.Logf("%d histories, %d summaries", n, summaries)
}

// The logs: a register and a set with 4 values. With -r the
// window stays small however long the log, and summaries do the work.
func TestRepeatedValuesWindowBounded(t *testing.T) {
	for _, obj := range []h.Object{h.Register, h.Set} {
		for _, opt := range []Options{
			{Algorithm: Saturate, RemoveObsolete: true},
			{Algorithm: Symbolic, RemoveObsolete: true},
		} {
			var windows []int
			for _, ops := range []int{500, 4000} {
				cfg := gen.Config{Object: obj, Ops: ops, Concurrency: 4, Values: 4, Seed: 7}
				m, err := New(obj, cfg.Param(), opt)
				if err != nil {
					t.Fatal(err)
				}
				if err := gen.Generate(cfg, func(a h.Action) error {
					if v, err := m.Step(a); v || err != nil {
						return fmt.Errorf("violation %v or error %v on a linearizable log", v, err)
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				r := m.Result()
				if r.Stats.Summaries == 0 {
					t.Fatalf("%v %s: no summary", obj, opt.Name())
				}
				windows = append(windows, r.Stats.MaxWindow)
			}
			// The longest stretch without a quiescent point grows slowly
			// with the log, so the largest window may too; what must not
			// happen is growth with the log's length (8× here).
			if windows[1] > 2*windows[0]+20 {
				t.Errorf("%v %s: largest window %d at 500 operations, %d at 4,000", obj, opt.Name(), windows[0], windows[1])
			}
			t.Logf("%v %s: largest window %v", obj, opt.Name(), windows)
		}
	}
}

// A register log with no quiescent point: one write stays pending while
// the others repeat 2 values. The window must grow, and -r says so once
// on Options.Warn.
func TestRepeatedValuesWarns(t *testing.T) {
	defer func(w int) { warnWindow = w }(warnWindow)
	warnWindow = 100
	var b strings.Builder
	b.WriteString("# @object atomic-register 0\n[p] call write(9)\n")
	for i := 0; i < 70; i++ {
		fmt.Fprintf(&b, "[w%d] call write(%d)\n[w%d] return\n[r%d] call read\n[r%d] return %d\n", i, i%2, i, i, i, i%2)
	}
	var warn bytes.Buffer
	res, err := CheckLog(strings.NewReader(b.String()), "stall.log", h.NoObject, "",
		Options{Algorithm: Saturate, RemoveObsolete: true, Warn: &warn})
	if err != nil || res.Verdict != OK {
		t.Fatalf("%v %v", res.Verdict, err)
	}
	if res.Stats.MaxWindow <= warnWindow {
		t.Fatalf("window %d: the log was meant to grow past %d", res.Stats.MaxWindow, warnWindow)
	}
	if got := strings.Count(warn.String(), "warning"); got != 1 {
		t.Fatalf("%d warnings, want 1: %q", got, warn.String())
	}
	if !strings.Contains(warn.String(), "no operation is open") {
		t.Errorf("warning does not say why: %q", warn.String())
	}
}
