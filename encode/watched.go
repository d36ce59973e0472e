package encode

import (
	"slices"

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
// makes its conjuncts true — exactly the two events above. No such
// event is missed: the counts of watchAssigned see every assignment and
// forgetting that can change an item, and an instance is evaluated from
// scratch (visit) once at most one of its items is left.
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
// the instances it leaves unit or false are visited at once. Only the forgetting of a universally bound
// operation kills an instance. Dropping was sound for any forgetting but
// lost what the smaller history still implies: a lock history where the
// pair {lock(2), unlock ⇒ 2} was a possible witness of "lock(3) before
// lock(4) needs an unlock of 3 between them" was refuted by SATURATE
// and not by SATURATE -r (TestClosedRemovalKeepsDetection).

// winst is a watched instance: its items are items[items:items+nitems],
// and its universal operations, when it has a conjunction or forgetting
// is closed, are owners[owners:owners+nowners]. open counts its items
// that are not false.
type winst struct {
	items, nitems   int32
	owners, nowners int32
	open            int32
	done            bool // materialised, satisfied or dead
}

// witem is an item: the literal lits[at], or, with conj, the
// conjunction lits[at:at+n] of a witness, which the clause form would
// give a helper. inst is its instance; unk counts its literals not yet
// counted true.
type witem struct {
	at, n     int32
	inst, unk int32
	conj      bool
	// false_: the item has been false. It stays so: a literal is never
	// unassigned but by forgetting, and a forgotten literal leaves a
	// conjunction false (its helper was made false, and facts outlive
	// their variables' clauses), a literal item dead with its instance
	// or, with ClosedRemoval, false.
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

// wlit is a literal of an item, with the epoch of its variable when it
// was stored. ref is its item's index, or, once its value is in the
// counts (seen), the index's complement ^item (negative): one field for
// both keeps the literal at 16 bytes, written whole. A literal assigned
// when it is stored is counted then; Assigned may still be told of it
// later (it was assigned in the batch being told, or by a unit emitted
// since), and must not count it twice. next links the watch list of its
// variable, while it is in it: the next stored literal (+1; 0 ends the
// list). A literal is in its own variable's list or in none, so the
// lists need no entries of their own: linking and unlinking one writes
// the literal already at hand.
type wlit struct {
	l     Lit
	epoch uint32
	ref   int32
	next  int32
}

// item is the index of the literal's item.
func (wl *wlit) item() int32 {
	if wl.ref < 0 {
		return ^wl.ref
	}
	return wl.ref
}

// seen reports whether the literal's value is in the counts.
func (wl *wlit) seen() bool { return wl.ref < 0 }

// seenRef is ref for a literal of item whose value is counted (seen) or not.
func seenRef(item int32, seen bool) int32 {
	if seen {
		return ^item
	}
	return item
}

// watchState is the watched ∀∃ instances, part of the lazy grounding:
// it takes them (watchInstance), wakes them by the literals assigned
// (watchAssigned) and forgotten (watchForgotten, revisitForgotten), and
// emits those that become unit or false.
type watchState struct {
	e      *Encoder
	hk     *hooks // the encoder's (tests only)
	on     bool
	insts  []winst
	items  []witem
	lits   []wlit
	owners []wown
	// head[v] is the first stored literal (+1) of variable v's watch
	// list, linked through wlit.next: the stored literals of v whose
	// assignment or forgetting may still change their instance
	// (watchAssigned, watchForgotten).
	head []int32
	live int // instances not done
	// compactAt is the instance count at which done instances are swept.
	compactAt int
	// watched counts the instances taken, materialised those that became
	// unit or false (GroundingStats).
	watched, materialised int
	reason                []Lit // settle's false literals
	cl                    []Lit // settle's clause
	open                  []Lit // settle's open item
	// closed: forgotten witnesses are false (ClosedRemoval); revisit
	// collects, during Remove, the instances forgetting left unit or
	// false.
	closed  bool
	revisit []int32
}

// minCompact is the fewest instances at which a sweep is considered (a
// variable for the tests, which sweep often).
var minCompact = 1024

// watchInstance takes an instance (the parts of cleaf, with no true
// part): it is materialised now if it is unit or false, else stored and
// watched. settledAt is the encoder's clause count when cleaf began to
// settle the guards of the instance, when every other part was already
// settled.
func (w *watchState) watchInstance(parts []cpart, nf, settledAt int) {
	e := w.e
	w.watched++
	if e.clause == settledAt {
		// Every literal is settled (cleaf settles the guards, the other
		// parts were settled when made and only variables made since
		// were assigned, each settled after), and no clause has been
		// emitted since cleaf began: the saturator's values are as it
		// read them (it assigns nothing but when a clause is added, or
		// when it propagates, which it does not during grounding), so
		// every literal is unassigned, every item open, and the
		// instance not unit.
		if len(parts) <= 1 {
			w.watchUnit(parts)
		} else {
			w.watchSettled(parts, nf)
		}
		return
	}
	w.watchAny(parts, nf)
}

// watchUnit materialises an instance of at most one item, every literal
// unassigned (see watchInstance): there is no reason.
func (w *watchState) watchUnit(parts []cpart) {
	e := w.e
	w.materialised++
	if len(parts) == 0 {
		e.emit(w.cl[:0])
		return
	}
	p := &parts[0]
	if p.n == 0 {
		w.cl = append(w.cl[:0], p.lit)
		e.emit(w.cl)
		return
	}
	for _, l := range e.scr.conj[p.at : p.at+p.n] {
		if e.val(l) != 1 { // a duplicate, made true just now
			w.cl = append(w.cl[:0], l)
			e.emit(w.cl)
		}
	}
}

// watchSettled stores an instance of two or more items, every literal
// unassigned (see watchInstance): every literal is watched, and is put
// in its variable's watch list as it is stored. It is keepWatched too,
// written out for this, the usual case: the instance is kept.
//
// The arenas are grown once for the whole instance, the literals' to a
// bound read without a pass over the parts: a literal part has one
// literal, and a conjunction's are a run of e.scr.conj, which cleaf
// fills with this instance's conjunctions only (a bound too small would
// fail the index checks, not store wrong literals). The literals' arena
// is then cut to what was written.
func (w *watchState) watchSettled(parts []cpart, nf int) {
	e := w.e
	id := int32(len(w.insts))
	epoch, conj := e.reg.epoch, e.scr.conj
	lits0, items0 := len(w.lits), len(w.items)
	// The arenas are written back only when they grow; else only their
	// lengths are, at the end.
	if room := len(parts) + len(conj); cap(w.lits)-lits0 < room {
		w.lits = slices.Grow(w.lits, room)
	}
	lits := w.lits[:cap(w.lits)]
	if cap(w.items)-items0 < len(parts) {
		w.items = slices.Grow(w.items, len(parts))
	}
	its := w.items[items0 : items0+len(parts)]
	if len(w.head) < len(epoch) {
		// epoch has an entry for every variable made.
		w.head = append(w.head, make([]int32, len(epoch)-len(w.head))...)
	}
	// Cut to epoch's length, so that the check of epoch[v] also covers
	// head[v]; and the loop keeps few values live (item and k count,
	// whether there is a conjunction is read from k after it), since
	// the registers ran out and values went to the stack and back at
	// every item.
	head := w.head[:len(epoch)]
	k, item := lits0, int32(items0)
	for i := range its {
		p := &parts[i]
		n := p.n
		if n == 0 {
			v := p.lit.Var()
			its[i] = witem{at: int32(k), inst: id, n: 1, unk: 1}
			lits[k] = wlit{l: p.lit, epoch: epoch[v], ref: item, next: head[v]}
			k++
			head[v] = int32(k)
			item++
			continue
		}
		// Field by field: the composite literal went through a stack
		// temporary (copied in from a static one, then out).
		it := &its[i]
		it.at, it.n, it.inst, it.unk = int32(k), n, id, n
		it.conj, it.false_ = true, false
		if n == 2 {
			// A witness match ∧ b, most conjunctions: the pair written
			// out. Indexed, not cut to an array: a cut needs the run's
			// capacity, one more register in a loop that has too few.
			l0, l1 := conj[p.at], conj[p.at+1]
			v0 := l0.Var()
			lits[k] = wlit{l: l0, epoch: epoch[v0], ref: item, next: head[v0]}
			head[v0] = int32(k + 1)
			v1 := l1.Var()
			lits[k+1] = wlit{l: l1, epoch: epoch[v1], ref: item, next: head[v1]}
			k += 2
			head[v1] = int32(k)
			item++
			continue
		}
		for _, l := range conj[p.at : p.at+p.n] {
			v := l.Var()
			lits[k] = wlit{l: l, epoch: epoch[v], ref: item, next: head[v]}
			k++
			head[v] = int32(k)
		}
		item++
	}
	// A conjunction has two literals or more (cleaf makes a part of one
	// a literal part), a literal part one: there is a conjunction
	// exactly when there are more literals than parts.
	hasConj := k-lits0 > len(parts)
	w.items, w.lits = w.items[:items0+len(parts)], w.lits[:k]
	if w.hk != nil && w.hk.evalAll { // tests: check the claim
		for _, wl := range lits[lits0:k] {
			if e.val(wl.l) != 0 {
				panic("encode: a watched instance's literal was assigned since cleaf settled it")
			}
		}
	}
	in := winst{items: int32(items0), nitems: int32(len(parts)), open: int32(len(parts))}
	if hasConj || w.closed {
		o0 := len(w.owners)
		in.owners, in.nowners = int32(o0), int32(nf)
		// Grown only when full; else only the length is written back.
		if cap(w.owners)-o0 < nf {
			w.owners = slices.Grow(w.owners, nf)
		}
		w.owners = w.owners[:o0+nf]
		dst := w.owners[o0:]
		for i, o := range e.scr.env[:len(dst)] {
			dst[i] = wown{o, o.life}
		}
	}
	w.insts = append(w.insts, in)
	w.live++
	if len(w.insts) >= max(w.compactAt, minCompact) {
		w.compactWatched()
	}
}

// watchAny is watchInstance for an instance some of whose literals may
// be assigned: it is stored first, with its counts, and taken back if it
// is satisfied or materialised at once.
func (w *watchState) watchAny(parts []cpart, nf int) {
	e := w.e
	id := int32(len(w.insts))
	in := winst{items: int32(len(w.items)), nitems: int32(len(parts))}
	// Stored in locals, written back only if the instance is kept (or
	// settled from the arenas).
	items, lits, epoch, conj := w.items, w.lits, e.reg.epoch, e.scr.conj
	lits0 := len(lits)
	hasConj, last, assigned := false, int32(-1), false
	for i := range parts {
		p := &parts[i]
		item := int32(len(items))
		it := witem{at: int32(len(lits)), inst: id}
		if p.n == 0 {
			l := p.lit
			val := e.val(l)
			lits = append(lits, wlit{l: l, epoch: epoch[l.Var()], ref: seenRef(item, val != 0)})
			it.n = 1
			switch val {
			case 0:
				it.unk = 1
			case 1:
				return // satisfied: it can never become unit
			default:
				it.false_, assigned = true, true
			}
		} else {
			it.conj, hasConj = true, true
			for _, l := range conj[p.at : p.at+p.n] {
				val := e.val(l)
				lits = append(lits, wlit{l: l, epoch: epoch[l.Var()], ref: seenRef(item, val != 0)})
				switch val {
				case 0:
					it.unk++
				case -1:
					it.false_ = true
					fallthrough
				default:
					assigned = true
				}
			}
			it.n = p.n
			if !it.false_ && it.unk == 0 {
				return // satisfied
			}
		}
		items = append(items, it)
		if !it.false_ {
			in.open++
			last = item
		}
	}
	w.items, w.lits = items, lits
	if in.open <= 1 {
		w.settle(&in, last)
		w.items, w.lits = items[:in.items], lits[:lits0]
		return
	}
	how := watchAll
	if assigned {
		how = watchOpen
	}
	w.keepWatched(in, hasConj, nf, lits0, how)
}

// How keepWatched puts a new instance's literals in the watch lists.
const (
	watchAll  = iota // none is assigned: every one
	watchOpen        // some are assigned: those that watches keeps
)

// keepWatched stores instance in, whose items and literals are stored
// from lits0 on, and watches its literals as how says.
func (w *watchState) keepWatched(in winst, hasConj bool, nf, lits0 int, how int) {
	e := w.e
	items, lits := w.items, w.lits
	if hasConj || w.closed {
		owners := w.owners
		in.owners = int32(len(owners))
		for _, o := range e.scr.env[:nf] {
			owners = append(owners, wown{o, o.life})
		}
		in.nowners = int32(len(owners)) - in.owners
		w.owners = owners
	}
	w.insts = append(w.insts, in)
	w.live++
	switch how {
	case watchAll:
		w.addWatches(lits, lits0)
	case watchOpen:
		for k := lits0; k < len(lits); k++ {
			if wl := &lits[k]; w.watches(wl, &items[wl.item()], e.val(wl.l)) {
				w.addWatch(wl.l.Var(), int32(k))
			}
		}
	}
	if len(w.insts) >= max(w.compactAt, minCompact) {
		w.compactWatched()
	}
}

// keeps reports whether a stored literal of item it, whose value is val,
// belongs in its variable's watch list: whether the variable's
// assignment or forgetting can still make the item false. An unassigned
// one always can. Once it is assigned, only forgetting is left, and with
// ClosedRemoval it makes a true conjunct of a conjunction not yet false
// false (its witness is gone). (A true literal item has satisfied its
// instance, and a false item stays false.) Without ClosedRemoval
// forgetting makes no item false: it leaves a conjunct out of its
// conjunction, which may make it true, or kills the instance (a literal
// item's variable, a universal operation); neither can make the
// instance unit or false, and visit, which evaluates it from scratch
// before it is materialised, sees both.
func (w *watchState) keeps(it *witem, val int8) bool {
	return val == 0 || w.closed && val == 1 && it.conj && !it.false_
}

// watches is keeps for stored literal wl, whose value is val: a literal
// not counted yet is watched until Assigned is told of it.
func (w *watchState) watches(wl *wlit, it *witem, val int8) bool {
	return !wl.seen() || w.keeps(it, val)
}

// settle materialises an instance that is unit on item last (an index
// into items), or false (last < 0), from the current assignment: the
// clauses "a false literal of each other item ∨ c" for each live literal
// c of the open item, or the clause of the false literals.
func (w *watchState) settle(in *winst, last int32) {
	e := w.e
	reason := w.reason[:0]
	for i := in.items; i < in.items+in.nitems; i++ {
		if i == last {
			continue
		}
		// Indexed in a list cut at the end alone (see ownersAlive).
		it := w.items[i]
		lits := w.lits[:it.at+it.n]
		for k := it.at; int(k) < len(lits); k++ {
			if wl := &lits[k]; e.val(wl.l) == -1 && e.reg.epoch[wl.l.Var()] == wl.epoch {
				reason = append(reason, wl.l)
				break
			}
		}
	}
	w.reason = reason
	w.materialised++
	if last < 0 {
		e.emit(reason)
		return
	}
	// The open item's literals whose variables live (a conjunction's
	// forgotten literals are left out of it), but for those already true.
	it := w.items[last]
	open := w.open[:0]
	lits := w.lits[:it.at+it.n]
	for k := it.at; int(k) < len(lits); k++ {
		if wl := &lits[k]; e.reg.epoch[wl.l.Var()] == wl.epoch && e.val(wl.l) != 1 {
			open = append(open, wl.l)
		}
	}
	w.open = open
	for _, l := range open {
		cl := append(append(w.cl[:0], reason...), l)
		w.cl = cl
		e.emit(cl)
	}
}

// visit evaluates instance id from scratch, and materialises it if it is
// unit or false; it reports whether the instance is done. The counts
// call it only once they say that at most one item is left (and the
// tests' hooks.evalAll at every event).
func (w *watchState) visit(id int32) bool {
	in := &w.insts[id]
	if in.done {
		return true
	}
	if !w.watchAlive(in) {
		w.finish(in)
		return true
	}
	open, last := int32(0), int32(-1)
	for i := in.items; i < in.items+in.nitems; i++ {
		switch w.itemValue(&w.items[i]) {
		case vTrue:
			w.finish(in)
			return true
		case vUnknown:
			open++
			last = i
		}
	}
	if open > 1 {
		return false
	}
	w.settle(in, last)
	w.finish(&w.insts[id])
	return true
}

// finish marks an instance done.
func (w *watchState) finish(in *winst) {
	in.done = true
	w.live--
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
func (w *watchState) itemValue(it *witem) tri {
	e := w.e
	if it.false_ {
		return vFalse
	}
	t := vTrue
	// Indexed in a list cut at the end alone (see ownersAlive).
	lits := w.lits[:it.at+it.n]
	for k := it.at; int(k) < len(lits); k++ {
		wl := &lits[k]
		if e.reg.epoch[wl.l.Var()] != wl.epoch {
			if w.closed {
				it.false_ = true
				return vFalse
			}
			if it.conj {
				continue
			}
		}
		switch e.val(wl.l) {
		case -1:
			it.false_ = true
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
func (w *watchState) watchAlive(in *winst) bool {
	e := w.e
	if !w.ownersAlive(in) {
		return false
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

// ownersAlive reports whether the instance's universal operations are
// all still in the window.
func (w *watchState) ownersAlive(in *winst) bool {
	// Indexed from in.owners in a list cut at the end alone: the cut
	// from both ends, made at every call, cost more than the index
	// checks of the few owners read.
	owners := w.owners[:in.owners+in.nowners]
	for i := in.owners; int(i) < len(owners); i++ {
		if o := &owners[i]; o.o.life != o.life {
			return false
		}
	}
	return true
}

// watchAssigned is told that literal t became true, and updates the
// instances that watch its variable; it drops the literals that no
// assignment or forgetting can make matter any more (keeps).
//
// An instance is unit or false exactly when at most one of its items is
// not false, and can never be once one is true. Items only ever go from
// open to true or to false, each for good (witem.false_; a true item
// ends its instance), and only when a literal of theirs is assigned or
// forgotten. So counts suffice: each item counts its literals not yet
// true (unk), each instance its items not yet false (open), and every
// literal whose assignment or forgetting can still change them is in its
// variable's watch list (keeps). An item is true when its count reaches
// zero; the instance is evaluated from scratch (visit) only when its
// count of open items falls to one or none, to be materialised. The
// instance is thereby unit or false, satisfied or dead after exactly the
// same events as if every instance were evaluated whenever one of its
// literals is assigned or forgotten (TestWatchedCountsSweep checks it
// against that).
func (w *watchState) watchAssigned(t Lit) {
	// Small enough to be inlined: most variables have no watch list.
	if h := w.head; int(t.Var()) < len(h) && h[t.Var()] != 0 || w.hk != nil && w.hk.evalAll {
		w.wakeWatched(t)
	}
}

// wakeWatched is watchAssigned for a variable with a watch list. Each
// literal of the list is taken once, its next read from it: indexing the
// arena twice checked the index twice.
func (w *watchState) wakeWatched(t Lit) {
	if w.hk != nil && w.hk.evalAll {
		w.visitAll()
		return
	}
	v, prev := t.Var(), int32(0)
	for n := w.head[v]; n != 0; {
		wl := &w.lits[n-1]
		next := wl.next
		if w.litAssigned(wl, t) {
			prev = n
		} else if prev == 0 {
			w.head[v] = next
		} else {
			w.lits[prev-1].next = next
		}
		n = next
	}
}

// litAssigned updates the counts for stored literal wl, whose variable
// was assigned (t is now true), and reports whether it stays watched.
func (w *watchState) litAssigned(wl *wlit, t Lit) bool {
	// wl is read before anything below can grow the arenas.
	ref := wl.ref
	it := &w.items[wl.item()]
	if it.false_ {
		return false // read first: the instance is then not looked at
	}
	in := &w.insts[it.inst]
	switch {
	case in.done:
		return false
	case ref < 0:
		// Counted when it was stored.
		return w.keeps(it, valueGiven(wl.l, t))
	}
	wl.ref = ^ref // seen
	switch {
	case wl.l == t:
		if it.unk--; it.unk == 0 {
			w.finish(in)
			return false
		}
		return w.keeps(it, 1)
	}
	it.false_ = true
	if in.open--; in.open <= 1 && w.visit(it.inst) {
		return false
	}
	return w.keeps(it, -1)
}

// valueGiven is l's value, l's variable being assigned with t true.
func valueGiven(l, t Lit) int8 {
	if l == t {
		return 1
	}
	return -1
}

// watchForgotten empties the watch lists of forgotten variables vars
// (which may be recycled), in order. With ClosedRemoval their literals'
// items are now false, and an instance left with one open item or none
// is kept for revisitForgotten, which visits it once every variable of
// the forgetting is gone, unless one of its universal operations is
// already forgotten: it is dead, and done at once. Without, see keeps.
// One call for all of an operation's variables: most have no watch
// list, and are passed over in this loop. The lists are emptied here
// too, not in a function of their own: a call per list cost more than
// the work of most.
func (w *watchState) watchForgotten(vars []z.Var) {
	head := w.head // the loop writes entries, never the slice
	for _, v := range vars {
		if int(v) >= len(head) || head[v] == 0 {
			continue
		}
		if w.closed {
			for n := head[v]; n != 0; {
				wl := &w.lits[n-1]
				n = wl.next
				it := &w.items[wl.item()]
				if it.false_ {
					continue // read first: the instance is then not looked at
				}
				if in := &w.insts[it.inst]; !in.done {
					it.false_ = true
					if in.open--; in.open <= 1 {
						if w.ownersAlive(in) {
							w.revisit = append(w.revisit, it.inst)
						} else {
							// Dead already (Remove forgets an operation's
							// variables after it has ended its life), as
							// visit would find it: done now.
							w.finish(in)
						}
					}
				}
			}
		}
		head[v] = 0
	}
}

// revisitForgotten visits, at the end of Remove, the instances that
// forgetting left unit or false (or dead), with ClosedRemoval.
func (w *watchState) revisitForgotten() {
	if w.hk != nil && w.hk.evalAll {
		w.visitAll()
	}
	for _, id := range w.revisit {
		w.visit(id)
	}
	w.revisit = w.revisit[:0]
}

// visitAll (tests only: hooks.evalAll) evaluates every instance
// from scratch, as at every event: the counts must act exactly as this.
func (w *watchState) visitAll() {
	for id := range w.insts {
		w.visit(int32(id))
	}
}

// addWatch puts stored literal k, of variable v, in v's watch list.
func (w *watchState) addWatch(v z.Var, k int32) {
	if int(v) >= len(w.head) {
		w.head = append(w.head, make([]int32, int(v)+1-len(w.head))...)
	}
	w.lits[k].next = w.head[v]
	w.head[v] = k + 1
}

// addWatches puts every stored literal lits[from:] in its variable's
// watch list: addWatch, in one pass with the head table in a local.
func (w *watchState) addWatches(lits []wlit, from int) {
	head := w.head
	for k := from; k < len(lits); k++ {
		wl := &lits[k]
		v := wl.l.Var()
		if int(v) >= len(head) {
			head = append(head, make([]int32, int(v)+1-len(head))...)
		}
		wl.next = head[v]
		head[v] = int32(k) + 1
	}
	w.head = head
}

// compactWatched sweeps the done and dead instances out of the arenas
// and rebuilds the watch lists; it runs when the instances have doubled
// since the last sweep, so its cost is constant per instance.
func (w *watchState) compactWatched() {
	e := w.e
	clear(w.head)
	insts, items, lits, owners := w.insts[:0], w.items[:0], w.lits[:0], w.owners[:0]
	// In place: every write index trails its read index.
	all := w.insts
	for i := 0; i < len(all); i++ {
		// Most are done: they are passed over in a loop of their own,
		// read in place, not copied; in the loop below, the values it
		// keeps went to the stack and back at every instance.
		for i < len(all) && all[i].done {
			i++
		}
		if i == len(all) {
			break
		}
		in := all[i]
		if !w.watchAlive(&in) {
			continue
		}
		id := int32(len(insts))
		out := winst{items: int32(len(items)), nitems: in.nitems, owners: int32(len(owners)), nowners: in.nowners, open: in.open}
		owners = append(owners, w.owners[in.owners:in.owners+in.nowners]...)
		for _, it := range w.items[in.items : in.items+in.nitems] {
			at, item := int32(len(lits)), int32(len(items))
			for _, wl := range w.lits[it.at : it.at+it.n] {
				if e.reg.epoch[wl.l.Var()] != wl.epoch {
					continue // forgotten: its item is false, or it was left out
				}
				wl.ref = seenRef(item, wl.seen())
				lits = append(lits, wl)
			}
			it.at, it.n, it.inst = at, int32(len(lits))-at, id
			items = append(items, it)
		}
		insts = append(insts, out)
	}
	w.insts, w.items, w.lits, w.owners = insts, items, lits, owners
	for k := range w.lits {
		if wl := &w.lits[k]; w.watches(wl, &w.items[wl.item()], e.val(wl.l)) {
			w.addWatch(wl.l.Var(), int32(k))
		}
	}
	w.live = len(insts)
	w.compactAt = 2 * len(insts)
}
