package monitor

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testutil"
	"github.com/satmon/satmon/monitor/logfmt"
)

// TestStreamRestartFrontier checks Stream's drop points on the registers,
// which the default variant checks with the frontier: it holds a read's
// call back until the read returns (frontmon.go), so a register whose
// monitor were dropped with an operation open, or in a state not known,
// would restart wrong. On logs of the three registers, each object is
// asserted at rest only when no operation of it is open, and the stream
// is thrown away and restored from the checkpoints at every third event
// or so (far more often than TestStreamRestart); the violations must be
// CheckMulti's, step for step, and a linearizable log must stay ok.
func TestStreamRestartFrontier(t *testing.T) {
	t.Parallel()
	for seed := range int64(testutil.Scale(3)) {
		for _, mutate := range []int{0, 1} {
			t.Run(fmt.Sprintf("seed%d-mutate%d", seed, mutate), func(t *testing.T) {
				t.Parallel()
				testStreamRestartFrontier(t, seed, mutate)
			})
		}
	}
}

func testStreamRestartFrontier(t *testing.T, seed int64, mutate int) {
	kinds := []h.Object{h.Register, h.CASRegister, h.StringRegister}
	var specs []gen.ObjectSpec
	for i := range 45 {
		specs = append(specs, gen.ObjectSpec{Name: fmt.Sprintf("r%d", i), Config: gen.Config{
			Object: kinds[i%len(kinds)], Ops: 16, Concurrency: 1 + i%4, Seed: seed*1000 + int64(i), Values: 3,
			Mutate: mutate * (i % 2)}})
	}
	var file bytes.Buffer
	var buf []byte
	err := gen.Interleave(specs, 12, seed, func(e gen.MultiEvent) error {
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
	opt := MultiOptions{Options: Options{RemoveObsolete: true}}
	want := map[string]string{}
	lr, err := CheckMulti(context.Background(), bytes.NewReader(file.Bytes()), logfmt.Native, logfmt.Options{Name: "x"}, opt,
		func(r ObjectResult) { want[r.Name] = fmt.Sprintf("step %d op %s", *r.ViolationStep, r.ViolationOp) })
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range lr.Objects {
		if r.Algorithm != FrontierAlgorithm {
			t.Fatalf("%s: checked by %s, not the frontier: the test would not test it", r.Name, r.Algorithm)
		}
	}
	if mutate == 0 && len(want) > 0 {
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
				if first && open[name] != 0 {
					t.Fatalf("event %d: %s at rest with %d operations open", i, name, open[name])
				}
				rests[ev.Object.Kind]++
			}
		}
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 11))
	restarts := 0
	for i := 0; i < len(evs); i++ {
		step(i, true)
		if rng.IntN(3) != 0 {
			continue
		}
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
	final := map[string]ObjectResult{}
	for _, r := range st.Results() {
		final[r.Name] = r
	}
	for _, w := range lr.Objects {
		g, ok := final[w.Name]
		if !ok && w.Verdict != Violation {
			t.Errorf("%s: not in the restarted stream", w.Name)
			continue
		}
		if ok && (g.Verdict != w.Verdict || g.Steps != w.Steps || g.Operations != w.Operations) {
			t.Errorf("%s: CheckMulti %s in %d steps (%d operations), restarted stream %s in %d (%d) %s", w.Name,
				w.Verdict, w.Steps, w.Operations, g.Verdict, g.Steps, g.Operations, g.Error)
		}
	}
	for _, k := range kinds {
		if rests[k] == 0 {
			t.Errorf("no %s ever at rest: the test proves nothing of its drop points", k)
		}
	}
	if restarts == 0 {
		t.Fatal("no restart: the test proves nothing")
	}
}
