package multi

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/satmon/satmon/internal/engine"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
)

// Stream checks a log of many objects one event at a time, on the
// caller's goroutine, as one worker of CheckMulti does: each object has
// its own monitor, dropped at every point where the object is idle in a
// known state (idleState; CheckMulti keeps a young monitor there,
// defaultDropAfter) and parked when idle in an unknown one. It exists for readers that are not an io.Reader — a consumer of a
// partitioned, replayable log — and adds what such a reader needs to
// restart from the middle of the log: Resume says, for each object,
// whether it is at such a drop point and the state a fresh monitor takes
// over from there (a Checkpoint), and Restore installs a checkpoint in a
// new Stream. Since the actions before and after a drop point are ordered
// in real time, a Stream restored from an object's checkpoint and given
// the object's actions after it reaches the verdict the first Stream
// reaches on the whole history, step for step.
type Stream struct {
	s *shard
}

// NewStream starts a stream; name names the log in results. onViolation
// is called from Step as soon as an object's violation is proven.
func NewStream(ctx context.Context, name string, opt MultiOptions, onViolation func(ObjectResult)) (*Stream, error) {
	opt.Options = opt.Options.WithDefaults()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	per := opt.Options
	per.Timeout = 0
	if onViolation == nil {
		onViolation = func(ObjectResult) {}
	}
	s := &shard{ctx: ctx, opt: per, keep: opt.KeepIdle, parkAfter: defaultParkAfter, file: name,
		objs: map[string]*objState{}, report: onViolation, live: new(atomic.Int64), maxLive: new(atomic.Int64)}
	if opt.parkAfter > 0 {
		s.parkAfter = opt.parkAfter
	}
	// Every drop point drops the monitor at once: Resume's checkpoints
	// are the objects whose monitor was dropped last event.
	s.dropAfter = 1
	return &Stream{s: s}, nil
}

// Step checks one event. Events of one object must come in the log's
// order; ev.Seq orders the results and ev.Line is reported as the line of
// a violation.
func (st *Stream) Step(ev logfmt.Event) { st.s.step(&ev) }

// Done reports whether the object's verdict is final (a violation, an
// error or a timeout): its further actions are ignored.
func (st *Stream) Done(name string) bool {
	o := st.s.objs[name]
	return o != nil && o.done
}

// Checkpoint is what a fresh Stream needs to take an object over at one
// of its drop points, or to know its final verdict. It is plain data,
// meant to be stored (encoding/json).
type Checkpoint struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`            // the declared kind, as logfmt writes it
	Param string `json:"param,omitempty"` // the declared parameter
	// State is the parameter the next monitor starts from; for the
	// compare-and-set and string registers, with HasInit, the value of
	// the completed write it is handed first.
	State   string `json:"state,omitempty"`
	HasInit bool   `json:"has_init,omitempty"`
	// Result is the object's result up to the drop point (counters and,
	// for a final verdict, the verdict); Stats are not kept.
	Result ObjectResult `json:"result"`
}

// Resume returns the checkpoint of the named object when its monitor is
// dropped (the object is idle in a known state, or has not started) or
// its verdict is final; ok is false when the object is under way or
// parked, and when the stream has not seen it.
func (st *Stream) Resume(name string) (cp Checkpoint, ok bool) {
	o := st.s.objs[name]
	if o == nil || (!o.done && (o.mon != nil || o.parked)) {
		return Checkpoint{}, false
	}
	cp = Checkpoint{Name: name, Kind: o.decl.Kind.String(), Param: o.decl.Param, HasInit: o.hasInit}
	cp.State = o.param
	if o.hasInit {
		cp.State = string(o.init)
	}
	cp.Result = o.res
	cp.Result.Stats = nil
	cp.Result.Explanation = nil
	return cp, true
}

// AtRest reports whether the named object's monitor is dropped (it is
// idle in a known state) or its verdict is final: whether Resume would
// give its checkpoint.
func (st *Stream) AtRest(name string) bool {
	o := st.s.objs[name]
	return o != nil && (o.done || (o.mon == nil && !o.parked))
}

// Restore installs an object at a checkpoint; decl is its declaration
// (only its content matters: the object's events may carry another
// pointer). The stream must not have seen the object.
func (st *Stream) Restore(decl *logfmt.ObjectDecl, cp Checkpoint) error {
	if _, ok := st.s.objs[decl.Name]; ok {
		return fmt.Errorf("object %s restored twice", decl.Name)
	}
	o := &objState{decl: decl, param: decl.Param, res: cp.Result}
	// The object's identity is the stream's, whatever was stored.
	o.res.Name, o.res.File, o.res.Object = decl.Name, st.s.file, decl.Kind.String()
	o.res.Algorithm, o.res.Exact = st.s.opt.Name(), st.s.opt.Exact()
	if o.res.Verdict == "" {
		o.res.Verdict = engine.OK
	}
	if cp.HasInit {
		o.init, o.hasInit = h.Value(cp.State), true
		o.idle.Reset(decl.Kind, cp.State)
	} else {
		o.param = cp.State
		o.idle.Reset(decl.Kind, cp.State)
	}
	switch cp.Result.Verdict {
	case engine.Violation, engine.Error, engine.Timeout:
		o.done = true
	}
	st.s.objs[decl.Name] = o
	return nil
}

// Objects returns the number of objects seen or restored.
func (st *Stream) Objects() int { return len(st.s.objs) }

// Live returns the number of monitors alive (neither dropped nor parked).
func (st *Stream) Live() int { return int(st.s.live.Load()) }

// Results returns every object's result so far, the live monitors' steps
// included, in no particular order. It leaves the stream usable.
func (st *Stream) Results() []ObjectResult {
	out := make([]ObjectResult, 0, len(st.s.objs))
	for _, o := range st.s.objs {
		r := o.res
		if o.mon != nil {
			c := *o
			c.fold(o.mon.Result())
			r = c.res
		} else if o.parked {
			c := *o
			c.fold(o.parkedRes)
			r = c.res
		}
		r.Stats = nil
		out = append(out, r)
	}
	return out
}
