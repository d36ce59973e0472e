package seqmodel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testutil"
)

// hand-made histories: name → log text and the expected verdict.
var handCases = []struct {
	name string
	want bool
	log  string
}{
	{"queue/fifo", true, `# @object queue
[1] call enqueue(a)
[1] return
[2] call enqueue(b)
[2] return
[3] call dequeue
[3] return a
[4] call dequeue
[4] return b
[5] call dequeue
[5] return empty`},
	{"queue/fifo-violation", false, `# @object queue
[1] call enqueue(a)
[1] return
[2] call enqueue(b)
[2] return
[3] call dequeue
[3] return b`},
	{"queue/overlapping-enqueues", true, `# @object queue
[1] call enqueue(a)
[2] call enqueue(b)
[1] return
[2] return
[3] call dequeue
[3] return b
[4] call dequeue
[4] return a`},
	{"queue/pending-enqueue-explains", true, `# @object queue
[1] call enqueue(a)
[2] call dequeue
[2] return a`},
	{"queue/pending-enqueue-too-late", false, `# @object queue
[2] call dequeue
[2] return a
[1] call enqueue(a)`},
	{"queue/empty-while-full", false, `# @object queue
[1] call enqueue(a)
[1] return
[2] call dequeue
[2] return empty`},
	{"queue/pending-dequeue-takes-a", true, `# @object queue
[1] call enqueue(a)
[1] return
[2] call enqueue(b)
[2] return
[3] call dequeue
[4] call dequeue
[4] return b`},
	{"queue/repeated-values", true, `# @object queue
[1] call enqueue(a)
[1] return
[2] call enqueue(a)
[2] return
[3] call dequeue
[3] return a
[4] call dequeue
[4] return a`},
	{"queue/double-dequeue", false, `# @object queue
[1] call enqueue(a)
[1] return
[3] call dequeue
[3] return a
[4] call dequeue
[4] return a`},
	{"stack/lifo", true, `# @object stack
[1] call push(a)
[1] return
[2] call push(b)
[2] return
[3] call pop
[3] return b
[4] call pop
[4] return a`},
	{"stack/lifo-violation", false, `# @object stack
[1] call push(a)
[1] return
[2] call push(b)
[2] return
[3] call pop
[3] return a`},
	{"stack/concurrent-pop", true, `# @object stack
[1] call push(a)
[1] return
[2] call pop
[3] call push(b)
[3] return
[2] return a
[4] call pop
[4] return b`},
	{"pqueue/max", true, `# @object pqueue
[1] call add(a, 1)
[1] return
[2] call add(b, 5)
[2] return
[3] call rem
[3] return b
[4] call rem
[4] return a`},
	{"pqueue/not-max", false, `# @object pqueue
[1] call add(a, 1)
[1] return
[2] call add(b, 5)
[2] return
[3] call rem
[3] return a`},
	{"pqueue/ties-any-order", true, `# @object pqueue
[1] call add(a, 3)
[1] return
[2] call add(b, 3)
[2] return
[3] call rem
[3] return b
[4] call rem
[4] return a`},
	{"pqueue/pending-higher", true, `# @object pqueue
[1] call add(a, 1)
[1] return
[2] call add(b, 5)
[3] call rem
[3] return a`},
	{"set/sequential", true, `# @object set
[1] call add(x)
[1] return true
[2] call add(x)
[2] return false
[3] call contains(x)
[3] return true
[4] call remove(x)
[4] return true
[5] call remove(x)
[5] return false
[6] call contains(x)
[6] return false`},
	{"set/double-insert", false, `# @object set
[1] call add(x)
[1] return true
[2] call add(x)
[2] return true`},
	{"set/pending-remove-explains", true, `# @object set
[1] call add(x)
[1] return true
[2] call remove(x)
[3] call add(x)
[3] return true`},
	{"set/contains-initially", false, `# @object set
[1] call contains(x)
[1] return true`},
	{"register/initial", true, `# @object register 0
[1] call read
[1] return 0
[2] call write(5)
[2] return
[3] call read
[3] return 5`},
	{"register/no-initial", false, `# @object register
[1] call read
[1] return 0`},
	{"register/stale", false, `# @object register
[1] call write(1)
[1] return
[2] call write(2)
[2] return
[3] call read
[3] return 1`},
	{"register/concurrent-write", true, `# @object register
[1] call write(1)
[1] return
[2] call write(2)
[3] call read
[3] return 1
[4] call read
[4] return 2
[2] return`},
	{"register/new-old-inversion", false, `# @object register
[1] call write(1)
[1] return
[2] call write(2)
[3] call read
[3] return 2
[4] call read
[4] return 1
[2] return`},
	{"register/pending-write", true, `# @object register
[1] call write(1)
[2] call read
[2] return 1`},
	{"lock/tagged", true, `# @object lock
[1] call lock(a)
[1] return
[2] call unlock
[2] return a
[3] call lock(b)
[3] return`},
	{"lock/wrong-tag", false, `# @object lock
[1] call lock(a)
[1] return
[2] call unlock
[2] return b`},
	{"lock/double-lock", false, `# @object lock
[1] call lock(a)
[1] return
[2] call lock(b)
[2] return`},
	{"lock/contended", true, `# @object lock
[1] call lock(a)
[2] call lock(b)
[1] return
[3] call unlock
[3] return a
[2] return`},
	{"lock/unlock-free", false, `# @object lock
[1] call unlock
[1] return`},
	{"lock/pending-unlock-explains", true, `# @object lock
[1] call lock(a)
[1] return
[2] call unlock
[3] call lock(b)
[3] return`},
	{"semaphore/two", true, `# @object semaphore 2
[1] call acquire(a)
[1] return
[2] call acquire(b)
[2] return
[3] call release
[3] return a
[4] call acquire(c)
[4] return`},
	{"semaphore/over-admit", false, `# @object semaphore 2
[1] call acquire(a)
[1] return
[2] call acquire(b)
[2] return
[3] call acquire(c)
[3] return`},
	{"semaphore/default-capacity-one", false, `# @object semaphore
[1] call acquire
[1] return
[2] call acquire
[2] return`},
	// The untagged release must give back a for the tagged release of b
	// to be possible: only branching on it finds the linearization.
	{"semaphore/untagged-then-tagged", true, `# @object semaphore 2
[1] call acquire(a)
[1] return
[2] call acquire(b)
[2] return
[3] call release
[3] return
[4] call release
[4] return b`},
	{"semaphore/untagged-then-tagged-twice", false, `# @object semaphore 2
[1] call acquire(a)
[1] return
[2] call acquire(b)
[2] return
[3] call release
[3] return
[4] call release
[4] return b
[5] call release
[5] return b`},
	{"semaphore/release-free", false, `# @object semaphore 2
[1] call release
[1] return`},
	{"exchanger/pair", true, `# @object exchanger
[1] call exchange(a)
[2] call exchange(b)
[1] return b
[2] return a`},
	{"exchanger/sequential-pair", false, `# @object exchanger
[1] call exchange(a)
[1] return b
[2] call exchange(b)
[2] return a`},
	{"exchanger/timeout", true, `# @object exchanger
[1] call exchange(a)
[1] return null`},
	{"exchanger/self", false, `# @object exchanger
[1] call exchange(a)
[1] return a`},
	{"exchanger/three-way", false, `# @object exchanger
[1] call exchange(a)
[2] call exchange(b)
[3] call exchange(c)
[1] return b
[2] return a
[3] return a`},
	{"exchanger/pending-partner", true, `# @object exchanger
[1] call exchange(a)
[2] call exchange(b)
[1] return b`},
	{"exchanger/asymmetric", false, `# @object exchanger
[1] call exchange(a)
[2] call exchange(b)
[1] return b
[2] return null`},
}

func TestHandMade(t *testing.T) {
	for _, c := range handCases {
		t.Run(c.name, func(t *testing.T) {
			h := parseLog(t, c.log)
			if got := Linearizable(h); got != c.want {
				t.Errorf("Linearizable = %v, want %v for %s", got, c.want, h)
			}
		})
	}
}

// TestTestdata checks the oracle against the verdicts written into the
// bundled testdata logs.
func TestTestdata(t *testing.T) {
	for _, c := range testutil.Cases(t) {
		name := filepath.Base(filepath.Dir(c.Path)) + "/" + filepath.Base(c.Path)
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(c.Path)
			if err != nil {
				t.Fatal(err)
			}
			h, err := parseLogErr(string(b))
			if err != nil {
				t.Skipf("not readable by the test's mini parser: %v", err)
			}
			if got, want := Linearizable(h), c.Expect == "ok"; got != want {
				t.Errorf("Linearizable = %v, want %v (expect: %s)", got, want, c.Expect)
			}
		})
	}
}

func TestCheckPrefixes(t *testing.T) {
	h := parseLog(t, `# @object queue
[1] call enqueue(a)
[1] return
[2] call enqueue(b)
[2] return
[3] call dequeue
[4] call dequeue
[4] return b
[3] return a
[5] call dequeue
[5] return a`)
	// Action 6 ([4] return b) is explained by [3] dequeuing a; action 9
	// ([5] return a) dequeues a second a.
	if got := CheckPrefixes(h); got != 9 {
		t.Errorf("CheckPrefixes = %d, want 9", got)
	}
	h = parseLog(t, `# @object stack
[1] call push(a)
[1] return
[2] call pop
[2] return b
[3] call push(b)
[3] return`)
	if got := CheckPrefixes(h); got != 3 {
		t.Errorf("CheckPrefixes = %d, want 3", got)
	}
	if got := CheckPrefixes(parseLog(t, handCases[0].log)); got != -1 {
		t.Errorf("CheckPrefixes of a linearizable history = %d, want -1", got)
	}
}

func TestModelStep(t *testing.T) {
	m := New(history.Register, "")
	if m.Step(history.Label{Method: history.Read, Ret: "0"}) {
		t.Error("read of an unwritten register accepted")
	}
	if !m.Step(history.Label{Method: history.Write, Arg: "7"}) || !m.Step(history.Label{Method: history.Read, Ret: "7"}) {
		t.Error("write(7); read ⇒ 7 rejected")
	}
	q := New(history.Queue, "")
	q.Step(history.Label{Method: history.Add, Arg: "a"})
	c := q.Clone()
	if !c.Step(history.Label{Method: history.Rem, Ret: "a"}) {
		t.Fatal("clone lost the element")
	}
	if !q.Step(history.Label{Method: history.Rem, Ret: "a"}) {
		t.Error("stepping the clone changed the original")
	}
	if q.Step(history.Label{Method: history.Rem, Ret: "a", Pending: true}) {
		t.Error("pending label accepted")
	}
	if New(history.Exchanger, "") != nil {
		t.Error("the exchanger has no sequential model")
	}
	s := New(history.Semaphore, "3")
	for _, tag := range []history.Value{"a", "b", "a"} {
		if !s.Step(history.Label{Method: history.Acquire, Arg: tag}) {
			t.Fatalf("acquire(%s) rejected below capacity", tag)
		}
	}
	if s.Step(history.Label{Method: history.Acquire, Arg: "c"}) {
		t.Error("fourth acquire accepted at capacity 3")
	}
	if got := len(s.Steps(history.Label{Method: history.Release})); got != 2 {
		t.Errorf("untagged release with a, b, a held has %d successors, want 2 (one per distinct tag)", got)
	}
}

// TestGeneratedLinearizable: an unmutated generated history is always
// linearizable.
func TestGeneratedLinearizable(t *testing.T) {
	for _, obj := range history.Objects {
		for seed := int64(0); seed < 40; seed++ {
			cfg := gen.Config{Object: obj, Ops: 9, Concurrency: 1 + int(seed%4), Pending: int(seed % 3), Capacity: int(seed % 3), Seed: seed}
			cfg.Pending = min(cfg.Pending, cfg.Concurrency)
			h, err := gen.History(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !Linearizable(h) {
				t.Fatalf("%+v: generated history not linearizable:\n%s", cfg, strings.ReplaceAll(h.String(), "; ", "\n"))
			}
		}
	}
}
