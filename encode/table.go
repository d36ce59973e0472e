package encode

import (
	"math/bits"
	"slices"
	"unsafe"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/valtab"
	"github.com/satmon/satmon/internal/z"
)

// idVoid is Void's ID.
const idVoid = valtab.VoidID

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
	// vals names the values of the window by small integers (Op.argID,
	// Op.retID): a value is hashed once, when the operation that carries
	// it is called or returns, and byArg and the value comparisons of
	// the kernel read IDs. The interner is the encoder's own, or the
	// caller's (Config.Values: the monitor's, which names each value
	// once as its action enters, for the encoder and the remover alike).
	// Either way each live operation holds a reference to its argument's
	// and its return value's ID (enter, returned), given back when it is
	// forgotten (recycle): an ID is reused only once no live operation
	// carries its value, whatever the order in which the holders forget,
	// and then byArg has no entry for it either.
	vals *valtab.Interner
	// byArg holds the live operations by argument ID, in call order.
	byArg  [][]*Op
	byMeth [][]*Op // live operations by method, in call order
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
	freeRets  [][]retVar
	freeIdx   []map[h.Value]Lit // retVars' indexes
	// freeOps holds the structs of forgotten operations, for Call. No
	// pointer to a forgotten operation survives Remove: every list of a
	// live operation is filtered, and the lazy machinery names operations
	// by serial.
	freeOps []*Op
	gone    []*Op // Remove's scratch
	// touched and goneBy are drop's scratch: the live operations whose
	// overlap lists name a forgotten one, and how many operations of each
	// method are forgotten. touched starts at a size that a summary's
	// large batches fit (drop), so that it does not grow in the middle of
	// a long log.
	touched []*Op
	goneBy  []goneCount
	// madeLists, madeOwned and madeOps count the lists (by class) and
	// structs allocated so far: an empty pool is refilled with a slab
	// sized after them (slabCount).
	madeLists [listClasses]int
	madeOwned [ownedClasses]int
	madeOps   int
}

// goneCount is how many operations of a method drop forgets, and the
// serial of the first.
type goneCount struct{ n, from int }

// slabWords bounds the size of one slab (in 8-byte words): a slab lives
// as long as any list carved from it, so a live list may keep this much
// in memory at worst.
const slabWords = 1024

// slabCount is how many pieces of size words to carve from one
// allocation when a pool is empty and made pieces were made before:
// half as many again, so that a window growing to a size it has not
// had allocates a number of times logarithmic in that size, not linear,
// at least 4 and at most what fits in slabWords (at least 1).
func slabCount(made, size int) int {
	n := max(4, made/2)
	return max(1, min(n, slabWords/size))
}

// op returns the live operation with the given serial, or nil. The window
// is in serial order (Call requires serials to increase), so the
// operation's index lies between what it would be were every operation
// after it live, and what it would be were every operation before it
// live: the first is tried (a return is mostly of a recent operation),
// then the second (a forgetting mostly of old ones), then the span
// between them is bisected. A table by serial cost a map insert at every
// call and a delete at every removal.
func (t *opTable) op(serial int) *Op {
	w := t.win
	if n := len(w); n > 0 {
		if i := n - 1 - (w[n-1].Serial - serial); uint(i) < uint(n) && w[i].Serial == serial {
			return w[i]
		}
	}
	return t.opBetween(serial)
}

// opBetween is op past its first guess.
func (t *opTable) opBetween(serial int) *Op {
	w := t.win
	n := len(w)
	if n == 0 || serial < w[0].Serial || serial > w[n-1].Serial {
		return nil
	}
	lo := max(0, n-1-(w[n-1].Serial-serial))
	hi := min(n-1, serial-w[0].Serial)
	if w[hi].Serial == serial {
		return w[hi]
	}
	if i := lo + bisectSerial(w[lo:hi], serial); w[i].Serial == serial {
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
	n := slabCount(t.madeOps, int(unsafe.Sizeof(Op{}))/8)
	t.madeOps += n
	if cap(t.freeOps) < t.madeOps {
		// Room for every struct made and the next slab's, as takeFrom
		// does for lists.
		t.freeOps = slices.Grow(t.freeOps, 2*t.madeOps-len(t.freeOps))
	}
	slab := make([]Op, n)
	for i := n - 1; i > 0; i-- {
		t.freeOps = append(t.freeOps, &slab[i])
	}
	return &slab[0]
}

// recycle keeps the lists and return-value table of a forgotten
// operation for the next ones. Nothing reads a forgotten operation's lists
// (pending flushes are over when Remove runs). The struct keeps its small
// lists, emptied, for the operation that reuses it (enter): that is the
// common case, and costs no trip through the pools; a list too big to
// keep with a struct, or those of a struct that is not kept, go to the
// pools.
func (t *opTable) recycle(o *Op) {
	t.vals.Release(o.argID)
	t.vals.Release(o.retID)
	keep := len(t.freeOps) < maxKeptOps
	if keep {
		t.empty(&o.asX)
		t.empty(&o.asY)
		t.empty(&o.conc)
		t.empty(&o.succ)
		t.empty(&o.pred)
	} else {
		for _, p := range [...]*[]*Op{&o.asX, &o.asY, &o.conc, &o.succ, &o.pred} {
			t.putList(*p)
			*p = nil
		}
	}
	t.putRets(&o.rets)
	if keep {
		o.lim = nil
		t.freeOps = append(t.freeOps, o)
	}
}

// empty empties *l for its struct's next operation (its stale entries
// are not cleared: see removeAt), if *l is small enough to stay with the
// struct; otherwise *l goes to the pools and the struct keeps no list.
// The list is cut in place: only its length is written, where a list
// returned and stored back was written whole, its pointer with a write
// barrier check.
func (t *opTable) empty(l *[]*Op) {
	if cap(*l) > maxOpListCap {
		t.giveBack(*l)
		*l = nil
		return
	}
	*l = (*l)[:0]
}

// giveBack is putList kept out of line, so that empty inlines.
//
//go:noinline
func (t *opTable) giveBack(l []*Op) { t.putList(l) }

// keepOwned empties o's owner list, forgotten by Remove: a small one stays
// with the struct, as its other lists do (recycle), a big one goes back
// to the pool.
func (t *opTable) keepOwned(o *Op) {
	if cap(o.owned) <= maxOpOwnedCap && len(t.freeOps) < maxKeptOps {
		o.owned = o.owned[:0]
		return
	}
	t.putOwned(o.owned)
	o.owned = nil
}

// push appends o to l. A full list moves to a list of twice its
// capacity, recycled if one is free, and is kept for reuse (putList):
// with the lists of forgotten operations recycled too, a window that
// stays the same size allocates no list.
func (t *opTable) push(l []*Op, o *Op) []*Op {
	if len(l) < cap(l) {
		return append(l, o)
	}
	return t.pushGrow(l, o)
}

// pushGrow is push's move to a bigger list, kept apart so that push is
// small enough to be inlined.
func (t *opTable) pushGrow(l []*Op, o *Op) []*Op {
	nl := t.takeList(max(2*cap(l), minListCap))
	nl = append(nl, l...)
	t.putList(l)
	return append(nl, o)
}

// takeList returns an empty list of capacity c, a power of two.
func (t *opTable) takeList(c int) []*Op {
	k := listClass(c)
	if k < 0 {
		return make([]*Op, 0, c)
	}
	return takeFrom(&t.freeLists[k], &t.madeLists[k], c)
}

// takeFrom pops an empty list of capacity c from a pool's class free,
// or, when the class is empty, carves a slab of such lists from one
// allocation (see slabCount), keeps all but one in free and returns that
// one; made counts the lists the class has made.
func takeFrom[L ~[]E, E any](free *[]L, made *int, c int) L {
	if n := len(*free); n > 0 {
		l := (*free)[n-1]
		*free = (*free)[:n-1]
		return l
	}
	n := slabCount(*made, c)
	*made += n
	if cap(*free) < *made {
		// Room for every list the class has made, and for the next
		// slab's: they all come back here (putList, putOwned), and the
		// pool would otherwise grow by appends as they do.
		*free = slices.Grow(*free, 2**made-len(*free))
	}
	slab := make(L, n*c)
	for i := n - 1; i > 0; i-- {
		*free = append(*free, slab[i*c:i*c:(i+1)*c])
	}
	return slab[0:0:c]
}

// putList keeps l for reuse if its capacity is a class and the class is
// not full, cleared up to its capacity: the lists leave the entries they
// drop as they are (see removeAt), and a pooled list could otherwise keep
// operations alive for as long as it waits.
func (t *opTable) putList(l []*Op) {
	if k := listClass(cap(l)); k >= 0 && len(t.freeLists[k]) < maxKeptListWords/cap(l) {
		clear(l[:cap(l)])
		t.freeLists[k] = append(t.freeLists[k], l[:0])
	}
}

// takeOwned returns an empty owner list of capacity c, a power of two.
func (t *opTable) takeOwned(c int) ownedList {
	k := ownedClass(c)
	if k < 0 {
		return make(ownedList, 0, c)
	}
	return takeFrom(&t.freeOwned[k], &t.madeOwned[k], c)
}

// putOwned keeps l for reuse if its capacity is a class and the class is
// not full. Its entries hold no pointers, so they are not cleared.
func (t *opTable) putOwned(l ownedList) {
	if k := ownedClass(cap(l)); k >= 0 && len(t.freeOwned[k]) < maxKeptOwnedVars/cap(l) {
		t.freeOwned[k] = append(t.freeOwned[k], l[:0])
	}
}

// enter makes the struct of a new operation, called at action call under
// serial with label l (its Ret and Pending ignored), recycled from a
// forgotten one when there is one (drop), so that a steady window
// allocates none; it is not in the window until add. The rest is the
// state of a new operation. It takes what a caller can set one by one,
// not as an Op: an Op passed by value is a large struct copied at every
// call.
//
// argID is l.Arg's ID, with a reference taken for the operation (intern,
// or Hold for the caller's ID).
func (t *opTable) enter(serial int, l *h.Label, call int, argID valtab.ID) *Op {
	op := t.newOp()
	// The struct's emptied lists stay with it (recycle, keepOwned), and
	// so does its life: see Op.life. The rest is set field by field: a
	// whole struct copied twice cost more than the fields.
	op.Serial, op.Label, op.Call = serial, *l, call
	op.Return = -1
	op.Label.Pending = true
	op.Label.Ret = h.Void
	op.argID, op.retID = argID, idVoid
	op.retTail, op.usedVar, op.retTrue, op.trueAsX, op.trueAsY = z.LitNull, z.LitNull, z.LitNull, z.LitNull, z.LitNull
	op.rets, op.lim = retVars{}, nil
	op.mark, op.cutN = 0, 0
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
	if n := len(t.pend); n > 0 {
		for _, o := range t.pend {
			// push written out: appended to in place, a list that has
			// room gets its length written alone, where storing the
			// list push returns would write it whole, its pointer with
			// a write barrier check.
			if len(o.conc) < cap(o.conc) {
				o.conc = append(o.conc, op)
			} else {
				o.conc = t.pushGrow(o.conc, op)
			}
		}
		if n <= maxListCap {
			// op will overlap the pending operations and, in a window
			// that keeps its size, about as many called while it is
			// pending: unless the list its struct kept is big enough, a
			// list of that size at once instead of growing it twice (at
			// most the largest recycled size: beyond it push grows the
			// list), and the pending operations copied at once. op.conc
			// is empty: op is new.
			if cap(op.conc) < n {
				t.putList(op.conc)
				op.conc = t.takeList(max(minListCap, min(ceilPow2(2*n), maxListCap)))
			}
			op.conc = append(op.conc, t.pend...)
		} else {
			for _, o := range t.pend {
				op.conc = t.push(op.conc, o)
			}
		}
	}
	t.win = append(t.win, op)
	t.pend = append(t.pend, op)
	t.pendGen++
	if int(op.argID) >= len(t.byArg) {
		t.byArg = append(t.byArg, make([][]*Op, t.vals.Cap()-len(t.byArg))...)
	}
	// push written out, as above.
	if a := &t.byArg[op.argID]; len(*a) < cap(*a) {
		*a = append(*a, op)
	} else {
		*a = t.pushGrow(*a, op)
	}
	for int(op.Label.Method) >= len(t.byMeth) {
		t.byMeth = append(t.byMeth, nil)
	}
	t.byMeth[op.Label.Method] = append(t.byMeth[op.Label.Method], op)
}

// returned records that op returned ret at action seq; retID is ret's ID,
// with a reference taken for op.
func (t *opTable) returned(op *Op, ret h.Value, retID valtab.ID, seq int) {
	if i := slices.Index(t.pend, op); i >= 0 {
		t.pend = t.pend[:removeAt(t.pend, i)]
		t.pendGen++
	}
	op.Return = seq
	op.Label.Pending = false
	op.Label.Ret = ret
	op.retID = retID
}

// intern is vals.Intern, without a look-up for Void, the argument of
// half the methods and the return value of the other half.
func (t *opTable) intern(v h.Value) valtab.ID {
	if v == h.Void {
		return idVoid
	}
	return t.vals.Intern(v)
}

// argOpsID lists the live operations of the argument of ID id, in call
// order.
func (t *opTable) argOpsID(id valtab.ID) []*Op {
	if int(id) < len(t.byArg) {
		return t.byArg[id]
	}
	return nil
}

// argOps lists the live operations of argument v, in call order.
func (t *opTable) argOps(v h.Value) []*Op {
	if id, ok := t.vals.Lookup(v); ok && int(id) < len(t.byArg) {
		return t.byArg[id]
	}
	return nil
}

// drop takes the operations marked gone (listed in t.gone) out of the
// window and of every list, and recycles their storage. pendGone says
// that some of them were pending; cut is a fresh stamp, distinct from
// gone, that drop leaves on the live operations whose overlap lists it
// filtered.
func (t *opTable) drop(gone, cut uint32, pendGone bool) {
	// The operations forgotten come in the caller's order: a batch is
	// sorted by serial only if some list is cut by bisection (cutSorted),
	// which needs that order; the marks need none, only the least serial
	// (from). A summary's batches are large and far from sorted, and
	// their lists are all short for their number, so they are not sorted.
	if len(t.gone) == 0 {
		return
	}
	from := t.gone[0].Serial
	sorted := false
	// Only the lists of the operations related to a forgotten one can name
	// it, and every relation kept in lists is symmetric (x in y.asX iff y
	// in x.asY, x in y.conc iff y in x.conc, x in y.succ iff y in
	// x.pred), each pair listed once (CheckWindow checks it): so g is cut
	// from the lists of the operations its own lists name, and from no
	// other. Filtering every list would cost the window's size at each
	// forgetting (a stalled operation keeps the window large), and even
	// filtering every list of the related operations costs the length of
	// a stalled operation's lists at every forgetting. g's own lists are
	// emptied afterwards (recycle).
	touched := t.touched[:0]
	if touched == nil {
		touched = make([]*Op, 0, 256)
	}
	for _, g := range t.gone {
		unlink(g, gone)
		// A live operation overlaps, as a rule, several of the operations
		// forgotten together (they are the oldest): its overlap list is
		// filtered once, below, instead of shifted once for each.
		for _, o := range g.conc {
			switch o.mark {
			case gone:
			case cut:
				o.cutN++
			default:
				o.mark, o.cutN = cut, 1
				touched = append(touched, o)
			}
		}
		from = min(from, g.Serial)
		if m := int(g.Label.Method); m >= len(t.goneBy) {
			t.goneBy = append(t.goneBy, make([]goneCount, m+1-len(t.goneBy))...)
			t.goneBy[m] = goneCount{1, g.Serial}
		} else if c := &t.goneBy[m]; c.n == 0 {
			*c = goneCount{1, g.Serial}
		} else {
			c.n++
			c.from = min(c.from, g.Serial)
		}
		// The list by argument is in serial order: g is found by
		// bisection there.
		a := &t.byArg[g.argID]
		if *a = (*a)[:cutOp(*a, g)]; len(*a) == 0 {
			t.putList(*a)
			*a = nil
		}
	}
	for i, o := range touched {
		// None of the forgotten operations is before the first in
		// serial order.
		o.conc = o.conc[:cutMarked(o.conc, gone, from, int(o.cutN))]
		touched[i] = nil
	}
	t.touched = touched[:0]
	// The lists by method and the window hold every operation forgotten,
	// marked gone. One that is short for their number is filtered once
	// from the first of them, reading the marks; in a long one (an
	// operation that stalls keeps the window large, and those forgotten
	// may lie far apart) each is found by bisection instead.
	for m, c := range t.goneBy {
		if c.n > 0 {
			if l := t.byMeth[m]; len(l) <= markedCutRatio*c.n {
				t.byMeth[m] = t.byMeth[m][:cutMarked(l, gone, c.from, c.n)]
			} else if c.n == 1 {
				// The one forgotten is found by its serial, from:
				// no need to sort the batch for it.
				t.byMeth[m] = t.byMeth[m][:removeAt(l, bisectSerial(l, c.from))]
			} else {
				if !sorted {
					sortBySerial(t.gone)
					sorted = true
				}
				t.byMeth[m] = cutSorted(l, t.gone, m)
			}
			t.goneBy[m].n = 0
		}
	}
	if n := len(t.gone); len(t.win) <= markedCutRatio*n {
		t.win = t.win[:cutMarked(t.win, gone, from, n)]
	} else {
		if !sorted {
			sortBySerial(t.gone)
			sorted = true
		}
		t.win = cutSorted(t.win, t.gone, -1)
	}
	if pendGone {
		if !sorted {
			sortBySerial(t.gone)
		}
		t.pend = cutSorted(t.pend, t.gone, -1)
		t.pendGen++
	}
	for _, g := range t.gone {
		t.recycle(g)
	}
	clear(t.gone)
	t.gone = t.gone[:0]
}

// sortBySerial sorts l by serial. The batches drop sorts are short and
// mostly in order already: an insertion sort does them without the
// generic sort's calls of a comparison.
func sortBySerial(l []*Op) {
	for i := 1; i < len(l); i++ {
		o := l[i]
		j := i
		for ; j > 0 && l[j-1].Serial > o.Serial; j-- {
			l[j] = l[j-1]
		}
		l[j] = o
	}
}

// unlink cuts g from the order and value lists of the live operations its
// own lists name (the gone ones are recycled whole).
// Kept out of drop's loop so that the loop over the overlap lists, drop's
// hottest, keeps its values in registers.
func unlink(g *Op, gone uint32) {
	for _, o := range g.asX {
		if o.mark != gone {
			o.asY = o.asY[:cutPtr(o.asY, g)]
		}
	}
	for _, o := range g.asY {
		if o.mark != gone {
			o.asX = o.asX[:cutPtr(o.asX, g)]
		}
	}
	for _, o := range g.succ {
		if o.mark != gone {
			o.pred = o.pred[:cutPtr(o.pred, g)]
		}
	}
	for _, o := range g.pred {
		if o.mark != gone {
			o.succ = o.succ[:cutPtr(o.succ, g)]
		}
	}
}

// cutMarked removes from l, a list in serial order, the k operations
// marked gone that it holds, none before serial from, keeping the order
// (the entries freed at the end are not cleared: see removeAt), and
// returns the length of what is left, which the caller cuts the list to
// in place (only the length is written then, not the slice whole with
// its pointer). In a long list the first of them is looked for from
// serial from on; no entry after the last is compared.
func cutMarked(l []*Op, gone uint32, from, k int) int {
	w := 0
	if len(l) > 16 {
		// A short list is read from its head for less.
		w = bisectSerial(l, from)
	}
	for l[w].mark != gone {
		w++
	}
	r := w + 1
	for k--; k > 0; r++ {
		if o := l[r]; o.mark != gone {
			l[w] = o
			w++
		} else {
			k--
		}
	}
	// The rest moves down as a block: behind a stalled operation the
	// forgotten ones are at the head of a long overlap list, and copy
	// moves its tail for far less than a loop of single moves.
	return moveDown(l, w, r, len(l))
}

// cutPtr removes g, which is in l at most once, from l, keeping the
// order, and returns the length left (see removeAt). The list is only
// read until g is found: the operations it names are not touched.
func cutPtr(l []*Op, g *Op) int {
	for i, o := range l {
		if o == g {
			return removeAt(l, i)
		}
	}
	return len(l)
}

// removeAt removes l[i], keeping the order. The entry freed at the end is
// not cleared, nor are those the other cuts free: nothing reads a list past
// its length, and the operation a stale entry names lives on in its slab
// (newOp), pooled for the next operation as a rule, so clearing would only
// cost a store (and a write barrier) for every entry cut. What stale
// entries can keep from the collector is bounded by the capacity of the
// live lists; a list that goes to a pool is cleared whole (putList).
//
// It returns the length left, len(l)-1, which the caller cuts the list
// to in place, as the other cuts do: only the length is written then,
// where storing a list returned would write it whole, its pointer with a
// write barrier check.
func removeAt(l []*Op, i int) int {
	if n := len(l) - 1; n-i <= 8 {
		// A few entries move for less than copy's call costs.
		for ; i < n; i++ {
			l[i] = l[i+1]
		}
	} else {
		copy(l[i:], l[i+1:])
	}
	return len(l) - 1
}

// markedCutRatio: drop filters a list by the marks of the operations it
// forgets when the list holds at most this many entries for each. A
// variable so that the tests can force either way.
var markedCutRatio = 16

// cutSorted removes the operations gs, in serial order, from l, a list
// in serial order, keeping the order: each is found by bisection in the
// part not yet moved, and the runs between them move once. With m ≥ 0,
// only those of method m are looked for.
func cutSorted(l, gs []*Op, m int) []*Op {
	w, r := -1, 0 // l[:w] is kept and final, l[r:] untouched
	for _, g := range gs {
		if m >= 0 && int(g.Label.Method) != m {
			continue
		}
		i := r
		if i == len(l) || l[i] != g {
			// Not next to the previous one (or the head): bisect.
			if i += bisectSerial(l[r:], g.Serial); i == len(l) || l[i] != g {
				continue
			}
		}
		if w < 0 {
			w = i
		} else {
			w = moveDown(l, w, r, i)
		}
		r = i + 1
	}
	if w < 0 {
		return l
	}
	return l[:moveDown(l, w, r, len(l))]
}

// moveDown moves l[r:i] to l[w:], w < r, and returns the index after
// them. The runs between the operations cut are short as a rule: a few
// entries move for less than copy's call costs.
func moveDown(l []*Op, w, r, i int) int {
	if i-r > 8 {
		return w + copy(l[w:], l[r:i])
	}
	for ; r < i; r++ {
		l[w] = l[r]
		w++
	}
	return w
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
// the order, and returns the length left (see removeAt).
func cutOp(l []*Op, g *Op) int {
	if len(l) > 0 && l[0] == g {
		// The usual case: the operations forgotten are the oldest.
		return removeAt(l, 0)
	}
	if i := bisectSerial(l, g.Serial); i < len(l) && l[i] == g {
		return removeAt(l, i)
	}
	return len(l)
}

// takeRets returns an empty return-value list, recycled when it can be.
func (t *opTable) takeRets() []retVar {
	if n := len(t.freeRets); n > 0 {
		l := t.freeRets[n-1]
		t.freeRets = t.freeRets[:n-1]
		return l
	}
	return make([]retVar, 0, retIndexAt)
}

// takeRetIndex returns an empty index for retVars, recycled when it can
// be. It is made for a few times retIndexAt values: an operation with
// that many overlaps much of the window and sees more, and a map grown
// from empty allocated at each doubling.
func (t *opTable) takeRetIndex() map[h.Value]Lit {
	if n := len(t.freeIdx); n > 0 {
		m := t.freeIdx[n-1]
		t.freeIdx = t.freeIdx[:n-1]
		return m
	}
	return make(map[h.Value]Lit, 4*retIndexAt)
}

// putRets empties r, keeping its list and index for reuse unless they are
// big (an operation that was pending for long).
func (t *opTable) putRets(r *retVars) {
	if r.vs != nil && cap(r.vs) <= maxKeptOwned && len(t.freeRets) < maxKeptLists {
		clear(r.vs) // the values, for the collector
		t.freeRets = append(t.freeRets, r.vs[:0])
	}
	if r.idx != nil && len(r.idx) <= maxKeptOwned && len(t.freeIdx) < maxKeptLists {
		clear(r.idx)
		t.freeIdx = append(t.freeIdx, r.idx)
	}
	*r = retVars{}
}

// doom lists o among the operations the next drop takes out.
func (t *opTable) doom(o *Op) { t.gone = append(t.gone, o) }

// room returns s with room for n more entries. When it must grow, it grows
// to twice the length needed, at once: a buffer that grew only as far as
// each new need would allocate again at every new largest need, long
// after the window has reached its usual size.
func room[T any](s []T, n int) []T {
	if need := len(s) + n; need > cap(s) {
		return slices.Grow(s, 2*need-len(s))
	}
	return s
}

// ceilPow2 is the least power of two that is at least n (n ≥ 1).
func ceilPow2(n int) int { return 1 << bits.Len(uint(n-1)) }

// The capacities of recycled lists: powers of two from minListCap to
// maxKeptOwned.
const (
	minListCap  = 4
	listClasses = 7 // 4, 8, …, 256
	maxListCap  = minListCap << (listClasses - 1)
)

// listClass is the class of capacity c, or -1 if c is none.
func listClass(c int) int {
	if c < minListCap || c > maxListCap || c&(c-1) != 0 {
		return -1
	}
	return bits.TrailingZeros(uint(c)) - bits.TrailingZeros(minListCap)
}

// maxKeptLists bounds the recycled return-value tables kept (each of at
// most maxKeptOwned entries): about 3 MB at worst.
const maxKeptLists = 256

// maxKeptListWords bounds the entries of the recycled lists kept in each
// capacity class (512 KB a class): 16,384 lists of 4 down to 256 of 256.
// The pools must absorb the swings of the window: with 256 lists a class,
// an MS queue holding two hundred values gave back more lists than were
// kept when its window shrank, and allocated them again as it grew.
const maxKeptListWords = 1 << 16

// maxKeptOps bounds the recycled operation structs kept (a few hundred
// bytes each), for the same reason.
const maxKeptOps = 4096

// maxOpListCap and maxOpOwnedCap bound the lists a recycled struct keeps
// for its next operation (recycle, keepOwned): with the structs kept, at
// most 5 MB of partner, overlap and order lists and 2 MB of owner lists.
const (
	maxOpListCap  = 32
	maxOpOwnedCap = 64
)

// maxKeptOwned is the most entries of a return-value table kept for
// reuse, and the capacity of the largest partner lists kept; bigger ones
// (an operation that was pending for long) are left to the collector.
const maxKeptOwned = 256

// The capacities of recycled owner lists: powers of two from minOwnedCap
// to minOwnedCap<<(ownedClasses-1) (2,048), at most maxKeptOwnedVars
// entries a class (128 KB). An operation owns about a dozen variables at
// concurrency 8, so most lists never grow.
const (
	minOwnedCap      = 16
	ownedClasses     = 8
	maxKeptOwnedVars = 1 << 14
)

// ownedClass is the class of capacity c, or -1 if c is none.
func ownedClass(c int) int {
	if c < minOwnedCap || c > minOwnedCap<<(ownedClasses-1) || c&(c-1) != 0 {
		return -1
	}
	return bits.TrailingZeros(uint(c)) - bits.TrailingZeros(minOwnedCap)
}
