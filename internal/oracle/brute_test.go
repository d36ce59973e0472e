package oracle

import (
	"slices"
	"strconv"
	"strings"

	"github.com/satmon/satmon/internal/history"
)

// The brute-force checker below shares no code with the oracle: it tries
// every linearization of a small complete history by depth-first search and
// replays it on a plain sequential model of the object.

// elem is a collection element; prio matters only to the priority queue.
type elem struct {
	val  history.Value
	prio int64
}

// seqState is an immutable sequential state of one object.
type seqState struct {
	obj   history.Object
	elems []elem // queue front first, stack bottom first, pq unordered
	set   map[history.Value]bool
}

func newSeqState(obj history.Object) seqState {
	return seqState{obj: obj, set: map[history.Value]bool{}}
}

// step applies l to s, returning the next state and whether the label's
// result is what the sequential object answers (for the priority queue, one
// of the answers it may give).
func (s seqState) step(l history.Label) (seqState, bool) {
	switch s.obj {
	case history.Set:
		in := s.set[l.Arg]
		want := func(b bool) history.Value {
			if b {
				return history.True
			}
			return history.False
		}
		next := map[history.Value]bool{}
		for k, v := range s.set {
			next[k] = v
		}
		switch l.Method {
		case history.Add:
			if l.Ret != want(!in) {
				return s, false
			}
			next[l.Arg] = true
		case history.Rem:
			if l.Ret != want(in) {
				return s, false
			}
			delete(next, l.Arg)
		case history.Contains:
			if l.Ret != want(in) {
				return s, false
			}
		default:
			return s, false
		}
		return seqState{obj: s.obj, set: next}, true
	}
	switch l.Method {
	case history.Add:
		return seqState{obj: s.obj, elems: append(slices.Clone(s.elems), elem{l.Arg, l.Prio})}, true
	case history.Rem:
		if len(s.elems) == 0 {
			return s, l.Ret == history.Empty
		}
		if l.Ret == history.Empty {
			return s, false
		}
		var i int
		switch s.obj {
		case history.Queue:
			i = 0
		case history.Stack:
			i = len(s.elems) - 1
		case history.PQueue:
			top := s.elems[0].prio
			for _, e := range s.elems {
				top = max(top, e.prio)
			}
			i = slices.IndexFunc(s.elems, func(e elem) bool { return e.val == l.Ret && e.prio == top })
			if i < 0 {
				return s, false
			}
		}
		if s.elems[i].val != l.Ret {
			return s, false
		}
		return seqState{obj: s.obj, elems: slices.Delete(slices.Clone(s.elems), i, i+1)}, true
	}
	return s, false
}

func (s seqState) key() string {
	var b strings.Builder
	if s.obj == history.Set {
		keys := make([]string, 0, len(s.set))
		for k := range s.set {
			keys = append(keys, string(k))
		}
		slices.Sort(keys)
		return strings.Join(keys, ",")
	}
	for _, e := range s.elems {
		b.WriteString(string(e.val))
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(e.prio, 10))
		b.WriteByte(',')
	}
	return b.String()
}

// bruteCheck decides linearizability of a small complete history by
// exhaustive search, memoizing the (done operations, state) pairs that
// failed.
func bruteCheck(h *history.History) bool {
	n := len(h.Ops)
	preds := make([]uint64, n)
	for i := range h.Ops {
		for j := range h.Ops {
			if history.Before(&h.Ops[j], &h.Ops[i]) {
				preds[i] |= 1 << j
			}
		}
	}
	failed := map[string]bool{}
	var dfs func(done uint64, s seqState) bool
	dfs = func(done uint64, s seqState) bool {
		if done == 1<<n-1 {
			return true
		}
		k := strconv.FormatUint(done, 16) + "|" + s.key()
		if failed[k] {
			return false
		}
		for i := range n {
			if done&(1<<i) != 0 || preds[i]&^done != 0 {
				continue
			}
			if next, ok := s.step(h.Ops[i].Label); ok && dfs(done|1<<i, next) {
				return true
			}
		}
		failed[k] = true
		return false
	}
	return dfs(0, newSeqState(h.Object))
}
