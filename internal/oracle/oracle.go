// Package oracle implements the exact polynomial linearizability checkers of
// Lee and Mathur for sets, stacks, queues and priority queues, used as test
// oracles.
//
// The checkers follow "Efficient Linearizability Monitoring for Sets, Stacks,
// Queues and Priority Queues" (Lee and Mathur, 2024): the per-value set
// check (Lemma 4.1), the empty-operation check (Lemma 3.4), the bottom-value
// peeling for stacks (Lemma 5.1), the last-value peeling for queues
// (Lemmas 6.1, 6.2) and the per-value priority check (Corollary 7.3). They
// are exact only under the paper's distinct-values restriction; outside it
// Check answers ErrUnsupported rather than guess.
package oracle

import (
	"errors"
	"sort"

	"github.com/satmon/satmon/internal/history"
)

// ErrUnsupported reports a history outside the algorithms' domain: pending
// operations, a value added twice (or, for sets, added or removed
// successfully twice), equal priorities of different values, malformed
// labels, or an object other than queue, stack, priority queue and set.
var ErrUnsupported = errors.New("oracle: history outside the exact algorithms' domain")

// Check decides linearizability of a complete history h (no pending ops) of
// history.Queue, history.Stack, history.PQueue or history.Set exactly.
// ok=false with err=ErrUnsupported when the history is outside the
// algorithm's domain (pending ops, repeated values where the algorithm needs
// distinct values, other objects).
func Check(h *history.History) (linearizable bool, err error) {
	if h == nil {
		return false, ErrUnsupported
	}
	spans, ok := normalize(h)
	if !ok {
		return false, ErrUnsupported
	}
	switch h.Object {
	case history.Queue, history.Stack, history.PQueue:
		return checkCollection(h, spans)
	case history.Set:
		return checkSet(h, spans)
	}
	return false, ErrUnsupported
}

// span is an operation's interval as ranks of its call and return among all
// of the history's actions. Ranks are distinct, so a linearization point
// never coincides with an event and can be named by its slot: slot k is the
// open gap (k, k+1) between the events of rank k and k+1.
type span struct{ inv, res int }

// normalize ranks every call and return. Only the real-time order matters to
// linearizability, and history.Before says a precedes b iff a.Return <
// b.Call; so at equal positions calls are ranked before returns, which keeps
// operations that merely touch concurrent.
func normalize(h *history.History) ([]span, bool) {
	type event struct {
		time int
		ret  bool
		op   int
	}
	evs := make([]event, 0, 2*len(h.Ops))
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Pending() || o.Label.Pending || o.Return < o.Call {
			return nil, false
		}
		evs = append(evs, event{o.Call, false, i}, event{o.Return, true, i})
	}
	sort.Slice(evs, func(a, b int) bool {
		x, y := evs[a], evs[b]
		if x.time != y.time {
			return x.time < y.time
		}
		if x.ret != y.ret {
			return !x.ret
		}
		return x.op < y.op
	})
	spans := make([]span, len(h.Ops))
	for r, e := range evs {
		if e.ret {
			spans[e.op].res = r
		} else {
			spans[e.op].inv = r
		}
	}
	return spans, true
}
