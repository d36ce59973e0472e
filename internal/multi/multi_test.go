package multi

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/testhist"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
)

// namedHist is one object of a generated log of many objects.
type namedHist struct {
	name string
	hist *h.History
}

// interleaveLog writes the objects' histories as one native log of named
// objects, interleaving their actions at random while keeping each
// object's own order: the sub-history of each object is its history.
func interleaveLog(rng *rand.Rand, objs []namedHist) string {
	var b []byte
	queues := make([][]h.Action, len(objs))
	for i, o := range objs {
		b = logfmt.AppendDecl(b, o.name, o.hist.Object, o.hist.Param)
		b = append(b, '\n')
		queues[i] = engine.Actions(o.hist)
	}
	var left []int
	for i := range queues {
		if len(queues[i]) > 0 {
			left = append(left, i)
		}
	}
	for len(left) > 0 {
		k := rng.IntN(len(left))
		i := left[k]
		a := queues[i][0]
		queues[i] = queues[i][1:]
		a.ID = objs[i].name + ":" + a.ID
		b = logfmt.AppendNamedAction(b, objs[i].name, objs[i].hist.Object, a)
		b = append(b, '\n')
		if len(queues[i]) == 0 {
			left[k] = left[len(left)-1]
			left = left[:len(left)-1]
		}
	}
	return string(b)
}

func checkText(t *testing.T, text string, opt MultiOptions) LogResult {
	t.Helper()
	res, err := CheckMulti(context.Background(), strings.NewReader(text), logfmt.Native, logfmt.Options{Name: "multi.log"}, opt, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return res
}

func byName(res LogResult) map[string]ObjectResult {
	m := map[string]ObjectResult{}
	for _, o := range res.Objects {
		m[o.Name] = o
	}
	return m
}

// Locality (Herlihy and Wing): on random logs of 2 to 5 objects of mixed
// kinds, interleaved, the verdict and violation step of each object under
// ENUMERATE -c through CheckMulti — sharded over 1 to 3 workers, idle
// monitors dropped and recreated or parked and replayed — equal ENUMERATE -c on the object's
// sub-history alone, and the log's verdict is a violation iff some
// object's is. SATURATE through CheckMulti is sound: every violation it
// reports is confirmed by ENUMERATE -c on the sub-history, at that step
// or earlier.
func TestLocalityDifferential(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(16, 16))
	n := scale(2000)
	restarts, parked, violations, objects, satFound := 0, 0, 0, 0, 0
	for i := 0; i < n; i++ {
		k := 2 + rng.IntN(4)
		objs := make([]namedHist, k)
		want := map[string]engine.Result{}
		anyViolation := false
		for j := range objs {
			obj := h.Objects[rng.IntN(len(h.Objects))]
			objs[j] = namedHist{name: fmt.Sprintf("o%d", j), hist: testhist.RandomHistory(rng, obj, 6)}
			want[objs[j].name] = check(objs[j].hist, enumC)
			if want[objs[j].name].Verdict == engine.Violation {
				anyViolation = true
				violations++
			}
		}
		objects += k
		text := interleaveLog(rng, objs)
		workers := 1 + i%3
		got := checkText(t, text, MultiOptions{Options: enumC, Workers: workers, parkAfter: 1 + i%4, dropAfter: []int{1, 3, defaultDropAfter}[i/3%3]})
		parked += got.Parked
		if (got.Verdict == engine.Violation) != anyViolation || got.Verdict != engine.Violation && got.Verdict != engine.OK {
			t.Fatalf("log %d: verdict %s, want violation=%v\n%s", i, got.Verdict, anyViolation, text)
		}
		g := byName(got)
		for name, w := range want {
			o, ok := g[name]
			if !ok {
				t.Fatalf("log %d: no verdict for object %s\n%s", i, name, text)
			}
			restarts += o.Restarts
			if o.Verdict != w.Verdict || w.Verdict == engine.Violation && *o.ViolationStep != *w.ViolationStep {
				t.Fatalf("log %d, object %s (%s): CheckMulti says %s at %v, ENUMERATE -c on the sub-history %s at %v\n%s",
					i, name, o.Object, o.Verdict, deref(o.ViolationStep), w.Verdict, deref(w.ViolationStep), text)
			}
		}
		sat := checkText(t, text, MultiOptions{Options: engine.Options{Algorithm: engine.Saturate}, Workers: workers})
		for name, o := range byName(sat) {
			if o.Verdict != engine.Violation {
				continue
			}
			satFound++
			if w := want[name]; w.Verdict != engine.Violation || *o.ViolationStep < *w.ViolationStep {
				t.Fatalf("FALSE VIOLATION: log %d, object %s: saturate says violation at %d, ENUMERATE -c %s at %v\n%s",
					i, name, *o.ViolationStep, w.Verdict, deref(w.ViolationStep), text)
			}
		}
	}
	if restarts == 0 || parked == 0 || violations == 0 {
		t.Fatalf("%d restarts, %d parked and %d violations: the test tests nothing", restarts, parked, violations)
	}
	t.Logf("%d logs, %d objects, %d object violations (saturate found %d), %d idle monitors dropped and recreated, %d parked", n, objects, violations, satFound, restarts, parked)
}

// Dropping idle monitors is what the differential above exercises on
// small logs; here, long generated logs whose objects end idle (gen's
// Drain) keep few monitors alive whatever the number of objects, and the
// verdicts are those of the objects' histories checked alone, with and
// without dropping.
func TestIdleObjectsDropped(t *testing.T) {
	// The compare-and-set and string registers have no drop rule (they
	// are parked instead; parking is tested above).
	var kinds []h.Object
	for _, k := range h.Objects {
		if k != h.CASRegister && k != h.StringRegister {
			kinds = append(kinds, k)
		}
	}
	var specs []gen.ObjectSpec
	for i := 0; i < 300; i++ {
		cfg := gen.Config{Object: kinds[i%len(kinds)], Ops: 12, Concurrency: 3, Seed: int64(i), Drain: true, Values: i % 3}
		if i%7 == 3 {
			cfg.Mutate = 1
		}
		specs = append(specs, gen.ObjectSpec{Name: fmt.Sprintf("x%d", i), Config: cfg})
	}
	var b []byte
	err := gen.Interleave(specs, 8, 1, func(e gen.MultiEvent) error {
		s := specs[e.Object]
		if e.Declare {
			b = logfmt.AppendDecl(b, s.Name, s.Config.Object, s.Config.Param())
		} else {
			b = logfmt.AppendNamedAction(b, s.Name, s.Config.Object, e.Action)
		}
		b = append(b, '\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	drop := checkText(t, text, MultiOptions{Options: engine.Options{Algorithm: engine.Saturate}, Workers: 2, dropAfter: 1})
	keep := checkText(t, text, MultiOptions{Options: engine.Options{Algorithm: engine.Saturate}, Workers: 2, KeepIdle: true})
	if drop.MaxLive > 40 || keep.MaxLive < 200 {
		t.Errorf("most monitors alive: %d when dropping idle ones, %d when keeping all; want ≤ 40 and ≥ 200 (all but those a violation ended)", drop.MaxLive, keep.MaxLive)
	}
	if drop.Dropped < 250 {
		t.Errorf("only %d of 300 drained objects dropped", drop.Dropped)
	}
	k := byName(keep)
	for _, o := range drop.Objects {
		alone, err := gen.History(specs[indexOf(specs, o.Name)].Config)
		if err != nil {
			t.Fatal(err)
		}
		w := check(alone, engine.Options{Algorithm: engine.Saturate})
		if o.Verdict != w.Verdict || o.Verdict != k[o.Name].Verdict || o.Steps != k[o.Name].Steps && o.Verdict == engine.OK {
			t.Fatalf("object %s: %s after %d steps when dropping, %s when keeping, %s alone", o.Name, o.Verdict, o.Steps, k[o.Name].Verdict, w.Verdict)
		}
	}
	t.Logf("%d objects, %d steps: %d monitors dropped, at most %d alive (%d when none is dropped); verdict %s",
		len(drop.Objects), drop.Steps, drop.Dropped, drop.MaxLive, keep.MaxLive, drop.Verdict)
}

func indexOf(specs []gen.ObjectSpec, name string) int {
	for i, s := range specs {
		if s.Name == name {
			return i
		}
	}
	return -1
}

// A violation is reported while the log is still being written: the
// driver hands its events to the workers before it waits for more input.
func TestMultiStreams(t *testing.T) {
	pr, pw := io.Pipe()
	found := make(chan ObjectResult, 1)
	done := make(chan LogResult, 1)
	go func() {
		res, _ := CheckMulti(context.Background(), pr, logfmt.Auto, logfmt.Options{Name: "pipe"},
			MultiOptions{Options: engine.Options{Algorithm: engine.Saturate}, Workers: 2}, func(o ObjectResult) { found <- o })
		done <- res
	}()
	io.WriteString(pw, "# @object a queue\n# @object b stack\n[1] call a.enqueue(1)\n[1] return\n[2] call b.push(1)\n[2] return\n[3] call a.dequeue\n[3] return 2\n")
	o := <-found // blocks until the violation is reported, with the pipe still open
	if o.Name != "a" || o.Verdict != engine.Violation || o.ViolationLine != 8 {
		t.Fatalf("streamed %+v, want the violation of a at line 8", o)
	}
	io.WriteString(pw, "[4] call b.pop\n[4] return 1\n")
	pw.Close()
	res := <-done
	if res.Verdict != engine.Violation || len(res.Objects) != 2 || byName(res)["b"].Verdict != engine.OK || res.Steps != 8 {
		t.Fatalf("log result %+v", res)
	}
}

// The register's idle rule: a monitor is dropped only when one write is
// known to be the last, and the next monitor starts from its value; two
// overlapping writes leave the value open, and the monitor stays.
func TestRegisterIdleRule(t *testing.T) {
	log := `# @object r register 0
[1] call r.write(1)
[2] call r.write(2)
[1] return
[2] return
[3] call r.read
[3] return 1
[4] call r.read
[4] return 1
[5] call r.write(3)
[5] return
[6] call r.read
[6] return 3
`
	res := checkText(t, log, MultiOptions{Options: enumC, Workers: 1, dropAfter: 1})
	if res.Verdict != engine.OK {
		t.Fatalf("verdict %s, want ok", res.Verdict)
	}
	// Dropped once, after write(3) alone; not after the overlapping
	// writes (a drop there with value 2 would make read ⇒ 1 a violation).
	if res.Dropped != 2 {
		t.Errorf("dropped %d times, want 2 (after write(3), after read ⇒ 3)", res.Dropped)
	}
	bad := strings.Replace(log, "[6] return 3", "[6] return 1", 1)
	res = checkText(t, bad, MultiOptions{Options: enumC, Workers: 1, dropAfter: 1})
	if res.Verdict != engine.Violation || res.ViolationLine != 13 {
		t.Fatalf("verdict %s at line %d, want violation at 13", res.Verdict, res.ViolationLine)
	}
}

// A deadline stops the whole log: it is not read further, objects not
// yet decided say timeout, and so does the log.
func TestMultiTimeout(t *testing.T) {
	pr, pw := io.Pipe()
	done := make(chan LogResult, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		res, _ := CheckMulti(ctx, pr, logfmt.Native, logfmt.Options{Name: "pipe"},
			MultiOptions{Options: engine.Options{Algorithm: engine.Saturate}, Workers: 2}, nil)
		done <- res
	}()
	io.WriteString(pw, "# @object a queue\n# @object b queue\n[1] call a.enqueue(1)\n[1] return\n")
	cancel()
	go func() {
		// The checker stops reading at the deadline; this write may never
		// be read, and pr.Close below releases it.
		io.WriteString(pw, "[2] call b.dequeue\n[2] return 1\n")
		pw.Close()
	}()
	res := <-done
	pr.Close()
	if res.Verdict != engine.Timeout {
		t.Fatalf("log %s, want timeout", res.Verdict)
	}
	for _, o := range res.Objects {
		if o.Verdict != engine.Timeout {
			t.Fatalf("object %s: %s, want timeout", o.Name, o.Verdict)
		}
	}
}

// The drop rule of the compare-and-set and string registers (idleState):
// on random histories of either, with quiescent points, CheckMulti under
// ENUMERATE -c — dropping idle monitors and starting the next from the
// state reached, through a synthetic initial write — gives the verdict and
// violation step of ENUMERATE -c on the whole sub-history, and SATURATE -r
// through CheckMulti reports no violation ENUMERATE -c does not (nor an
// earlier one). Each history shares its log with a queue, so that drops
// and parking of two objects interleave.
func TestRMWRegisterDrops(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 3))
	n := scale(1500)
	var restarts, seeded, violations, satFound, slow int
	for i := 0; i < n; i++ {
		kind := []h.Object{h.CASRegister, h.StringRegister}[i%2]
		cfg := gen.Config{Object: kind, Ops: 4 + rng.IntN(5), Concurrency: 1 + rng.IntN(3), Seed: rng.Int64(),
			Mutate: rng.IntN(3), Pending: rng.IntN(2)}
		hist, err := gen.History(cfg)
		if err != nil {
			t.Fatal(err)
		}
		// Repeated values make ENUMERATE's matchings many: a few
		// histories take it minutes, and are left out (counted).
		exact := enumC
		exact.Timeout = 5 * time.Second
		want := check(hist, exact)
		if want.Verdict == engine.Timeout {
			slow++
			continue
		}
		if want.Verdict == engine.Violation {
			violations++
		}
		other := testhist.RandomHistory(rng, h.Queue, 5)
		text := interleaveLog(rng, []namedHist{{"r", hist}, {"q", other}})
		got := checkText(t, text, MultiOptions{Options: exact, Workers: 1 + i%2, parkAfter: 1 + i%3, dropAfter: []int{1, 1, 1, 9}[i/6%4]})
		if got.Verdict == engine.Timeout {
			slow++
			continue
		}
		seeded += got.seeded
		o := byName(got)["r"]
		if o.Verdict == engine.Timeout {
			// The whole log's verdict is the queue's when the
			// register's check ran out of time on a loaded machine.
			slow++
			continue
		}
		restarts += o.Restarts
		if o.Verdict != want.Verdict || want.Verdict == engine.Violation && *o.ViolationStep != *want.ViolationStep {
			t.Fatalf("history %d (%s): CheckMulti says %s at %v after %d restarts, ENUMERATE -c on the sub-history %s at %v\n%s",
				i, kind, o.Verdict, deref(o.ViolationStep), o.Restarts, want.Verdict, deref(want.ViolationStep), text)
		}
		if want.Verdict == engine.OK && o.Steps != want.Steps {
			t.Fatalf("history %d: %d steps through CheckMulti, %d alone", i, o.Steps, want.Steps)
		}
		sat := byName(checkText(t, text, MultiOptions{Options: engine.DefaultOptions(), Workers: 1}))["r"]
		if sat.Verdict == engine.Violation {
			satFound++
			if want.Verdict != engine.Violation || *sat.ViolationStep < *want.ViolationStep {
				t.Fatalf("FALSE VIOLATION: history %d: saturate -r says violation at %d, ENUMERATE -c %s at %v\n%s",
					i, *sat.ViolationStep, want.Verdict, deref(want.ViolationStep), text)
			}
		}
	}
	if restarts < n/4 || seeded < n/10 || violations == 0 || satFound == 0 || slow > n/20 {
		t.Fatalf("%d restarts, %d monitors started from a reached state, %d violations, %d found by saturate, %d left out: the test tests little",
			restarts, seeded, violations, satFound, slow)
	}
	t.Logf("%d histories (%d not linearizable, saturate -r found %d; %d left out, too slow for ENUMERATE -c): %d monitors dropped, %d restarted from a reached state",
		n, violations, satFound, slow, restarts, seeded)
}

// Overlapping appends leave the string undetermined ("xy" or "yx"), so
// the monitor is not dropped there; a put alone determines it again.
func TestStringRegisterIdleRule(t *testing.T) {
	log := `# @object k string-register
[1] call k.append(x)
[2] call k.append(y)
[1] return
[2] return
[3] call k.get
[3] return yx
[4] call k.put(a)
[4] return
[5] call k.append(b)
[5] return
[6] call k.get
[6] return ab
`
	res := checkText(t, log, MultiOptions{Options: enumC, Workers: 1, dropAfter: 1})
	if res.Verdict != engine.OK {
		t.Fatalf("verdict %s, want ok", res.Verdict)
	}
	// Not dropped after the overlapping appends (a drop with "xy" would
	// make get ⇒ yx a violation) nor after get ⇒ yx (the state is still
	// open to this monitor's rule); then after put(a), append(b), get ⇒ ab.
	if res.Dropped != 3 || res.seeded != 2 {
		t.Errorf("dropped %d times, %d seeded; want 3 and 2 (after put(a), append(b) and get ⇒ ab)", res.Dropped, res.seeded)
	}
	bad := strings.Replace(log, "[6] return ab", "[6] return ba", 1)
	res = checkText(t, bad, MultiOptions{Options: enumC, Workers: 1, dropAfter: 1})
	if res.Verdict != engine.Violation || res.ViolationLine != 13 || *res.ViolationStep != 12 {
		t.Fatalf("verdict %s at line %d, step %v, want violation at line 13, step 12", res.Verdict, res.ViolationLine, deref(res.ViolationStep))
	}
}

// Parked objects keep their actions packed: every field a monitor reads
// comes back, for actions of every kind of every object.
func TestPackAction(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	var b []byte
	var want []h.Action
	for i := 0; i < 200; i++ {
		hist := testhist.RandomHistory(rng, h.Objects[i%len(h.Objects)], 6)
		for _, a := range engine.Actions(hist) {
			a.Line = rng.IntN(1 << 20)
			a.Label.Prio = rng.Int64N(1<<40) - 1<<39
			want = append(want, a)
			b = packAction(b, &a)
		}
	}
	for i, w := range want {
		var a h.Action
		a, b = unpackAction(b)
		w.Seq = 0 // not kept: a monitor numbers actions itself
		if a != w {
			t.Fatalf("action %d: unpacked %+v, packed %+v", i, a, w)
		}
	}
	if len(b) != 0 {
		t.Fatalf("%d bytes left", len(b))
	}
}
