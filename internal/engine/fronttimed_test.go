package engine

import (
	"math/rand/v2"
	"slices"
	"strconv"

	h "github.com/satmon/satmon/internal/history"
)

// timedHistory builds the small register histories of the frontier's
// differential tests (pastHistory, linCASHistory, chainHistory,
// dupWriteHistory): operation 0 writes 1 around time 0, and each later
// one takes effect at its point in time, called some time before it and
// returning some time after it, or never (crashed). The histories are
// so linearizable by construction until one result is changed.
type timedHistory struct {
	hist *h.History
	evs  []timedEv
}

// timedEv is a call or return of operation op at time t.
type timedEv struct {
	t    float64
	call bool
	op   int
}

func newTimedHistory(obj h.Object) *timedHistory {
	return &timedHistory{
		hist: &h.History{Object: obj, Ops: []h.Op{{ID: "0", Label: h.Label{Method: h.Write, Arg: "1"}}}},
		evs:  []timedEv{{-0.5, true, 0}, {0.5, false, 0}},
	}
}

// add appends l with its point at t: called up to span before it and,
// unless crash (then pending to the end), returning up to span after it.
func (th *timedHistory) add(rng *rand.Rand, l h.Label, t, span float64, crash bool) {
	i := len(th.hist.Ops)
	th.hist.Ops = append(th.hist.Ops, h.Op{ID: strconv.Itoa(i), Label: l})
	th.evs = append(th.evs, timedEv{t - span*rng.Float64() - 0.01, true, i})
	if crash {
		th.hist.Ops[i].Label.Pending, th.hist.Ops[i].Label.Ret = true, h.Void
	} else {
		th.evs = append(th.evs, timedEv{t + span*rng.Float64() + 0.01, false, i})
	}
}

// done numbers the calls and returns in time order, changes one result
// in half the histories (changeOneResult: value draws the new one), and
// sorts the operations by call.
func (th *timedHistory) done(rng *rand.Rand, value func() h.Value) *h.History {
	slices.SortStableFunc(th.evs, func(a, b timedEv) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	})
	for i := range th.hist.Ops {
		th.hist.Ops[i].Return = -1
	}
	for seq, e := range th.evs {
		if e.call {
			th.hist.Ops[e.op].Call = seq
		} else {
			th.hist.Ops[e.op].Return = seq
		}
	}
	changeOneResult(rng, th.hist, value)
	slices.SortStableFunc(th.hist.Ops, func(a, b h.Op) int { return a.Call - b.Call })
	return th.hist
}
