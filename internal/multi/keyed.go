package multi

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/satmon/satmon/internal/engine"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
)

// KeyedOperation is an Operation on one of many objects, named by Key: a
// key of a key-value store, as Porcupine's partitioned key-value models
// have them. Each key is its own object.
type KeyedOperation struct {
	Key string
	engine.Operation
}

// The operations of a key-value store, whose every key is a string
// register (StringRegister) that starts as the empty string: the labels
// of Operation for CheckKeyed(ctx, StringRegister, "", ops, opt).

// KVPut is a put of v: it sets the key's string.
func KVPut(v string) h.Label { return h.Label{Method: h.Write, Arg: h.Value(v)} }

// KVAppend is an append of v to the key's string.
func KVAppend(v string) h.Label {
	return h.Label{Method: h.Append, Arg: h.Value(v)}
}

// KVGet is a get that returned v ("" for a key never written).
func KVGet(v string) h.Label { return h.Label{Method: h.Read, Ret: h.Value(v)} }

// CheckKeyed checks a timestamped history of many objects of kind obj
// (with parameter param), one per key, as CheckMulti checks a log of
// many objects: linearizability is local, so the history is linearizable
// iff each key's sub-history is, and each key's verdict is the one of its
// sub-history checked alone (CheckOperations). The result holds one
// ObjectResult per key, named by the key, in order of first call; a
// violation's ViolationOp is the index in ops of the operation whose
// return proved it. An ill-formed operation is an error, as for
// CheckOperations.
func CheckKeyed(ctx context.Context, obj h.Object, param string, ops []KeyedOperation, opt MultiOptions) (LogResult, error) {
	fail := func(err error) (LogResult, error) {
		return LogResult{Result: engine.Result{Object: obj.String(), Algorithm: opt.Name(), Verdict: engine.Error, Error: err.Error()}}, err
	}
	if err := engine.ValidateParam(obj, param); err != nil {
		return fail(err)
	}
	type event struct {
		t    int64
		op   int
		kind h.Kind
	}
	evs := make([]event, 0, 2*len(ops))
	for i, o := range ops {
		// The labels are checked here, where an error can name the
		// operation; the monitors check the rest (a return's shape).
		sig, ok := h.SignatureOf(obj, o.Label.Method)
		switch {
		case !ok:
			return fail(fmt.Errorf("operation %d (client %d, key %q): %v is not a method of %v (methods: %s)", i, o.ClientID, o.Key, o.Label.Method, obj, engine.MethodNames(obj)))
		case sig.MinArgs > 0 && o.Label.Arg == h.Void:
			return fail(fmt.Errorf("operation %d (client %d, key %q): %v of %v takes an argument, got none", i, o.ClientID, o.Key, o.Label.Method, obj))
		}
		evs = append(evs, event{t: o.Call, op: i, kind: h.Call})
		if !o.Label.Pending {
			if o.Return < o.Call {
				return fail(fmt.Errorf("operation %d (client %d, key %q): returns at %d, before its call at %d", i, o.ClientID, o.Key, o.Return, o.Call))
			}
			evs = append(evs, event{t: o.Return, op: i, kind: h.Return})
		}
	}
	// At equal times calls come first: touching intervals overlap.
	slices.SortStableFunc(evs, func(a, b event) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.kind, b.kind)
	})
	decls := map[string]*logfmt.ObjectDecl{}
	src := &sliceSource{}
	for n, e := range evs {
		o := ops[e.op]
		d := decls[o.Key]
		if d == nil {
			d = &logfmt.ObjectDecl{Name: o.Key, Kind: obj, Param: param}
			decls[o.Key] = d
		}
		l := o.Label
		l.Pending = e.kind == h.Call
		if l.Pending {
			l.Ret = h.Void
		}
		src.evs = append(src.evs, logfmt.Event{Object: d, Action: h.Action{Kind: e.kind, ID: strconv.Itoa(e.op), Label: l, Seq: n}})
	}
	return checkSource(ctx, src, "", opt, nil, nil)
}

// sliceSource is a logfmt.Source of events held in memory.
type sliceSource struct {
	evs  []logfmt.Event
	next int
}

func (s *sliceSource) NextEvent() (logfmt.Event, error) {
	if s.next >= len(s.evs) {
		return logfmt.Event{}, io.EOF
	}
	s.next++
	return s.evs[s.next-1], nil
}
