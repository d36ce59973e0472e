package encode

import (
	"slices"

	h "github.com/satmon/satmon/internal/history"
)

// opTable owns the window's operations: the live ones in call order, the
// pending ones, their indexes by argument and by method, and the storage
// recycled from forgotten operations. The encoder's phases (step.go) add,
// return and drop operations only through it.
type opTable struct {
	win  []*Op // live operations in call and serial order (op)
	pend []*Op // pending operations in call order
	// pendGen counts the changes of pend, so that lists derived from it
	// (pendingFor) know when they are stale.
	pendGen uint64
	byArg   map[h.Value][]*Op // live operations by argument
	byMeth  [][]*Op           // live operations by method, in call order
	// unordered: some operation was called (Op.Call) no later than one
	// before it in the window. Candidate lists are in call order only
	// while calls increase with serials, as the monitor's do; otherwise
	// levelRun does not narrow by real time (cutsAdmit still rejects).
	unordered bool

	// freeOwned holds emptied lists of forgotten operations for reuse,
	// so that a window that keeps its size grows no new list.
	freeOwned [ownedClasses][]ownedList // by capacity class (putOwned)
	// freeLists and freeRets likewise hold the partner and overlap lists
	// and return-value tables of forgotten operations: every operation
	// needs them, so they would otherwise be allocated at every call.
	freeLists [listClasses][][]*Op // by capacity class (putList)
	freeRets  []map[h.Value]Lit
	// freeOps holds the structs of forgotten operations, for Call. No
	// pointer to a forgotten operation survives Remove: every list of a
	// live operation is filtered, and the lazy machinery names operations
	// by serial.
	freeOps []*Op
	gone    []*Op // Remove's scratch
}

// op returns the live operation with the given serial, or nil. The window
// is in serial order (Call requires serials to increase), so it is found
// by bisection: a table by serial cost a map insert at every call and a
// delete at every removal.
func (t *opTable) op(serial int) *Op {
	w := t.win
	if i := bisectSerial(w, serial); i < len(w) && w[i].Serial == serial {
		return w[i]
	}
	return nil
}

// opsOf lists the live operations of method m, in call order.
func (t *opTable) opsOf(m h.Method) []*Op {
	if int(m) < len(t.byMeth) {
		return t.byMeth[m]
	}
	return nil
}

// newOp returns a zeroed operation, recycled if one is free.
func (t *opTable) newOp() *Op {
	if n := len(t.freeOps); n > 0 {
		o := t.freeOps[n-1]
		t.freeOps = t.freeOps[:n-1]
		return o
	}
	return new(Op)
}

// recycle keeps the lists and return-value table of a forgotten
// operation for the next ones. Nothing reads a forgotten operation's lists
// (pending flushes are over when Remove runs).
func (t *opTable) recycle(o *Op) {
	for _, l := range [...][]*Op{o.asX, o.asY, o.conc, o.succ, o.pred} {
		t.putList(l)
	}
	o.asX, o.asY, o.conc, o.succ, o.pred = nil, nil, nil, nil, nil
	if o.rets != nil && len(o.rets) <= maxKeptOwned && len(t.freeRets) < maxKeptLists {
		clear(o.rets)
		t.freeRets = append(t.freeRets, o.rets)
	}
	o.rets = nil
	if len(t.freeOps) < maxKeptOps {
		o.lim = nil
		t.freeOps = append(t.freeOps, o)
	}
}

// push appends o to l. A full list moves to a list of twice its
// capacity, recycled if one is free, and is kept for reuse (putList):
// with the lists of forgotten operations recycled too, a window that
// stays the same size allocates no list.
func (t *opTable) push(l []*Op, o *Op) []*Op {
	if len(l) < cap(l) {
		return append(l, o)
	}
	nl := t.takeList(max(2*cap(l), minListCap))
	nl = append(nl, l...)
	t.putList(l)
	return append(nl, o)
}

// takeList returns an empty list of capacity c, a power of two.
func (t *opTable) takeList(c int) []*Op {
	if k := listClass(c); k >= 0 {
		if n := len(t.freeLists[k]); n > 0 {
			l := t.freeLists[k][n-1]
			t.freeLists[k] = t.freeLists[k][:n-1]
			return l
		}
	}
	return make([]*Op, 0, c)
}

// putList keeps l for reuse if its capacity is a class and the class is
// not full. Entries past len(l) are already nil (every list drops its
// entries by clearing them).
func (t *opTable) putList(l []*Op) {
	if k := listClass(cap(l)); k >= 0 && len(t.freeLists[k]) < maxKeptListWords/cap(l) {
		clear(l)
		t.freeLists[k] = append(t.freeLists[k], l[:0])
	}
}

// takeOwned returns an empty owner list of capacity c, a power of two.
func (t *opTable) takeOwned(c int) ownedList {
	if k := ownedClass(c); k >= 0 {
		if n := len(t.freeOwned[k]); n > 0 {
			l := t.freeOwned[k][n-1]
			t.freeOwned[k] = t.freeOwned[k][:n-1]
			return l
		}
	}
	return make(ownedList, 0, c)
}

// putOwned keeps l for reuse if its capacity is a class and the class is
// not full. Its entries hold no pointers, so they are not cleared.
func (t *opTable) putOwned(l ownedList) {
	if k := ownedClass(cap(l)); k >= 0 && len(t.freeOwned[k]) < maxKeptOwnedVars/cap(l) {
		t.freeOwned[k] = append(t.freeOwned[k], l[:0])
	}
}

// enter makes the struct of a new operation from o, recycled from a
// forgotten one when there is one (drop), so that a steady window
// allocates none; it is not in the window until add.
func (t *opTable) enter(o Op) *Op {
	op := t.newOp()
	life := op.life // a recycled struct's: see Op.life
	*op = o
	op.life = life
	op.asX, op.asY, op.conc = nil, nil, nil
	op.Return = -1
	op.Label.Pending = true
	op.Label.Ret = h.Void
	if n := len(t.win); n > 0 && t.win[n-1].Serial >= op.Serial {
		panic("encode: serials must increase")
	}
	if n := len(t.win); n > 0 && t.win[n-1].Call >= op.Call {
		t.unordered = true
	}
	return op
}

// add puts op, just called, in the window: it overlaps every pending
// operation.
func (t *opTable) add(op *Op) {
	for _, o := range t.pend {
		o.conc = t.push(o.conc, op)
		op.conc = t.push(op.conc, o)
	}
	t.win = append(t.win, op)
	t.pend = append(t.pend, op)
	t.pendGen++
	t.byArg[op.Label.Arg] = t.push(t.byArg[op.Label.Arg], op)
	for int(op.Label.Method) >= len(t.byMeth) {
		t.byMeth = append(t.byMeth, nil)
	}
	t.byMeth[op.Label.Method] = append(t.byMeth[op.Label.Method], op)
}

// returned records that op returned ret at action seq.
func (t *opTable) returned(op *Op, ret h.Value, seq int) {
	if i := slices.Index(t.pend, op); i >= 0 {
		t.pend = slices.Delete(t.pend, i, i+1)
		t.pendGen++
	}
	op.Return = seq
	op.Label.Pending = false
	op.Label.Ret = ret
}

// drop takes the operations marked gone (listed in t.gone) out of the
// window and of every list, and recycles their storage. pendGone says
// that some of them were pending.
func (t *opTable) drop(gone uint32, pendGone bool) {
	// Only the lists of the operations related to a forgotten one can name
	// it, and every relation kept in lists is symmetric (x in y.asX iff y
	// in x.asY, x in y.conc iff y in x.conc, x in y.succ iff y in
	// x.pred), each pair listed once (CheckWindow checks it): so g is cut
	// from the lists of the operations its own lists name, and from no
	// other. Filtering every list would cost the window's size at each
	// forgetting (a stalled operation keeps the window large), and even
	// filtering every list of the related operations costs the length of
	// a stalled operation's lists at every forgetting.
	for _, g := range t.gone {
		for _, o := range g.asX {
			if o.mark != gone {
				o.asY = cutPtr(o.asY, g)
			}
		}
		for _, o := range g.asY {
			if o.mark != gone {
				o.asX = cutPtr(o.asX, g)
			}
		}
		for _, o := range g.succ {
			if o.mark != gone {
				o.pred = cutPtr(o.pred, g)
			}
		}
		for _, o := range g.pred {
			if o.mark != gone {
				o.succ = cutPtr(o.succ, g)
			}
		}
		// The overlap lists and the lists by method and by argument are
		// in serial order: g is found by bisection there.
		for _, o := range g.conc {
			if o.mark != gone {
				o.conc = cutOp(o.conc, g)
			}
		}
		if m := g.Label.Method; int(m) < len(t.byMeth) {
			t.byMeth[m] = cutOp(t.byMeth[m], g)
		}
		if l := cutOp(t.byArg[g.Label.Arg], g); len(l) > 0 {
			t.byArg[g.Label.Arg] = l
		} else {
			delete(t.byArg, g.Label.Arg)
			t.putList(l)
		}
	}
	// The window, the longest list, is cut once for them all.
	slices.SortFunc(t.gone, func(a, b *Op) int { return a.Serial - b.Serial })
	t.win = cutSorted(t.win, t.gone)
	if pendGone {
		t.pend = cutSorted(t.pend, t.gone)
		t.pendGen++
	}
	for _, g := range t.gone {
		t.recycle(g)
	}
	clear(t.gone)
	t.gone = t.gone[:0]
}

// cutPtr removes g, which is in l at most once, from l, keeping the
// order, and clears the entry freed at the end. The list is only read
// until g is found: the operations it names are not touched.
func cutPtr(l []*Op, g *Op) []*Op {
	for i, o := range l {
		if o == g {
			return removeAt(l, i)
		}
	}
	return l
}

// removeAt removes l[i], keeping the order, and clears the entry freed at
// the end, so that the list's storage does not keep the operation alive.
func removeAt(l []*Op, i int) []*Op {
	copy(l[i:], l[i+1:])
	l[len(l)-1] = nil
	return l[:len(l)-1]
}

// cutSorted removes the operations gs, in serial order, from l, a list
// in serial order, keeping the order: each is found by bisection in the
// part not yet moved, and the runs between them move once.
func cutSorted(l, gs []*Op) []*Op {
	w, r := -1, 0 // l[:w] is kept and final, l[r:] untouched
	for _, g := range gs {
		i := r + bisectSerial(l[r:], g.Serial)
		if i == len(l) || l[i] != g {
			continue
		}
		if w < 0 {
			w = i
		} else {
			w += copy(l[w:], l[r:i])
		}
		r = i + 1
	}
	if w < 0 {
		return l
	}
	w += copy(l[w:], l[r:])
	clear(l[w:])
	return l[:w]
}

// bisectSerial is the index of the first operation of l, a list in serial
// order, whose serial is at least s.
func bisectSerial(l []*Op, s int) int {
	lo, hi := 0, len(l)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if l[mid].Serial < s {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// cutOp removes g from l, a list in serial order, if it is there, keeping
// the order, and clears the entry freed at the end.
func cutOp(l []*Op, g *Op) []*Op {
	if i := bisectSerial(l, g.Serial); i < len(l) && l[i] == g {
		return removeAt(l, i)
	}
	return l
}

// takeRets returns an empty return-value table, recycled when it can be.
func (t *opTable) takeRets() map[h.Value]Lit {
	if n := len(t.freeRets); n > 0 {
		m := t.freeRets[n-1]
		t.freeRets = t.freeRets[:n-1]
		return m
	}
	return map[h.Value]Lit{}
}

// doom lists o among the operations the next drop takes out.
func (t *opTable) doom(o *Op) { t.gone = append(t.gone, o) }
