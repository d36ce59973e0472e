package encode

import (
	"math/bits"

	"github.com/satmon/satmon/internal/z"
)

// Watched ∀∃ instances (SATURATE). An instance of a ∀∃ axiom is the
// disjunction
//
//	¬used(x̄) ∨ ¬ante ∨ rest ∨ ⋁w (used(w) ∧ wit(x̄,w))
//
// whose witnesses are conjunctions. Emitted as a clause, each witness of
// two or more literals needs a Tseitin helper t (t ⇒ each conjunct), and
// most instances never propagate anything. Watched, the instance is kept
// as a list of items, each a literal or a conjunction of literals, and
// nothing is emitted until it becomes unit or false:
//
//   - an item is false once one of its literals is, true once all are;
//   - when every item but one is false, the clauses "the false items'
//     false literals ∨ c" are emitted for each literal c of the last item
//     (implied by the instance: it resolved with the witnesses'
//     definitions), and propagate it;
//   - when every item is false, the clause of their false literals is
//     emitted, and it is a conflict.
//
// Unit propagation reaches the same fixpoint as with the clause and its
// helpers: a helper t is only ever made false by one of its conjuncts
// being false, and made true by the clause being unit on it, which then
// makes its conjuncts true — exactly the two events above. The instance
// is visited whenever one of its unassigned variables is assigned
// (Assigned), so no such event is missed.
//
// Forgetting follows the clauses it stands for: the instance's clause
// dies when one of its literals' variables is forgotten, or, when it has
// a helper, with any of its universally bound operations (the helper's
// owners); a helper's clause dies with its conjunct, after which that
// conjunct can no longer make the helper false, and a helper with none
// left is free, which makes the clause useless for good. So a watched
// instance dies when the variable of one of its literal items is
// forgotten, or, if it has a conjunction, when one of its universal
// operations is removed; a conjunction's forgotten literals are left out
// of it. All of this is read from the variables' epochs and the
// operations' lives (Op.life).
//
// With ClosedRemoval the caller promises more: what it forgets leaves a
// history that is linearizable whenever the whole one is (a match, §5
// Theorem 3; an operation that left the state alone). The window then
// stands for that smaller history, in which a forgotten witness does not
// exist: its item is false rather than dropped with the instance, and
// the instances it was a witness of are visited at once, as they may
// have become unit or false. Only the forgetting of a universally bound
// operation kills an instance. Dropping was sound for any forgetting but
// lost what the smaller history still implies: a lock history where the
// pair {lock(2), unlock ⇒ 2} was a possible witness of "lock(3) before
// lock(4) needs an unlock of 3 between them" was refuted by SATURATE
// and not by SATURATE -r (TestClosedRemovalKeepsDetection).

// winst is a watched instance: its items are wItems[items:items+nitems],
// and its universal operations, when it has a conjunction or forgetting
// is closed, are wOwners[owners:owners+nowners].
type winst struct {
	items, nitems   int32
	owners, nowners int32
	done            bool // materialised, satisfied or dead
}

// witem is an item: the literal wLits[at], or, with conj, the
// conjunction wLits[at:at+n] of a witness, which the clause form would
// give a helper.
type witem struct {
	at, n int32
	conj  bool
	// false: the conjunction has been false. Its helper would have been
	// made false then, and stayed so even once the false conjunct is
	// forgotten, so the item stays false.
	false_ bool
}

// wown is a universal operation of a watched instance, with its life
// (Op.life) when the instance was made: it is still in the window while
// they are equal. (Not its used variable's epoch: SATURATE may never make
// that variable.)
type wown struct {
	o    *Op
	life uint32
}

// wlit is a literal with the epoch of its variable when it was stored.
type wlit struct {
	l     Lit
	epoch uint32
}

// watchState holds the watched instances.
type watchState struct {
	on     bool
	insts  []winst
	items  []witem
	lits   []wlit
	owners []wown
	// watch[v] lists the instances to visit when variable v is assigned.
	watch [][]int32
	free  [watchClasses][][]int32 // recycled watch lists, by capacity class
	live  int                     // instances not done
	// compactAt is the instance count at which done instances are swept.
	compactAt int
	// watched counts the instances taken, materialised those that became
	// unit or false (GroundingStats).
	watched, materialised int
	reason                []Lit  // visit's false literals
	cl                    []Lit  // materialise's clause
	open                  []Lit  // visit's open item, for materialise
	one                   [1]Lit // partLits' literal part
	// closed: forgotten witnesses are false (ClosedRemoval); revisit
	// collects, during Remove, the instances they were watched by.
	closed  bool
	revisit []int32
}

// minCompact is the fewest instances at which a sweep is considered.
const minCompact = 1024

// watching reports whether an instance with a witness goes to watchInstance.
func (e *Encoder) watching(extra []Lit) bool { return e.w.on && extra == nil }

// watchInstance takes an instance (the parts of cleaf, with no true
// part): it is materialised now if it is unit or false, else stored and
// watched.
func (e *Encoder) watchInstance(parts []cpart, nf int) {
	w := &e.w
	if e.visitParts(parts) {
		// Materialised or satisfied at once, as visit would have found it
		// stored: most instances are, and are not stored at all.
		w.watched++
		return
	}
	id := int32(len(w.insts))
	in := winst{items: int32(len(w.items))}
	hasConj := false
	for _, p := range parts {
		if p.n == 0 {
			w.items = append(w.items, witem{at: int32(len(w.lits)), n: 1})
			w.lits = append(w.lits, wlit{p.lit, e.reg.epoch[p.lit.Var()]})
			continue
		}
		hasConj = true
		w.items = append(w.items, witem{at: int32(len(w.lits)), n: p.n, conj: true})
		for _, l := range e.scr.conj[p.at : p.at+p.n] {
			w.lits = append(w.lits, wlit{l, e.reg.epoch[l.Var()]})
		}
	}
	in.nitems = int32(len(w.items)) - in.items
	if hasConj || w.closed {
		in.owners = int32(len(w.owners))
		for _, o := range e.scr.env[:nf] {
			w.owners = append(w.owners, wown{o, o.life})
		}
		in.nowners = int32(len(w.owners)) - in.owners
	}
	w.insts = append(w.insts, in)
	w.live++
	w.watched++
	// visitParts found two open items, so visit keeps it open; it is
	// asked for what it records on the stored items (a conjunction seen
	// false). Were it done after all, it would be marked so and swept.
	if e.visit(id) {
		return
	}
	for _, it := range w.items[in.items : in.items+in.nitems] {
		for _, wl := range w.lits[it.at : it.at+it.n] {
			if e.lazy.Value(wl.l) == 0 {
				v := wl.l.Var()
				for int(v) >= len(w.watch) {
					w.watch = append(w.watch, nil)
				}
				w.addWatch(v, id)
			}
		}
	}
	if len(w.insts) >= max(w.compactAt, minCompact) {
		e.compactWatched()
	}
}

// visitParts is visit for an instance not stored yet, read from its
// parts: every variable's epoch is the current one, so only values
// decide. It materialises the instance if it is unit or false and
// reports whether it is done (materialised, or satisfied); if not, the
// caller stores it and visit evaluates it again, setting what it keeps
// (a conjunction seen false).
func (e *Encoder) visitParts(parts []cpart) bool {
	w := &e.w
	open, last := 0, -1
	for i, p := range parts {
		switch e.partValue(p) {
		case vTrue:
			return true
		case vUnknown:
			if open++; open > 1 {
				return false
			}
			last = i
		}
	}
	reason := w.reason[:0]
	for i, p := range parts {
		if i == last {
			continue
		}
		for _, l := range e.partLits(p) {
			if e.lazy.Value(l) == -1 {
				reason = append(reason, l)
				break
			}
		}
	}
	w.reason = reason
	if last < 0 {
		e.materialise(reason, false, nil)
	} else {
		e.materialise(reason, true, e.partLits(parts[last]))
	}
	return true
}

// materialise emits what an instance that is unit or false implies, given
// reason, a false literal of each false item: with no open item (unit
// false) the clause of reason, a conflict; else reason ∨ c for each
// literal c of the open item not already true.
func (e *Encoder) materialise(reason []Lit, unit bool, open []Lit) {
	w := &e.w
	w.materialised++
	if !unit {
		e.emit(reason)
		return
	}
	for _, l := range open {
		if e.lazy.Value(l) == 1 {
			continue
		}
		cl := append(append(w.cl[:0], reason...), l)
		w.cl = cl
		e.emit(cl)
	}
}

// partLits are the literals of a part: its literal, or its conjunction.
func (e *Encoder) partLits(p cpart) []Lit {
	if p.n == 0 {
		e.w.one[0] = p.lit
		return e.w.one[:]
	}
	return e.scr.conj[p.at : p.at+p.n]
}

// partValue is itemValue for a part not stored yet.
func (e *Encoder) partValue(p cpart) tri {
	if p.n == 0 {
		switch e.lazy.Value(p.lit) {
		case 1:
			return vTrue
		case -1:
			return vFalse
		}
		return vUnknown
	}
	t := vTrue
	for _, l := range e.scr.conj[p.at : p.at+p.n] {
		switch e.lazy.Value(l) {
		case -1:
			return vFalse
		case 0:
			t = vUnknown
		}
	}
	return t
}

// visit re-evaluates instance id and materialises it if it is unit or
// false; it reports whether the instance is done.
func (e *Encoder) visit(id int32) bool {
	w := &e.w
	in := &w.insts[id]
	if in.done {
		return true
	}
	if !e.watchAlive(in) {
		in.done = true
		w.live--
		return true
	}
	open, last := 0, int32(-1)
	for i := in.items; i < in.items+in.nitems; i++ {
		switch e.itemValue(&w.items[i]) {
		case vTrue:
			in.done = true
			w.live--
			return true
		case vUnknown:
			open++
			last = i
		}
	}
	if open > 1 {
		return false
	}
	// Unit on item last, or false: the false items' literals are the
	// reason.
	reason := w.reason[:0]
	for i := in.items; i < in.items+in.nitems; i++ {
		if i == last {
			continue
		}
		it := w.items[i]
		for _, wl := range w.lits[it.at : it.at+it.n] {
			if e.lazy.Value(wl.l) == -1 && e.reg.epoch[wl.l.Var()] == wl.epoch {
				reason = append(reason, wl.l)
				break
			}
		}
	}
	w.reason = reason
	if last < 0 {
		e.materialise(reason, false, nil)
	} else {
		// The open item's literals whose variables live (a conjunction's
		// forgotten literals are left out of it).
		it := w.items[last]
		open := w.open[:0]
		for _, wl := range w.lits[it.at : it.at+it.n] {
			if e.reg.epoch[wl.l.Var()] == wl.epoch {
				open = append(open, wl.l)
			}
		}
		w.open = open
		e.materialise(reason, true, open)
	}
	in = &w.insts[id]
	in.done = true
	w.live--
	return true
}

// itemValue is an item's value under the saturator's assignment. The
// forgotten literals of a conjunction are left out: their helper clauses
// died with them, so they can no longer make the helper false; once all
// are forgotten the helper is free and the item never false, which is as
// good as true. A conjunction seen false stays false (witem.false_): a
// materialised clause then leaves it out of its reason if its false
// literal has been forgotten, as the helper's fact outlives the conjunct
// in the clause form.
//
// With ClosedRemoval an item with a forgotten literal is false: its
// witness was forgotten (watchAlive has checked the universal ones).
func (e *Encoder) itemValue(it *witem) tri {
	if it.false_ {
		return vFalse
	}
	t := vTrue
	for _, wl := range e.w.lits[it.at : it.at+it.n] {
		if e.reg.epoch[wl.l.Var()] != wl.epoch {
			if e.w.closed {
				it.false_ = true
				return vFalse
			}
			if it.conj {
				continue
			}
		}
		switch e.lazy.Value(wl.l) {
		case -1:
			it.false_ = it.conj
			return vFalse
		case 0:
			t = vUnknown
		}
	}
	return t
}

// watchAlive reports whether the clause the instance stands for would
// still live: none of its literals' variables forgotten (a conjunction's
// literals are in the helper's clauses, not in it: see itemValue), and,
// with a conjunction, none of its universal operations (the helper's
// owners). With ClosedRemoval only the universal operations count: a
// literal item's variable is forgotten, while they live, only with its
// witness (the items' other literals mention universal operations alone,
// and a variable is forgotten only with an operation it belongs to).
func (e *Encoder) watchAlive(in *winst) bool {
	w := &e.w
	for _, o := range w.owners[in.owners : in.owners+in.nowners] {
		if o.o.life != o.life {
			return false
		}
	}
	if w.closed {
		return true
	}
	for _, it := range w.items[in.items : in.items+in.nitems] {
		if wl := w.lits[it.at]; !it.conj && e.reg.epoch[wl.l.Var()] != wl.epoch {
			return false
		}
	}
	return true
}

// watchAssigned visits the instances watching variable v, which was just
// assigned, and keeps those still open.
func (e *Encoder) watchAssigned(v z.Var) {
	w := &e.w
	if int(v) >= len(w.watch) {
		return
	}
	l := w.watch[v]
	if len(l) == 0 {
		return
	}
	keep := l[:0]
	for _, id := range l {
		if !e.visit(id) {
			keep = append(keep, id)
		}
	}
	w.watch[v] = keep
}

// watchForgotten drops the watch list of a forgotten variable: its
// instances are dead (watchAlive) and the variable may be recycled. With
// ClosedRemoval they may instead have lost a witness, and are kept for
// revisitForgotten.
func (e *Encoder) watchForgotten(v z.Var) {
	w := &e.w
	// Most forgotten variables were never watched, or their lists were
	// never given storage: nothing to keep or recycle.
	if int(v) < len(w.watch) && cap(w.watch[v]) > 0 {
		if w.closed {
			w.revisit = append(w.revisit, w.watch[v]...)
		}
		// The list goes back to the pool: the variable's index will be
		// reused, by a variable that may be watched by more instances or
		// by none.
		w.putIDs(w.watch[v])
		w.watch[v] = nil
	}
}

// addWatch adds instance id to v's watch list. A full list moves to a
// recycled list of twice the capacity, and is kept for reuse, so that a
// steady window allocates no watch list.
func (w *watchState) addWatch(v z.Var, id int32) {
	l := w.watch[v]
	if len(l) == cap(l) {
		nl := append(w.takeIDs(max(2*cap(l), minWatchCap)), l...)
		w.putIDs(l)
		l = nl
	}
	w.watch[v] = append(l, id)
}

// The capacities of recycled watch lists: powers of two from minWatchCap
// to minWatchCap<<(watchClasses-1) (1,024), at most maxKeptWatchIDs
// entries a class (128 KB).
const (
	minWatchCap     = 4
	watchClasses    = 9
	maxKeptWatchIDs = 1 << 15
)

// takeIDs returns an empty watch list of capacity c, a power of two.
func (w *watchState) takeIDs(c int) []int32 {
	if k := watchClass(c); k >= 0 {
		if n := len(w.free[k]); n > 0 {
			l := w.free[k][n-1]
			w.free[k] = w.free[k][:n-1]
			return l
		}
	}
	return make([]int32, 0, c)
}

// putIDs keeps l for reuse if its capacity is a class and the class is
// not full.
func (w *watchState) putIDs(l []int32) {
	if k := watchClass(cap(l)); k >= 0 && len(w.free[k]) < maxKeptWatchIDs/cap(l) {
		w.free[k] = append(w.free[k], l[:0])
	}
}

// watchClass is the class of capacity c, or -1 if c is none.
func watchClass(c int) int {
	if c < minWatchCap || c&(c-1) != 0 {
		return -1
	}
	if k := bits.TrailingZeros(uint(c)) - bits.TrailingZeros(minWatchCap); k < watchClasses {
		return k
	}
	return -1
}

// revisitForgotten visits, at the end of Remove, the instances that a
// forgotten variable was watched by: with ClosedRemoval one whose witness
// went may now be unit or false, and is materialised like any other.
// Those still open stay in the watch lists of their live literals.
func (e *Encoder) revisitForgotten() {
	w := &e.w
	for _, id := range w.revisit {
		e.visit(id)
	}
	w.revisit = w.revisit[:0]
}

// compactWatched sweeps the done and dead instances out of the arenas
// and rebuilds the watch lists; it runs when the instances have doubled
// since the last sweep, so its cost is constant per instance.
func (e *Encoder) compactWatched() {
	w := &e.w
	for v := range w.watch {
		w.watch[v] = w.watch[v][:0]
	}
	insts, items, lits, owners := w.insts[:0], w.items[:0], w.lits[:0], w.owners[:0]
	// In place: every write index trails its read index.
	for i := range w.insts {
		in := w.insts[i]
		if in.done || !e.watchAlive(&in) {
			continue
		}
		id := int32(len(insts))
		out := winst{items: int32(len(items)), nitems: in.nitems, owners: int32(len(owners)), nowners: in.nowners}
		owners = append(owners, w.owners[in.owners:in.owners+in.nowners]...)
		for _, it := range w.items[in.items : in.items+in.nitems] {
			at := int32(len(lits))
			for _, wl := range w.lits[it.at : it.at+it.n] {
				if e.reg.epoch[wl.l.Var()] != wl.epoch {
					continue // a conjunction's forgotten literal
				}
				lits = append(lits, wl)
				if v := wl.l.Var(); int(v) < len(w.watch) && e.lazy.Value(wl.l) == 0 {
					w.addWatch(v, id)
				}
			}
			items = append(items, witem{at: at, n: int32(len(lits)) - at, conj: it.conj, false_: it.false_})
		}
		insts = append(insts, out)
	}
	w.insts, w.items, w.lits, w.owners = insts, items, lits, owners
	w.live = len(insts)
	w.compactAt = 2 * len(insts)
}
