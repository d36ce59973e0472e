package engine

import h "github.com/satmon/satmon/internal/history"

// IdleState tracks one object between the points where its monitor may
// be dropped. A monitor may be dropped when the object is quiescent (no
// operation open, pending ones included) and every linearization of the
// sub-history so far ends in one and the same state S that a fresh
// monitor can start from. Then the history so far, H1, and what follows,
// H2, are separated in real time: every linearization of H1·H2 is one of
// H1 followed by one of H2, so H1·H2 is linearizable iff H1 is and H2 is
// from S. A fresh monitor from S checks exactly the latter, so a violation
// it proves is one of H1·H2 (if H1 is not linearizable, nor is H1·H2:
// any verdict of violation stays true), and an exact algorithm stays
// exact. S is found by counting, for each kind:
//
//   - queue, stack, priority queue: adds and non-empty removals balance;
//     each removal takes one element, so the collection is empty;
//   - set: successful adds and successful removals balance; per value they
//     alternate, so each value's difference is 0 or 1 and all are 0;
//   - lock, semaphore: acquisitions and releases balance: all free;
//   - exchanger: no state;
//   - register: some write was called after every other write returned:
//     it is the last write of every linearization, and a fresh register
//     starts with its value as the initial value;
//   - compare-and-set and string registers: the state is followed from
//     group to group of the operations that may change it (writes, puts,
//     appends, cas), a group being a stretch during which one of them is
//     open. Groups are ordered by real time, so every linearization takes
//     them in turn. After a group with one effective operation (a failed
//     cas changes nothing), the state is that operation applied to the
//     state before it (a write or successful cas sets its value whatever
//     came before; an append needs the state before known); after a group
//     whose effective operations all write one same value, that value; any
//     other group leaves the state unknown until a group sets it again.
//     (If the history so far is not linearizable, a successful cas whose
//     old value was not the state is possible, and the state then
//     claimed is wrong: as above, no verdict of violation depends on it.)
//
// Other kinds are never dropped.
type IdleState struct {
	Open    int // operations open
	balance int
	// The register's last write: the write called last, and the latest
	// return of the others.
	cand         bool
	candID       string
	candCall     int
	candVal      h.Value
	candOpen     bool
	candRet      int
	othersMaxRet int
	writes       int

	// The compare-and-set and string registers: the state after the last
	// group, when known, and the group under way (see above).
	known   bool
	val     h.Value
	wOpen   int     // operations of the group still open
	effs    int     // effective operations of the group returned so far
	first   h.Label // the first of them
	sameAbs bool    // all of them write first.Arg
}

// Reset starts tracking from a fresh monitor whose initial state is init
// (the parameter, or the value of the drop rule).
func (t *IdleState) Reset(kind h.Object, init string) {
	*t = IdleState{known: true, val: h.Value(init)}
	if kind == h.CASRegister && init == "" {
		t.val = h.Nil
	}
}

// changes reports whether an operation of method m may change the state
// of a compare-and-set or string register.
func changes(m h.Method) bool { return m == h.Write || m == h.Append || m == h.CAS }

func (t *IdleState) Step(kind h.Object, a h.Action) {
	rmw := kind == h.CASRegister || kind == h.StringRegister
	if a.Kind == h.Call {
		t.Open++
		if kind == h.Register && a.Label.Method == h.Write {
			if t.cand && !t.candOpen {
				t.othersMaxRet = max(t.othersMaxRet, t.candRet)
			}
			t.cand, t.candID, t.candCall, t.candVal, t.candOpen = true, a.ID, a.Seq, a.Label.Arg, true
			t.writes++
		}
		if rmw && changes(a.Label.Method) {
			if t.wOpen == 0 {
				t.effs, t.sameAbs = 0, true
			}
			t.wOpen++
		}
		return
	}
	t.Open--
	l := a.Label
	switch kind {
	case h.Queue, h.Stack, h.PQueue:
		switch {
		case l.Method == h.Add:
			t.balance++
		case l.Method == h.Rem && l.Ret != h.Empty:
			t.balance--
		}
	case h.Set:
		switch {
		case l.Method == h.Add && l.Ret == h.True:
			t.balance++
		case l.Method == h.Rem && l.Ret == h.True:
			t.balance--
		}
	case h.Lock, h.Semaphore:
		switch l.Method {
		case h.LockM, h.Acquire:
			t.balance++
		case h.Unlock, h.Release:
			t.balance--
		}
	case h.Register:
		if l.Method == h.Write {
			if t.candOpen && a.ID == t.candID {
				t.candOpen, t.candRet = false, a.Seq
			} else {
				t.othersMaxRet = max(t.othersMaxRet, a.Seq)
			}
		}
	case h.CASRegister, h.StringRegister:
		if !changes(l.Method) {
			return
		}
		if !(l.Method == h.CAS && l.Ret == h.Fail) {
			abs := l.Method != h.Append
			if t.effs == 0 {
				t.first = l
				t.sameAbs = abs
			} else if !abs || l.Arg != t.first.Arg {
				t.sameAbs = false
			}
			t.effs++
		}
		if t.wOpen--; t.wOpen > 0 {
			return
		}
		switch {
		case t.effs == 0:
		case t.effs == 1 && t.first.Method == h.Append:
			t.val = t.val + t.first.Arg // "" is the empty string
		case t.effs == 1 || t.sameAbs:
			t.val, t.known = t.first.Arg, true
		default:
			t.known = false
		}
	}
}

// Droppable reports whether the monitor may be dropped now, and the
// parameter of the fresh monitor that takes over (for the compare-and-set
// and string registers, the state it starts from); param is the current
// one.
func (t *IdleState) Droppable(kind h.Object, param string) (string, bool) {
	if t.Open != 0 {
		return "", false
	}
	switch kind {
	case h.Queue, h.Stack, h.PQueue, h.Set, h.Lock, h.Semaphore:
		return param, t.balance == 0
	case h.Exchanger:
		return param, true
	case h.Register:
		if !t.cand {
			return param, true
		}
		if t.writes > 1 && t.othersMaxRet >= t.candCall {
			return "", false
		}
		return string(t.candVal), true
	case h.CASRegister, h.StringRegister:
		return string(t.val), t.known
	}
	return "", false
}
