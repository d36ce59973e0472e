package engine

import (
	"slices"
	"strings"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/valtab"
)

// remover decides which operations of the window are obsolete (§5.3) and
// may be forgotten after saturation. See docs/removal.md for the rules and
// why each is sound.
//
//   - Injective objects (queue, stack, priority queue, lock, semaphore,
//     exchanger): a match — an add and the remove that returned its tag —
//     is obsolete once both have returned (Lemma 5.1, Corollary 3). We
//     forget it only when, in addition, no pending operation overlaps it:
//     then everything the axioms say about the operations concurrent with
//     it has been saturated, and the order facts that must outlive it
//     (Example 5.8) are units that stay.
//   - Register (R-ordered): a write, with the reads of its value, is
//     obsolete once overwritten: a later write w' started after it ended,
//     has returned, and no pending operation overlaps w' (Lemma 5.2).
//   - Set: likewise, an insertion and the removal matched to it.
//   - Operations that leave the state unchanged (rem ⇒ empty, exchange ⇒
//     null, reads, contains, failed set operations) once no pending
//     operation overlaps them: deleting such an operation from any
//     sequential witness leaves a legal run, so the library is closed under
//     their removal just as under match removal.
//
// Waiting for quiescence is capped for the injective objects: when more
// than maxWait returned operations wait because some pending operation
// overlaps them, the oldest are forgotten anyway. The paper calls them
// obsolete already (Corollary 3), so this is sound; it only gives up
// the derivations that the stalled operation's return would have made
// through them. Without the cap, one stalled operation (a preempted
// thread in a recorded log) keeps every operation called after it, and
// the window grows with the log. Register and set keep the strict rule:
// there, a pending read or lookup may still need the forgotten write or
// insertion.
//
// Matching must be unique (§5.1): when a tag repeats (two adds of one value,
// two removes returning it, two writes of one value, an untagged unlock),
// the operations carrying it are never removed, and the count is reported.
type remover struct {
	obj h.Object
	// vals is the window's interner. byKey holds the live tags by the
	// ID of their value (the operation's ArgID or RetID, as sides
	// says; an exchanger's pair of values is interned on its own), and
	// each live tag holds a reference to its ID (tag, drop): so a tag
	// is never found under the ID of another value, even after the
	// operations that carried its value are forgotten.
	vals    *valtab.Interner
	byKey   []*tagged // the live tags, by ID; nil where none
	quiet   []int     // serials waiting for no pending operation to overlap them
	repeats int       // tags seen repeated (matching not unique)
	maxWait int       // most operations waiting for quiescence (injective objects)
	forced  int       // operations forgotten because the cap was reached
	// repeatedLive counts the tags of byKey seen repeated, so that
	// anyRepeated, asked at every quiescent point, visits no map.
	repeatedLive int
	// observers holds, for the set, the returned operations that observed
	// a value present (contains ⇒ true, add ⇒ false): they are matched to
	// an insertion and must go with it.
	observers map[h.Value][]int
	// kept holds state-preserving operations that became quiet but whose
	// observation real time does not imply (implied): forgetting them
	// would drop the order they impose. They go with their match (a
	// register read with its overwritten write, a set's presence observer
	// with its insertion) or at the next summary (summary.go).
	kept []int
	// initGone: the register's virtual initial write was forgotten at a
	// summary (summary.go).
	initGone bool
	// out is settle's result, always: Monitor.Step keeps it and gives
	// back its previous buffer as out (TestRemovedBufferSwap), so neither
	// copies; freeTags the tags settle released, reused by tag: so that a
	// steady window allocates nothing here. more, taken, keys and over are the
	// buffers of recheck, takeObservers and overwritten, whose results
	// settle copies into out at once.
	out      []int
	freeTags []*tagged
	tagChunk []tagged // allocated for tag and not yet used
	more     []int
	taken    []int
	keys     []valtab.ID
	over     []int
}

// tagged collects the live operations carrying one tag.
type tagged struct {
	adds, rems []int // serials: the adding side and the matched side
	repeated   bool
	id         valtab.ID // the tag's ID, its index in byKey
	// add1 and rem1 hold adds and rems while a tag is unique, as most
	// are, so that a new tag allocates no slices.
	add1, rem1 [1]int
}

// defaultMaxWait is the cap on operations waiting for quiescence; each
// waiting match holds two operations in the window. A window of generated
// logs with 8 operations open at a time holds about 50 operations, so the
// cap only acts when an operation stalls.
const defaultMaxWait = 64

func newRemover(obj h.Object, vals *valtab.Interner) *remover {
	return &remover{obj: obj, vals: vals, observers: map[h.Value][]int{}, maxWait: defaultMaxWait}
}

// noID is the ID sides gives a key that is not interned: an exchanger's
// pair of values that no live tag has.
const noID = ^valtab.ID(0)

// get returns the live tag of ID id, or nil.
func (r *remover) get(id valtab.ID) *tagged {
	if int64(id) < int64(len(r.byKey)) {
		return r.byKey[id]
	}
	return nil
}

// tag returns the live tag of key v, whose ID sides gave, made if new.
func (r *remover) tag(v h.Value, id valtab.ID) *tagged {
	t := r.get(id)
	if t == nil {
		if id == noID {
			id = r.vals.Intern(v)
		} else {
			r.vals.Hold(id)
		}
		if n := len(r.freeTags); n > 0 {
			t = r.freeTags[n-1]
			r.freeTags = r.freeTags[:n-1]
		} else {
			if len(r.tagChunk) == 0 {
				r.tagChunk = make([]tagged, tagChunk)
			}
			t = &r.tagChunk[0]
			r.tagChunk = r.tagChunk[1:]
			t.adds, t.rems = t.add1[:0], t.rem1[:0]
		}
		t.id = id
		if int(id) >= len(r.byKey) {
			r.byKey = append(r.byKey, make([]*tagged, r.vals.Cap()-len(r.byKey))...)
		}
		r.byKey[id] = t
	}
	return t
}

// release drops tag t, whose operations are forgotten, and keeps its
// struct for reuse.
func (r *remover) release(t *tagged) {
	r.drop(t)
	r.reuse(t)
}

// reuse keeps the struct of a tag no longer in byKey for the next tag.
func (r *remover) reuse(t *tagged) {
	if len(r.freeTags) < maxFreeTags {
		*t = tagged{adds: t.adds[:0], rems: t.rems[:0]}
		r.freeTags = append(r.freeTags, t)
	}
}

// maxFreeTags bounds the released tags kept for reuse; as with
// maxFreeOps, they never number more than the tags once live at a time.
const maxFreeTags = 1 << 12

// tagChunk is how many tag structs tag allocates at once.
const tagChunk = 32

// sides says how an operation takes part in matching: its tag and the
// tag's ID (noID if it has none yet), and whether it is on the adding
// side (add, write, lock, acquire) or the matched side; ok=false for
// operations that never match (state-preserving ones) and untagged ones.
func (r *remover) sides(o *h.Op) (key h.Value, id valtab.ID, adding, ok bool) {
	l := &o.Label
	switch r.obj {
	case h.Queue, h.Stack, h.PQueue:
		if l.Method == h.Add {
			return l.Arg, o.ArgID, true, true
		}
		if o.RetID == valtab.EmptyID {
			return "", noID, false, false
		}
		return l.Ret, o.RetID, false, true
	case h.Lock, h.Semaphore:
		if l.Method == h.LockM || l.Method == h.Acquire {
			return l.Arg, o.ArgID, true, true
		}
		return l.Ret, o.RetID, false, true
	case h.Register:
		if l.Method == h.Write {
			return l.Arg, o.ArgID, true, true
		}
		return l.Ret, o.RetID, false, true
	case h.Set:
		if l.Method == h.Add && l.Ret == h.True {
			return l.Arg, o.ArgID, true, true
		}
		if l.Method == h.Rem && l.Ret == h.True {
			return l.Arg, o.ArgID, false, true
		}
		return "", noID, false, false
	case h.Exchanger:
		if l.Ret == h.Null {
			return "", noID, false, false
		}
		// Both partners carry the unordered pair of values, interned
		// by the tag itself (tag).
		a, b := l.Arg, l.Ret
		if b < a {
			a, b = b, a
		}
		key := a + "\x00" + b
		id, ok := r.vals.Lookup(key)
		if !ok {
			id = noID
		}
		return key, id, l.Arg < l.Ret, true
	}
	return "", noID, false, false
}

// returned is told of each return after saturation found no conflict; it
// returns the serials that are now obsolete.
func (r *remover) returned(w *window, s int) []int {
	o := w.op(s)
	if changesValue(r.obj, &o.Label) {
		// Values repeat in these registers, so no match is known to be
		// unique (§5.1): the paper's rules never forget a state change;
		// summaries at quiescent points do (summary.go). What only
		// observes the state (reads, failed cas, gets) goes as below.
		return r.settle(w)
	}
	key, id, adding, matches := r.sides(o)
	switch {
	case !matches:
		r.quiet = append(r.quiet, s)
		if l := o.Label; r.obj == h.Set && (l.Method == h.Contains && l.Ret == h.True || l.Method == h.Add && l.Ret == h.False) {
			r.observers[l.Arg] = append(r.observers[l.Arg], s)
		}
	case key == h.Void && r.obj != h.Exchanger:
		r.repeats++ // an untagged unlock or release: matching not unique
	default:
		t := r.tag(key, id)
		if adding {
			t.adds = append(t.adds, s)
		} else {
			t.rems = append(t.rems, s)
		}
		if len(t.adds) > 1 || (len(t.rems) > 1 && r.obj != h.Register) {
			if !t.repeated {
				t.repeated = true
				r.repeatedLive++
				r.repeats++
			}
			break
		}
		switch {
		case r.obj == h.Register:
			// A write waits to overwrite older ones; a read, which leaves
			// the state alone, waits to be forgotten.
			r.quiet = append(r.quiet, s)
		case len(t.adds) == 1 && len(t.rems) == 1:
			// The later of the pair waits for quiet and takes the other along.
			r.quiet = append(r.quiet, s)
		}
	}
	return r.settle(w)
}

// changesValue reports whether l changes the compare-and-set or string
// register (write, successful cas, put, append).
func changesValue(obj h.Object, l *h.Label) bool {
	switch obj {
	case h.CASRegister:
		return l.Method == h.Write || l.Method == h.CAS && l.Ret == h.OK
	case h.StringRegister:
		return l.Method != h.Read
	}
	return false
}

// settle releases the waiting operations that no pending operation
// overlaps any more. r.quiet is in return order, so they form a prefix;
// past the cap, the oldest go too, except those held by a pending
// operation of the same tag, which keep waiting. The result is valid
// until the next call.
func (r *remover) settle(w *window) []int {
	min := w.pendingMinCall()
	out := r.out[:0]
	lastWrite := -1 // the latest quiet write released (register)
	// held counts the operations kept waiting, moved in place to the
	// front of r.quiet (they are fewer than the ones visited).
	held := 0
	n := 0
	for ; n < len(r.quiet); n++ {
		s := r.quiet[n]
		o := w.op(s)
		if o == nil {
			continue
		}
		if min >= 0 && min < o.Return {
			if !r.overCap(held + len(r.quiet) - n) {
				break
			}
			if key, _, _, ok := r.sides(o); ok && r.pendingMayCarry(w, key) {
				r.quiet[held] = s
				held++
				continue
			}
			r.forced++
		}
		key, id, adding, matches := r.sides(o)
		switch {
		case r.obj == h.Register && adding:
			lastWrite = s
		case r.obj == h.Register, !matches:
			// A read, or another operation that leaves the state alone.
			// Unless the cap forces it out, it goes only if what it saw
			// is implied by real time (exact); otherwise it is kept.
			switch {
			case min >= 0 && min < o.Return || r.implied(w, o):
				out = append(out, s)
			case r.obj == h.StringRegister:
				// Left in the window, not rechecked: its puts and
				// appends are never forgotten and what comes later
				// is called after o returned, so real time will
				// never imply more of what o saw than it does now,
				// and there is no summary to take it.
			default:
				r.kept = append(r.kept, s)
			}
		case matches:
			if t := r.get(id); t != nil && !t.repeated && len(t.adds) == 1 && len(t.rems) == 1 {
				add, rem := t.adds[0], t.rems[0]
				out = append(out, add, rem)
				r.release(t)
				if r.obj == h.Set {
					out = append(out, r.takeObservers(w, key, w.op(rem).Return)...)
				}
			}
		}
	}
	if n > held {
		// Some left the list (most returns release none: nothing moves).
		r.quiet = append(r.quiet[:held], r.quiet[n:]...)
	}
	if lastWrite >= 0 {
		out = append(out, r.overwritten(w, lastWrite)...)
	}
	if len(r.kept) > 0 {
		out = append(out, r.recheck(w, out)...)
	}
	r.out = out
	return out
}

// recheck returns the kept operations that real time now implies: what
// kept them back (an add overlapping a rem ⇒ empty, a write overlapping a
// read) may have been forgotten since, and the argument of implied holds
// on the window as it is. Those already in out are left there.
func (r *remover) recheck(w *window, out []int) []int {
	more := r.more[:0]
	keep := r.kept[:0]
	for _, s := range r.kept {
		o := w.op(s)
		switch {
		case o == nil:
		case slices.Contains(out, s):
		case r.implied(w, o):
			more = append(more, s)
		default:
			keep = append(keep, s)
		}
	}
	clear(r.kept[len(keep):])
	r.kept = keep
	r.more = more
	return more
}

// overCap reports whether waiting operations must be released although
// a pending operation overlaps them, waiting being the number that wait:
// the cap applies to injective objects only.
//
// A pending operation that may carry the same tag on the adding side
// (another add of the value, another acquire of the token) still holds
// its pair back (settle): the tag may turn out repeated, and then the pair
// need not be a match at all (TestForcedRemovalSound found a false
// violation that way). A pending remove that later returns the tag of a
// forgotten pair is harmless: with the adding side unique, that is a
// violation anyway.
func (r *remover) overCap(waiting int) bool {
	return r.obj != h.Register && r.obj != h.Set && waiting > r.maxWait
}

// pendingMayCarry reports whether a pending operation may be on the
// adding side of tag key. Adding-side tags are arguments, known at the
// call; an exchange carries its own value.
func (r *remover) pendingMayCarry(w *window, key h.Value) bool {
	for _, s := range w.pending.Values() {
		l := &w.op(s).Label
		switch r.obj {
		case h.Exchanger:
			a, b, _ := strings.Cut(string(key), "\x00")
			if string(l.Arg) == a || string(l.Arg) == b {
				return true
			}
		default:
			if (l.Method == h.Add || l.Method == h.LockM || l.Method == h.Acquire) && l.Arg == key {
				return true
			}
		}
	}
	return false
}

// takeObservers removes the set's presence observers of value v that may
// be matched to the insertion being forgotten: those called before its
// removal returned. Later ones can only observe a later insertion.
func (r *remover) takeObservers(w *window, v h.Value, before int) []int {
	out := r.taken[:0]
	keep := r.observers[v][:0]
	for _, s := range r.observers[v] {
		o := w.op(s)
		switch {
		case o == nil:
		case o.Call < before:
			out = append(out, s)
		default:
			keep = append(keep, s)
		}
	}
	if len(keep) == 0 {
		delete(r.observers, v)
	} else {
		r.observers[v] = keep
	}
	r.taken = out
	return out
}

// overwritten removes, for the register, every write that the quiet
// write latest overwrites — those that returned before latest was called
// — together with the reads of their values. latest stays: the next reads
// may read it.
//
// It removes all of them or none: a write that latest overwrites but that
// stays (its value is written twice, or it is the initial write, which
// SYMBOLIC never forgets) would be readable again by a read concurrent
// with latest once the writes between them are gone, and a violation
// could be lost. So nothing goes while such a write has a value repeated,
// or while a read of the initial value was called before latest returned;
// summaries (summary.go) take over there.
func (r *remover) overwritten(w *window, latest int) []int {
	lw := w.op(latest)
	keys := r.keys[:0]
	defer func() { r.keys = keys[:0] }()
	blocked := false
	for _, t := range r.byKey {
		if t == nil {
			continue
		}
		for _, a := range t.adds {
			wr := w.op(a)
			if blocked || a == latest || wr == nil || wr.Return < 0 || wr.Return >= lw.Call {
				continue
			}
			if t.repeated || len(t.adds) != 1 {
				blocked = true
				continue
			}
			keys = append(keys, t.id)
		}
	}
	if blocked {
		return nil
	}
	if v, ok := w.kernel.InitialWrite(); ok {
		for _, o := range w.all() {
			if o.Label.Method == h.Read && o.Label.Ret == v && o.Call < lw.Return {
				return nil
			}
		}
	}
	out := r.over[:0]
	for _, id := range keys {
		t := r.byKey[id]
		out = append(out, t.adds[0])
		for _, rd := range t.rems {
			if o := w.op(rd); o != nil && o.Return >= 0 {
				out = append(out, rd)
			}
		}
		r.drop(t)
	}
	r.over = out
	return out
}

// drop deletes tag t from byKey and gives back its ID.
func (r *remover) drop(t *tagged) {
	if t.repeated {
		r.repeatedLive--
	}
	r.byKey[t.id] = nil
	r.vals.Release(t.id)
}

// lookup returns the live tag of key, or nil.
func (r *remover) lookup(key h.Value) *tagged {
	if id, ok := r.vals.Lookup(key); ok {
		return r.get(id)
	}
	return nil
}

// repeated reports whether tag key is live and seen repeated.
func (r *remover) repeated(key h.Value) bool {
	t := r.lookup(key)
	return t != nil && t.repeated
}

// anyRepeated reports whether some live tag is repeated.
func (r *remover) anyRepeated() bool { return r.repeatedLive > 0 }

// forgetTags drops what the remover knows of the operations of tags keys
// (all tags when keys is nil): a summary (summary.go) has replaced them.
// The waiting list keeps their serials; settle skips operations that are
// gone.
func (r *remover) forgetTags(keys []h.Value) {
	if keys == nil {
		for _, t := range r.byKey {
			if t != nil {
				r.drop(t)
				r.reuse(t)
			}
		}
		clear(r.observers)
		r.repeatedLive = 0
		return
	}
	for _, k := range keys {
		if t := r.lookup(k); t != nil {
			r.drop(t)
		}
		delete(r.observers, k)
	}
}

// implied reports whether what the state-preserving operation o observed
// is guaranteed by real time alone, among the operations of the window:
// then o constrains no linearization, and forgetting it is exact — for
// every extension of the log, the window with o is linearizable iff the
// window without it is. o is quiet (every operation called before it
// returned has returned), so what is called later comes after it.
//
// Why: in a linearization without o, let F be the first operation called
// after o returned (in linearization order). Put o right before F: that
// respects real time, since what returned before o was called returned
// before F was called. Every operation before that point was called
// before o returned. If each state change that could leave the state o
// did not see was followed, in real time, by one that left the state o
// saw, which itself returned before o was called, the last state change
// before o's place leaves what o saw: o is legal there.
//
// Forgetting o when this does not hold can lose a violation: a
// contains(x) ⇒ true concurrent with add(x) puts add(x) before every
// operation called after the contains returned, and a later
// contains(x) ⇒ false overlapping add(x) is then a violation only while
// the first contains is there (TestForgetObserverKeepsViolation).
// SATURATE keeps the unit facts it derived through o, but only those
// about operations already in the window; SYMBOLIC keeps none.
func (r *remover) implied(w *window, o *h.Op) bool {
	l := &o.Label
	switch r.obj {
	case h.Register:
		v, ok := w.kernel.InitialWrite()
		return lastImplied(w, o, ok && !r.initGone && v == l.Ret, func(y *h.Label) (bool, bool) {
			return y.Method == h.Write, y.Arg == l.Ret
		})
	case h.CASRegister:
		// A read ⇒ v saw v; a failed cas(old, ·) saw any value but old.
		// The state changes are writes and successful cas, to their
		// argument.
		saw := func(v h.Value) bool { return v == l.Ret }
		if l.Method == h.CAS {
			saw = func(v h.Value) bool { return v != l.Old }
		}
		v, _ := w.kernel.InitialWrite()
		return lastImplied(w, o, !r.initGone && saw(v), func(y *h.Label) (bool, bool) {
			ch := y.Method == h.Write || y.Method == h.CAS && y.Ret == h.OK
			return ch, ch && saw(y.Arg)
		})
	case h.StringRegister:
		if l.Method != h.Read {
			return true
		}
		// A get ⇒ s saw s. A put sets the state to its argument; an
		// append changes it, and is counted as leaving a state the get
		// did not see (exact for a non-empty append after a put(s),
		// conservative otherwise): so a get is forgotten only where a
		// put(s), or the initial state, is its state by real time.
		v, ok := w.kernel.InitialWrite()
		return lastImplied(w, o, ok && !r.initGone && v == l.Ret, func(y *h.Label) (bool, bool) {
			switch y.Method {
			case h.Write:
				return true, y.Arg == l.Ret
			case h.Append:
				return true, false
			}
			return false, false
		})
	case h.Set:
		var present bool
		switch {
		case l.Method == h.Contains:
			present = l.Ret == h.True
		case l.Method == h.Add && l.Ret == h.False:
			present = true
		case l.Method == h.Rem && l.Ret == h.False:
		default:
			return true
		}
		// The set starts empty; a summary that found the value absent
		// wrote nothing.
		return lastImplied(w, o, !present, func(y *h.Label) (bool, bool) {
			if y.Arg != l.Arg || y.Ret != h.True || y.Method != h.Add && y.Method != h.Rem {
				return false, false
			}
			return true, (y.Method == h.Add) == present
		})
	case h.Queue, h.Stack, h.PQueue:
		if l.Method != h.Rem || l.Ret != h.Empty {
			return true
		}
		// Empty: every add and successful remove returned before o was
		// called (or was called after it returned), as many of each
		// (ADDREM matches every successful remove to an earlier add).
		n := 0
		for _, y := range w.all() {
			switch {
			case y.Call > o.Return:
			case y.Label.Method == h.Add:
				n++
			case y.Label.Method == h.Rem && y.Label.Ret != h.Empty && !y.Pending():
				n--
			default:
				continue
			}
			if y.Call <= o.Return && (y.Return < 0 || y.Return > o.Call) {
				return false
			}
		}
		return n == 0
	}
	return true
}

// lastImplied reports whether, in every linearization of the window, the
// last state change before o's place is one that leaves the state o saw:
// change tells of an operation whether it changes the state and whether
// to that state; initGood whether the initial state is that state. It
// holds when some good change returned before o was called (or the
// initial state is good) and every bad change not called after o
// returned had returned before some good change that returned before o
// was called, was called.
func lastImplied(w *window, o *h.Op, initGood bool, change func(*h.Label) (bool, bool)) bool {
	goodCall := -1 // latest call of a good change that returned before o was called
	for _, y := range w.all() {
		if ch, good := change(&y.Label); ch && good && y.Return >= 0 && y.Return < o.Call {
			goodCall = max(goodCall, y.Call)
		}
	}
	if goodCall < 0 && !initGood {
		return false
	}
	for _, y := range w.all() {
		if ch, good := change(&y.Label); ch && !good && y.Call < o.Return && (y.Return < 0 || y.Return > goodCall) {
			return false
		}
	}
	return true
}

// keptLive filters the kept operations to those still in the window and
// reports whether any is left, on value v if v is not nil.
func (r *remover) keptLive(w *window, v *h.Value) bool {
	r.kept = w.live(r.kept)
	for _, s := range r.kept {
		if v == nil || w.op(s).Label.Arg == *v {
			return true
		}
	}
	return false
}
