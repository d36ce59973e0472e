package engine

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/testhist"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testutil"
)

// Every violation SATURATE finds without -r it also finds with -r, on the
// bundled histories and the paper's; -r never reports a violation on an
// ok one.
func TestRemovalKeepsDetections(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for _, c := range testutil.Cases(t) {
		files[c.Path] = c.Expect
	}
	if dir := paperDir(t); dir != "" {
		for _, v := range testutil.PaperVerdicts(t, dir) {
			files[filepath.Join(dir, v.Path)] = v.Verdict
		}
	}
	withR := Options{Algorithm: Saturate, RemoveObsolete: true}
	lost := 0
	for path, want := range files {
		plain := checkFile(t, path, Options{Algorithm: Saturate})
		r := checkFile(t, path, withR)
		if r.Verdict == Violation && want == "ok" {
			t.Errorf("%s: FALSE VIOLATION with -r", path)
		}
		if plain.Verdict == Violation && r.Verdict != Violation {
			lost++
			t.Errorf("%s: saturate finds a violation at step %d, saturate -r finds none", path, *plain.ViolationStep)
		}
	}
	t.Logf("%d histories, %d detections lost", len(files), lost)
}

// Figure 11 (Example 5.8): the violation survives -r.
func TestFigure11WithRemoval(t *testing.T) {
	for _, f := range []string{"figure11-h1.log", "figure11-h2.log"} {
		res := checkFile(t, filepath.Join(testutil.Root(t), "testdata", "stack", f), Options{Algorithm: Saturate, RemoveObsolete: true})
		if res.Verdict != Violation {
			t.Errorf("%s: saturate -r says %s", f, res.Verdict)
		}
	}
}

// paperDir is the paper histories' directory, or "" (with a log line)
// when absent: these tests still run on testdata alone.
func paperDir(t *testing.T) string {
	var dir string
	ok := t.Run("paper-histories", func(t *testing.T) { dir = testutil.PaperHistories(t) })
	if !ok || dir == "" || strings.Contains(dir, "\x00") {
		return ""
	}
	return dir
}

// The cap on operations waiting for quiescence (remover.maxWait) forgets
// matches while a pending operation still overlaps them. Pushed to its
// extreme (no waiting operation, or one), it must still never report a
// violation that ENUMERATE -c does not confirm at the same step or
// earlier, on random histories with pending operations, injected faults
// and repeated tags; and it must actually act.
func TestForcedRemovalSound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 6))
	n := scale(1500)
	forced, viol := 0, 0
	for i := 0; i < n; i++ {
		obj := h.Objects[i%len(h.Objects)]
		hist := testhist.RandomHistory(rng, obj, 9)
		var oracle exactOracle
		for _, opt := range []tuned{
			{Options{Algorithm: Saturate, RemoveObsolete: true}, tuning{maxWait: -1}},
			{Options{Algorithm: Saturate, RemoveObsolete: true}, tuning{maxWait: 1}},
			{Options{Algorithm: Symbolic, RemoveObsolete: true}, tuning{maxWait: -1}},
		} {
			got := checkTuned(hist, opt)
			forced += got.Stats.ForcedRemovals
			if oracle.confirm(t, i, hist, got, fmt.Sprintf("%s (wait cap %d)", opt.Name(), max(opt.maxWait, 0))) {
				viol++
			}
		}
	}
	if forced == 0 || viol == 0 {
		t.Fatalf("forced removals %d, violations %d: the test tests nothing", forced, viol)
	}
	t.Logf("%d histories, %d forced removals, %d violations confirmed", n, forced, viol)
}

// One stalled enqueue overlapping a thousand completed enqueue/dequeue
// pairs: without the cap every pair stays in the window; with it the
// window stays near the cap, and the log is still found linearizable.
func TestStalledOperationWindow(t *testing.T) {
	log := stalledQueueLog("[s] call enqueue(s)\n", "[s] return\n[z] call dequeue\n[z] return s\n")
	for _, c := range []struct {
		cap      int
		min, max int // bounds on the largest window
	}{{1 << 30, 2000, 3000}, {0, 0, 2*defaultMaxWait + 8}} {
		r, err := checkLogTuned(strings.NewReader(log), "stall", tuned{Options{Algorithm: Saturate, RemoveObsolete: true}, tuning{maxWait: c.cap}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != OK {
			t.Errorf("cap %d: verdict %s, want ok", c.cap, r.Verdict)
		}
		if w := r.Stats.MaxWindow; w < c.min || w > c.max {
			t.Errorf("cap %d: largest window %d, want within [%d,%d]", c.cap, w, c.min, c.max)
		}
	}
}

// The history on which TestForcedRemovalSound found a false violation:
// the pair acquire(2)@0-1, release ⇒ 2@7-11 was forgotten while the
// acquire(2)@9-13 that makes tag 2 repeated was still pending.
func TestForcedRemovalPendingSameTag(t *testing.T) {
	t.Parallel()
	const log = `# @object atomic-semaphore 2
[5] call acquire(2)
[5] return
[9] call release
[9] return
[4] call release
[1] call release
[8] call acquire(0)
[2] call release
[1] return
[3] call acquire(2)
[6] call acquire(2)
[2] return 2
[8] return
[3] return
[4] return
[6] return
[7] call release
[7] return
`
	want, err := CheckLog(strings.NewReader(log), "sem", 0, "", enumC)
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []tuned{
		{Options{Algorithm: Saturate, RemoveObsolete: true}, tuning{maxWait: -1}},
		{Options{Algorithm: Symbolic, RemoveObsolete: true}, tuning{maxWait: -1}},
	} {
		got, err := checkLogTuned(strings.NewReader(log), "sem", opt)
		if err != nil {
			t.Fatal(err)
		}
		if got.Verdict == Violation && (want.Verdict != Violation || *got.ViolationStep < *want.ViolationStep) {
			t.Errorf("%s with a wait cap of 0: violation at step %d; enumerate -c: %s at %v",
				opt.Name(), *got.ViolationStep, want.Verdict, testhist.Step(want.ViolationStep))
		}
	}
}

// SYMBOLIC -i -r forgets by rebuilding its solver from the window: it
// must be sound, never a violation that ENUMERATE -c does not confirm at
// the same step or earlier.
func TestSymbolicForgettingSound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 8))
	n := scale(600)
	viol := 0
	for i := 0; i < n; i++ {
		obj := h.Objects[i%len(h.Objects)]
		hist := testhist.RandomHistory(rng, obj, 9)
		var oracle exactOracle
		got := check(hist, Options{Algorithm: Symbolic, Incremental: true, RemoveObsolete: true})
		if oracle.confirm(t, i, hist, got, "symbolic -i -r") {
			viol++
		}
	}
	if viol == 0 {
		t.Fatal("no violation: the test tests nothing")
	}
	t.Logf("%d histories, %d violations confirmed", n, viol)
}

// A pair held back by a pending operation of the same tag keeps waiting,
// but does not hold back the pairs behind it: with a stalled enqueue(x)
// and a completed enqueue(x)/dequeue ⇒ x first in line, the window still
// stays near the cap.
func TestStalledSameTagHoldsOnlyItsPair(t *testing.T) {
	log := stalledQueueLog("[s] call enqueue(x)\n[a] call enqueue(x)\n[a] return\n[r] call dequeue\n[r] return x\n",
		"[s] return\n[z] call dequeue\n[z] return x\n")
	r, err := CheckLog(strings.NewReader(log), "stall", 0, "", Options{Algorithm: Saturate, RemoveObsolete: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != OK || r.Stats.MaxWindow > 2*defaultMaxWait+8 {
		t.Errorf("verdict %s (want ok), largest window %d (want at most %d)", r.Verdict, r.Stats.MaxWindow, 2*defaultMaxWait+8)
	}
}

// stalledQueueLog is a queue log of head, then 1,000 sequential
// enqueue/dequeue pairs of distinct values, then tail.
func stalledQueueLog(head, tail string) string {
	var b strings.Builder
	b.WriteString("# @object atomic-queue\n" + head)
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "[a%d] call enqueue(%d)\n[a%d] return\n[r%d] call dequeue\n[r%d] return %d\n", i, i, i, i, i, i)
	}
	b.WriteString(tail)
	return b.String()
}

// TestRemovalKeepsListsLive checks, after every step of SATURATE -r on
// generated histories of every object, that the encoder's partner,
// overlap and order lists name only live operations, symmetrically: Remove
// filters only the lists of operations related to a forgotten one, which
// is complete only if that holds.
func TestRemovalKeepsListsLive(t *testing.T) {
	t.Parallel()
	for _, obj := range h.Objects {
		removed := 0
		// scale(3) seeds, and more while none has forgotten anything (with
		// seed 1 alone -r forgets no semaphore operation).
		for seed := int64(1); seed <= 3 && (seed <= int64(scale(3)) || removed == 0); seed++ {
			m, err := New(obj, "", Options{Algorithm: Saturate, RemoveObsolete: true})
			if err != nil {
				t.Fatal(err)
			}
			enc := m.chk.(*satChecker).enc
			steps := 0
			conc := 6
			if obj == h.StringRegister {
				// -r forgets only gets whose string a put fixes by
				// real time (remover.implied): with six threads,
				// none in these logs.
				conc = 2
			}
			err = gen.Generate(gen.Config{Object: obj, Ops: 400, Concurrency: conc, Capacity: 8, Seed: seed}, func(a h.Action) error {
				steps++
				if _, err := m.Step(a); err != nil {
					return err
				}
				return enc.CheckWindow()
			})
			if err != nil {
				t.Fatalf("%v seed %d, step %d: %v", obj, seed, steps, err)
			}
			removed += m.removed
		}
		if removed == 0 {
			t.Fatalf("%v: nothing removed; the test tests nothing", obj)
		}
	}
}

// TestStalledOperationMemory: with one enqueue stalled pending, the memory
// SATURATE -r keeps must not grow with the log. (Owned-variable lists were
// kept in a table by serial that could only drop its oldest entries, so
// the stalled operation pinned every later entry: 24 bytes per operation,
// 103 MB of peak RSS for a million operations.) The actions are made on
// the fly, and the live heap after 10,000 and after 80,000 completed pairs
// is compared.
func TestStalledOperationMemory(t *testing.T) {
	m, step := queueStepper(t)
	heap := func() int64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	step(h.Call, "s", h.Label{Method: h.Add, Arg: "s"})
	var at10k int64
	for i := 0; i < 80000; i++ {
		v := h.Value(strconv.Itoa(i))
		step(h.Call, "a", h.Label{Method: h.Add, Arg: v})
		step(h.Return, "a", h.Label{Method: h.Add, Arg: v, Ret: h.Void})
		step(h.Call, "r", h.Label{Method: h.Rem})
		step(h.Return, "r", h.Label{Method: h.Rem, Ret: v})
		if i == 10000 {
			at10k = heap()
		}
	}
	grown := heap() - at10k
	runtime.KeepAlive(m) // else the monitor is garbage before the last heap()
	t.Logf("live heap: %d KB after 10,000 pairs, grown %d KB over the next 70,000", at10k>>10, grown>>10)
	if grown > 512<<10 {
		t.Errorf("live heap grew %d KB over 70,000 pairs with one operation stalled; want it bounded", grown>>10)
	}
}

// Operations that leave the state alone are forgotten only where real
// time implies what they saw (remover.implied). Each log's violation
// needs such an operation after it became quiet: forgetting it (as -r
// once did, SATURATE and SYMBOLIC alike) lost the violation. Found by
// TestRepeatedValuesSound; ENUMERATE -c confirms each.
func TestForgetObserverKeepsViolation(t *testing.T) {
	logs := map[string]string{
		// contains ⇒ true puts add(3) before the later contains ⇒ false,
		// which add(3) overlaps.
		"set": `# @object atomic-set
[1] call contains(3)
[2] call add(3)
[1] return true
[3] call contains(3)
[2] return true
[3] return false
`,
		// read ⇒ 2 puts write(2) before the later read ⇒ 0.
		"register-future": `# @object atomic-register 0
[1] call write(2)
[2] call read
[2] return 2
[3] call read
[4] call read
[1] return
[4] return 0
`,
		// the reads of 2 tell that write(2) is after write(1): the
		// later read ⇒ 1 is impossible.
		"register-state": `# @object atomic-register 0
[2] call write(0)
[3] call write(1)
[2] return
[1] call write(2)
[3] return
[1] return
[4] call read
[5] call read
[4] return 2
[5] return 2
[6] call read
[7] call read
[8] call write(2)
[7] return 1
[8] return
`,
		// write(1) separates the initial write from read ⇒ 0, which must
		// read write(0): forgetting write(1) (overwritten by write(0))
		// while the initial write stays let the read see the initial 0.
		"register-repeated": `# @object atomic-register 0
[3] call write(1)
[3] return
[5] call write(0)
[4] call read
[4] return 0
[2] call write(2)
[5] return
[6] call write(1)
[2] return
[1] call read
[6] return
[1] return 0
`,
	}
	run := func(name, log string, opt Options) Result {
		res, err := CheckLog(strings.NewReader(log), name, h.NoObject, "", opt)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for name, log := range logs {
		if res := run(name, log, Options{Algorithm: Enumerate, Completion: true}); res.Verdict != Violation {
			t.Fatalf("%s: ENUMERATE -c says %s: the log was meant to be a violation", name, res.Verdict)
		}
		for _, opt := range []Options{
			{Algorithm: Saturate}, {Algorithm: Symbolic}, {Algorithm: Symbolic, Incremental: true},
		} {
			plain := run(name, log, opt)
			opt.RemoveObsolete = true
			if r := run(name, log, opt); plain.Verdict == Violation && r.Verdict != Violation {
				t.Errorf("%s: %s finds %s, without -r a violation at step %d", name, opt.Name(), r.Verdict, *plain.ViolationStep)
			}
		}
	}
}

// The one violation of TestRepeatedValuesSound's long run (50,400
// histories) that SATURATE -r missed although SATURATE found it: lock(3)
// is never unlocked, so lock(5) can never be taken. The pair of token 2
// is forgotten when lock(4) returns (a quiet match, Corollary 3); it was
// a possible witness of "lock(3) before lock(4) needs an unlock of 3
// between them". When a forgotten witness dropped its instance, unit
// propagation on the window -r leaves lacked that instance. With
// encode.ClosedRemoval the forgotten witness is false instead, as in the
// smaller history the window stands for, and SATURATE -r finds the
// violation where SATURATE does.
func TestClosedRemovalKeepsDetection(t *testing.T) {
	const log = `# @object atomic-lock
[1] call unlock
[2] call lock(1)
[3] call lock(2)
[2] return
[1] return 1
[4] call lock(4)
[5] call unlock
[3] return
[5] return 2
[6] call lock(3)
[7] call unlock
[6] return
[4] return
[8] call lock(5)
[9] call unlock
[7] return 4
[8] return
[9] return 5
`
	for _, opt := range []Options{
		{Algorithm: Enumerate, Completion: true}, {Algorithm: Saturate},
		{Algorithm: Symbolic, RemoveObsolete: true}, {Algorithm: Symbolic, Incremental: true, RemoveObsolete: true},
		{Algorithm: Saturate, RemoveObsolete: true},
	} {
		res, err := CheckLog(strings.NewReader(log), "lock", h.NoObject, "", opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != Violation || *res.ViolationStep != 18 {
			t.Errorf("%s: %s at %v, want a violation at step 18", opt.Name(), res.Verdict, testhist.Step(res.ViolationStep))
		}
	}
	// The detection must come with the pair forgotten, not because -r
	// stopped forgetting it.
	res, _ := CheckLog(strings.NewReader(log), "lock", h.NoObject, "", Options{Algorithm: Saturate, RemoveObsolete: true})
	if res.Stats.Removed == 0 {
		t.Errorf("saturate -r forgot nothing: the test no longer exercises removal")
	}
}

// queueStepper is a queue's SATURATE -r monitor and a function that
// steps it with one action, numbered in turn, failing the test on an
// error or a violation.
func queueStepper(t *testing.T) (*Monitor, func(kind h.Kind, id string, l h.Label)) {
	t.Helper()
	m, err := New(h.Queue, "", Options{Algorithm: Saturate, RemoveObsolete: true})
	if err != nil {
		t.Fatal(err)
	}
	seq := 0
	return m, func(kind h.Kind, id string, l h.Label) {
		t.Helper()
		seq++
		if v, err := m.Step(h.Action{Kind: kind, ID: id, Label: l, Seq: seq, Line: seq}); err != nil || v {
			t.Fatalf("action %d: violation %v, err %v", seq, v, err)
		}
	}
}
