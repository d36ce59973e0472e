package engine

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
)

// jepsenHistory is the history of a generated Jepsen register log; its
// crashed operations are pending to the end.
func jepsenHistory(t *testing.T, cfg gen.JepsenConfig) *h.History {
	t.Helper()
	var buf bytes.Buffer
	if err := gen.Jepsen(cfg, &buf); err != nil {
		t.Fatal(err)
	}
	src, err := logfmt.NewSource(&buf, logfmt.Auto, logfmt.Options{Name: "gen"})
	if err != nil {
		t.Fatal(err)
	}
	var b *h.Builder
	for {
		ev, err := src.NextEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			b = h.NewBuilder(ev.Object.Kind, ev.Object.Param)
		}
		if _, err := b.Add(ev.Action); err != nil {
			t.Fatal(err)
		}
	}
	return &b.H
}

// The frontier that cannot follow an operation goes on with it as a
// crashed one: a violation after that point is still found, and the
// result says it is not exact. Three writes open at once with room for
// two, or one return with more configurations than the budget; then
// write(4) and a read of 1, which write(4) overwrote.
func TestFrontierFallbackFindsLaterViolation(t *testing.T) {
	t.Parallel()
	for _, obj := range registerObjects {
		var b strings.Builder
		fmt.Fprintf(&b, "# @object %s\n", obj)
		put := "write"
		if obj == h.StringRegister {
			put = "put"
		}
		for i := 1; i <= 3; i++ {
			fmt.Fprintf(&b, "[%d] call %s(%d)\n", i, put, i)
		}
		for i := 1; i <= 3; i++ {
			fmt.Fprintf(&b, "[%d] return\n", i)
		}
		fmt.Fprintf(&b, "[4] call %s(4)\n[4] return\n[5] call read\n[5] return 1\n", put)
		hist, err := logfmt.ReadHistory(strings.NewReader(b.String()), logfmt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Room for two open, or a budget of 2 to 4 configurations a
		// return (the smallest that loses exactness on the writes yet
		// checks the read after them differs by object).
		found := map[bool]bool{}
		for _, lim := range []struct{ open, budget int }{{2, 0}, {0, 2}, {0, 3}, {0, 4}} {
			var warn bytes.Buffer
			got := checkFrontLimits(hist, Options{Warn: &warn}, lim.open, lim.budget)
			if got.Verdict == Violation && *got.ViolationStep != 10 {
				t.Errorf("%v, limits %+v: violation at %v; want step 10", obj, lim, *got.ViolationStep)
			}
			if got.Exact {
				continue
			}
			if !strings.Contains(warn.String(), "no longer exact from step") {
				t.Errorf("%v, limits %+v: inexact, warning %q", obj, lim, warn.String())
			}
			if got.Verdict == Violation {
				found[lim.open > 0] = true
			}
			// Without the read, ok but not exact.
			ok := &h.History{Object: hist.Object, Ops: hist.Ops[:4]}
			warn.Reset()
			got = checkFrontLimits(ok, Options{Warn: &warn}, lim.open, lim.budget)
			if got.Verdict != OK || got.Exact || !strings.Contains(warn.String(), "from step") {
				t.Errorf("%v, limits %+v, no read: %v exact %v, warning %q", obj, lim, got.Verdict, got.Exact, warn.String())
			}
		}
		if !found[true] || !found[false] {
			t.Errorf("%v: the violation after the lost exactness found with room for two open %v, with a small budget %v", obj, found[true], found[false])
		}
	}
}

// frontierReplay runs hist through the frontier alone, with its limits
// lowered (no look-ahead, and no confirmation by the kernel, which would
// hide a false violation of the fallback): it returns the step (calls
// and returns, from 1) of the first return after which no configuration
// is left, 0 when none, and whether exactness was lost. Operations
// pending to the end crash at their call, as CheckHistory has it.
func frontierReplay(t testing.TB, hist *h.History, open, budget int) (step int, lost bool) {
	init, hasInit := mustKernel(t, hist).InitialWrite()
	f := newFrontier(hist.Object, regState{init, hasInit}, hasInit)
	f.maxOpen, f.budget = open, budget
	serial := map[string]int{}
	n := 0
	for a := range actionSeq(hist) {
		n++
		switch a.Kind {
		case h.Call:
			serial[a.ID] = n
			f.call(n, a.Label, false, "")
			for i := range hist.Ops {
				if o := &hist.Ops[i]; o.ID == a.ID && o.Call == a.Seq && o.Pending() {
					f.abandon(n)
				}
			}
		case h.Return:
			// What degrade keeps: every state of before, but, after a
			// write or a successful compare-and-set, its state where
			// it had not taken effect (and, a hidden write, both).
			l := a.Label
			sets := l.Method == h.Write || l.Method == h.CAS && l.Ret == h.OK
			j, open := f.bySerial[serial[a.ID]]
			before, deg := map[uint32]bool{}, f.degraded
			for _, c := range f.confs {
				if sets && open && c.taken&(1<<j) == 0 {
					before[f.intern(regState{l.Arg, true})] = true
				}
				if !sets || !open || (c.taken|c.hide)&(1<<j) != 0 {
					before[c.st] = true
				}
			}
			if !f.ret(serial[a.ID], a.Label) {
				return n, f.lost != ""
			}
			if f.degraded == deg {
				break
			}
			after := map[uint32]bool{}
			for _, c := range f.confs {
				after[c.st] = true
			}
			for st := range before {
				if !after[st] {
					t.Fatalf("step %d (%v): degrade lost state %v\n%v", n, l, f.states[st], hist)
				}
			}
		}
	}
	return 0, f.lost != ""
}

// fallbackCase checks hist with the frontier's limits lowered and fails
// on a violation the exact verdict does not have, or reports earlier than
// the first violating prefix (a violation is proven at a return after
// which no linearization exists, never before). It returns whether the
// fallback found a violation and whether it lost exactness.
func fallbackCase(t *testing.T, hist *h.History, open, budget int, want Result, wantStep int, what string) (found, lost bool) {
	t.Helper()
	if step, _ := frontierReplay(t, hist, open, budget); step != 0 && (want.Verdict != Violation || step < wantStep) {
		t.Fatalf("%s: the frontier alone finds a false violation at step %d (limits %d open, %d configurations; exact: %v at %d)\n%v",
			what, step, open, budget, want.Verdict, wantStep, hist)
	}
	got := checkFrontLimits(hist, Options{Warn: io.Discard}, open, budget)
	switch {
	case got.Verdict == Violation && want.Verdict != Violation:
		t.Fatalf("%s: a false violation at step %d (limits %d open, %d configurations)\n%v", what, *got.ViolationStep, open, budget, hist)
	case got.Verdict == Violation && *got.ViolationStep < wantStep:
		t.Fatalf("%s: violation at step %d, before the first violating prefix %d\n%v", what, *got.ViolationStep, wantStep, hist)
	case got.Verdict == OK && want.Verdict == Violation && got.Exact:
		t.Fatalf("%s: an exact ok on a violation\n%v", what, hist)
	case got.Verdict != OK && got.Verdict != Violation:
		t.Fatalf("%s: %v %s", what, got.Verdict, got.Error)
	}
	return got.Verdict == Violation, !got.Exact
}

// Soundness of the fallback: small random histories of the three
// registers with the frontier's limits lowered (1–3 operations followed
// open at once, 1–40 configurations a return): never a violation the
// exact check does not have, never one before the first violating prefix. The test reports how many violations the
// fallback still finds.
func TestFrontierFallbackSound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 9))
	n := scale(1500)
	var viol, found, lost int
	for i := 0; i < n; i++ {
		obj := registerObjects[i%3]
		var hist *h.History
		if obj == h.StringRegister && i%2 == 0 {
			hist = repeatedStringHistory(rng, 9)
		} else {
			hist = frontierHistory(rng, obj, 9)
		}
		want := check(hist, Options{})
		if !want.Exact {
			t.Fatalf("history %d: the unlimited check is not exact", i)
		}
		step := 0
		if want.Verdict == Violation {
			step = *want.ViolationStep
			viol++
		}
		f, l := fallbackCase(t, hist, 1+rng.IntN(3), 1+rng.IntN(40), want, step, fmt.Sprintf("history %d", i))
		if f {
			found++
		}
		if l {
			lost++
		}
	}
	t.Logf("%d small histories: %d violations, the fallback found %d; exactness lost on %d", n, viol, found, lost)
	if lost == 0 {
		t.Fatal("the limits never made the frontier lose exactness")
	}

}

// The fallback's soundness on generated Jepsen histories with 10–16
// clients and :info crashes, checked with at most 8 operations followed
// open at once, or 20–220 configurations a return.
func TestFrontierFallbackSoundJepsen(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 10))
	m := scale(60)
	var jviol, jfound, jlost int
	for i := 0; i < m; i++ {
		cfg := gen.JepsenConfig{Ops: 100 + rng.IntN(100), Clients: 10 + rng.IntN(7), Values: 2 + rng.IntN(4),
			Reads: 0.5, CAS: []float64{0, 0.25}[i%2], Info: 0.05, Stale: i%3 == 0, Seed: rng.Int64()}
		if cfg.Stale {
			if err := gen.Jepsen(cfg, io.Discard); err != nil {
				cfg.Stale = false // no stale read could be placed
			}
		}
		hist := jepsenHistory(t, cfg)
		want := check(hist, Options{})
		if !want.Exact {
			// The unlimited check lost exactness: no reference.
			continue
		}
		step := 0
		if want.Verdict == Violation {
			step = *want.ViolationStep
			jviol++
		}
		open, budget := 8, 0
		if i%2 == 1 {
			open, budget = 0, 20+rng.IntN(200)
		}
		f, l := fallbackCase(t, hist, open, budget, want, step, fmt.Sprintf("jepsen %+v", cfg))
		if f {
			jfound++
		}
		if l {
			jlost++
		}
	}
	t.Logf("%d Jepsen histories (10-16 clients): %d violations, the fallback found %d; exactness lost on %d", m, jviol, jfound, jlost)
	if jlost == 0 {
		t.Fatal("the Jepsen histories never made the frontier lose exactness")
	}
}

// Hand-made linearizable histories whose returns under a tiny budget are
// an append, a failed compare-and-set and a read: the fallback knows the
// state after a write or a successful compare-and-set only, and must not
// claim to know it after these.
func TestFrontierFallbackSoundCases(t *testing.T) {
	t.Parallel()
	logs := []string{
		"# @object string-register\n[1] call put(a)\n[1] return\n[2] call append(b)\n[3] call append(c)\n[2] return\n[3] return\n[4] call get\n[4] return abc\n",
		"# @object string-register\n[1] call put(a)\n[2] call append(b)\n[3] call get\n[1] return\n[2] return\n[3] return ab\n[4] call get\n[4] return ab\n",
		"# @object cas-register 0\n[1] call write(1)\n[2] call cas(0, 2)\n[3] call cas(5, 3)\n[1] return\n[2] return fail\n[3] return fail\n[4] call read\n[4] return 1\n",
		"# @object cas-register 0\n[1] call cas(0, 1)\n[2] call cas(1, 2)\n[3] call read\n[1] return ok\n[2] return ok\n[3] return 1\n[4] call read\n[4] return 2\n",
		"# @object register 0\n[1] call write(1)\n[2] call read\n[3] call write(2)\n[2] return 0\n[1] return\n[3] return\n[4] call read\n[4] return 2\n",
		"# @object register 0\n[1] call write(1)\n[2] call read\n[2] return 0\n[3] call read\n[3] return 0\n[1] return\n",
		"# @object cas-register 0\n[1] call write(1)\n[2] call cas(5, 6)\n[2] return fail\n[3] call read\n[3] return 0\n[1] return\n",
	}
	for i, log := range logs {
		hist, want := linearizableCase(t, i, log)
		for open := 0; open <= 2; open++ {
			for budget := 0; budget <= 6; budget++ {
				fallbackCase(t, hist, open, budget, want, 0, fmt.Sprintf("case %d", i))
			}
		}
	}
}

// linearizableCase reads hand-made log i, which the exact check must find
// linearizable, and gives it with that check's result.
func linearizableCase(t *testing.T, i int, log string) (*h.History, Result) {
	t.Helper()
	hist, err := logfmt.ReadHistory(strings.NewReader(log), logfmt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := check(hist, Options{})
	if want.Verdict != OK || !want.Exact {
		t.Fatalf("case %d is not linearizable: %v", i, want.Verdict)
	}
	return hist, want
}
