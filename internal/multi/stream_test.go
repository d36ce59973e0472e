package multi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/engine"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/testutil"
)

// TestStreamRestart checks the checkpoints of Stream the way a consumer
// of a partitioned log uses them (package kafka): at random points the
// stream is thrown away and a new one is restored from each object's
// checkpoint at its last drop point, and the log is replayed from the
// earliest action of an object under way, each object skipping what its
// checkpoint holds. On logs of many objects of every kind — linearizable
// ones, where a wrong state would show as a violation, and ones with
// injected faults — the violations must be CheckMulti's, step for step,
// each reported once.
func TestStreamRestart(t *testing.T) {
	t.Parallel()
	for seed := range int64(testutil.Scale(2)) {
		for _, mutate := range []int{0, 1} {
			t.Run(fmt.Sprintf("seed%d-mutate%d", seed, mutate), func(t *testing.T) {
				testStreamRestart(t, seed, mutate)
			})
		}
	}
}

func testStreamRestart(t *testing.T, seed int64, mutate int) {
	var specs []gen.ObjectSpec
	for i := range 90 {
		k := h.Objects[i%len(h.Objects)]
		specs = append(specs, gen.ObjectSpec{Name: fmt.Sprintf("o%d", i), Config: gen.Config{
			Object: k, Ops: 14, Concurrency: 3, Seed: seed*1000 + int64(i), Values: 3, Drain: i%3 != 0,
			Mutate: mutate * (i % 2)}})
	}
	runStreamRestart(t, restartCase{specs: specs, seed: seed, mutate: mutate, every: 40, stream: 7})
}

// restartCase is one run of runStreamRestart.
type restartCase struct {
	specs  []gen.ObjectSpec
	seed   int64
	mutate int
	every  int    // after each event, a restart with probability 1/every
	stream uint64 // the random stream of the restart points
	// frontier: the objects are registers, which the default checks with
	// the frontier; each must be checked by it, be at rest only with no
	// operation open, and every kind must reach a drop point.
	frontier bool
}

// runStreamRestart interleaves c.specs into one log, checks it with
// CheckMulti, and replays it through a Stream thrown away and restored
// from its checkpoints at random points, as a consumer of a partitioned
// log does: the violations, verdicts and counts must be CheckMulti's.
func runStreamRestart(t *testing.T, c restartCase) {
	specs := c.specs
	var file bytes.Buffer
	var buf []byte
	err := gen.Interleave(specs, 12, c.seed, func(e gen.MultiEvent) error {
		s := &specs[e.Object]
		if e.Declare {
			buf = logfmt.AppendDecl(buf[:0], s.Name, s.Config.Object, s.Config.Param())
		} else {
			buf = logfmt.AppendNamedAction(buf[:0], s.Name, s.Config.Object, e.Action)
		}
		file.Write(append(buf, '\n'))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	opt := MultiOptions{Options: engine.Options{RemoveObsolete: true}}
	want := map[string]string{}
	lr, err := CheckMulti(context.Background(), bytes.NewReader(file.Bytes()), logfmt.Native, logfmt.Options{Name: "x"}, opt,
		func(r ObjectResult) { want[r.Name] = fmt.Sprintf("step %d op %s", *r.ViolationStep, r.ViolationOp) })
	if err != nil {
		t.Fatal(err)
	}
	if c.frontier {
		for _, r := range lr.Objects {
			if r.Algorithm != engine.FrontierAlgorithm {
				t.Fatalf("%s: checked by %s, not the frontier: the test would not test it", r.Name, r.Algorithm)
			}
		}
	}
	if c.mutate == 0 && len(want) > 0 {
		t.Fatalf("CheckMulti finds violations in a linearizable log: %v", want)
	}

	src := logfmt.NewReader(bytes.NewReader(file.Bytes()), logfmt.Options{Name: "x"})
	var evs []logfmt.Event
	for {
		ev, err := src.NextEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ev.Seq = len(evs)
		evs = append(evs, ev)
	}

	got := map[string]string{}
	report := func(r ObjectResult) {
		if _, twice := got[r.Name]; twice {
			t.Errorf("%s: violation reported twice", r.Name)
		}
		got[r.Name] = fmt.Sprintf("step %d op %s", *r.ViolationStep, r.ViolationOp)
	}
	type obj struct {
		decl    *logfmt.ObjectDecl
		since   int // first event since the last drop point; -1 at one
		last    int
		cp      *Checkpoint
		through int // events up to it are in the restored checkpoint
	}
	newStream := func() *Stream {
		s, err := NewStream(context.Background(), "x", opt, report)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// open counts each object's operations called and not returned, in
	// the log as it is read the first time.
	open := map[string]int{}
	rests := map[h.Object]int{} // drop points with operations before them, by kind
	st := newStream()
	objs := map[string]*obj{}
	step := func(i int, first bool) {
		ev := evs[i]
		name := ev.Object.Name
		if first {
			if ev.Kind == h.Call {
				open[name]++
			} else {
				open[name]--
			}
		}
		o := objs[name]
		if o == nil {
			o = &obj{decl: ev.Object, since: -1, through: -1}
			objs[name] = o
		}
		if st.Done(name) || i <= o.through {
			return
		}
		if o.since < 0 {
			o.cp = nil
			if cp, ok := st.Resume(name); ok {
				o.cp = &cp
			}
			o.since = i
		}
		st.Step(ev)
		o.last = i
		if st.AtRest(name) {
			o.since = -1
			if !st.Done(name) {
				if c.frontier && first && open[name] != 0 {
					t.Fatalf("event %d: %s at rest with %d operations open", i, name, open[name])
				}
				rests[ev.Object.Kind]++
			}
		}
	}
	rng := rand.New(rand.NewPCG(uint64(c.seed), c.stream))
	restarts := 0
	for i := 0; i < len(evs); i++ {
		step(i, true)
		if rng.IntN(c.every) != 0 {
			continue
		}
		// Restart: checkpoint every object, then replay from the
		// earliest action still needed.
		restarts++
		from := i + 1
		next := newStream()
		nobjs := map[string]*obj{}
		for name, o := range objs {
			switch {
			case o.since < 0:
				cp, ok := st.Resume(name)
				if !ok {
					t.Fatalf("%s at rest without a checkpoint", name)
				}
				if err := next.Restore(o.decl, cp); err != nil {
					t.Fatal(err)
				}
				nobjs[name] = &obj{decl: o.decl, since: -1, through: o.last, last: o.last}
			case o.cp != nil:
				from = min(from, o.since)
				if err := next.Restore(o.decl, *o.cp); err != nil {
					t.Fatal(err)
				}
				nobjs[name] = &obj{decl: o.decl, since: -1, through: o.since - 1}
			default:
				from = min(from, o.since) // restarts as new
			}
		}
		st, objs = next, nobjs
		for j := from; j <= i; j++ {
			step(j, false)
		}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: CheckMulti %s, restarted stream %q", k, w, got[k])
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: restarted stream finds a violation (%s) CheckMulti does not", k, g)
		}
	}
	// Every object's verdict and count of steps, at the end, as well.
	final := map[string]ObjectResult{}
	for _, r := range st.Results() {
		final[r.Name] = r
	}
	for _, w := range lr.Objects {
		g, ok := final[w.Name]
		if !ok && w.Verdict != engine.Violation {
			t.Errorf("%s: not in the restarted stream", w.Name)
			continue
		}
		if ok && (g.Verdict != w.Verdict || g.Steps != w.Steps || g.Operations != w.Operations) {
			t.Errorf("%s: CheckMulti %s in %d steps (%d operations), restarted stream %s in %d (%d) %s", w.Name,
				w.Verdict, w.Steps, w.Operations, g.Verdict, g.Steps, g.Operations, g.Error)
		}
	}
	if c.frontier {
		for _, s := range specs {
			if rests[s.Config.Object] == 0 {
				t.Errorf("no %s ever at rest: the test proves nothing of its drop points", s.Config.Object)
			}
		}
	}
	if restarts == 0 {
		t.Fatal("no restart: the test proves nothing")
	}
}
