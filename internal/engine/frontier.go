package engine

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	h "github.com/satmon/satmon/internal/history"
)

// The frontier: the exact check of the three registers (register,
// compare-and-set register, string register) that the default variant
// runs, with a window of the open operations only (docs/removal.md,
// "Summaries at any cut").
//
// At every point of the log the operations that returned are summarized
// by a set of configurations. A configuration is what some linearization
// of the history so far, all of whose linearization points lie before
// now, leaves: the register's state, which open operations have already
// taken effect (taken), and what the open observers may still return:
// for an open read, the states the register passed through since its call
// (seen); for an open compare-and-set, whether a state other than its old
// value came since its call (other: it may fail). Every transition is
// regStep, the sequential specification the kernels encode
// (TestFrontierAgreesWithSAT checks the configurations against the kernel
// by SAT).
//
//   - A call adds the operation to the open ones: each configuration
//     records, for a read, its current state as seen, for a
//     compare-and-set whether it may already fail.
//   - The return of o keeps the configurations in which o can have taken
//     effect with the result it returned: from each configuration, the
//     open operations that change the state (writes, appends, successful
//     compare-and-sets) are taken one after the other, in every order,
//     until o's result is explained (a write or append taken, a
//     compare-and-set taken as success, or, failed, a state other than
//     its old value seen, a read's value seen). A configuration that
//     explains o goes to the new set and is not extended: whatever it
//     would be extended by can still be taken later, the operations being
//     still open, so it covers its extensions. o is then forgotten.
//   - No configuration left: no linearization of the history so far
//     exists, and this return is the earliest that proves it.
//
// An operation that will never return (Jepsen's :info, Monitor.Abandon)
// may take effect once at any later time, or never. A configuration in
// which it has not taken effect covers the same one with it taken, so it
// leaves the open operations for a pool of transitions by label, each
// usable as many times as crashed operations carry it: a configuration
// counts which it used (used), and crashed operations with one label are
// counted, not enumerated. A crashed read or failed compare-and-set
// changes nothing and is dropped. Configurations that differ only in
// which crashed operations they used are merged into one that stands
// for the multisets of either (fconf.alts, a product of disjunctions,
// frontterms.go); one covers another across the operations taken
// where a hidden write, or a crashed write of the same value left,
// stands for an open write taken (covers; docs/removal.md, "Keeping it
// small"); and the search uses no crashed write where an open write of
// the same value is left (openWriteOf, frontdupw.go).
//
// The window is therefore the open operations: bounded by the concurrency
// (and not by the crashed operations, which are labels and counts). The
// configurations are bounded by the subsets of the open operations that
// change the state; past frontBudget the frontier gives up (top), and the
// ok that follows is not a proof (Monitor.warnFrontier says so).

// maxFrontSlots is the most operations open at once (crashed ones apart)
// that the frontier follows: taken and other are bitsets.
const maxFrontSlots = 64

// frontBudget bounds the configurations one return may create; past it
// the frontier gives up.
const frontBudget = 1 << 17

// fslot is an open operation of the frontier.
type fslot struct {
	inUse  bool
	serial int
	l      h.Label // as called: Ret unknown
	// known: a read or compare-and-set whose result is known already
	// (the monitor looked ahead to its return, frontmon.go). For a read,
	// target is its state: only that state need be recorded as seen; a
	// compare-and-set that succeeded need not record other states. What
	// is known of the future only narrows what is recorded, never the
	// configurations: those stay the history so far's.
	known  bool
	target uint32
	ok     bool
	// arg: a write's state, a compare-and-set's new one; old: a
	// compare-and-set's old state (ids)
	arg, old uint32
}

// poolKey is a crashed operation's label, as far as its transition goes.
type poolKey struct {
	m        h.Method
	arg, old h.Value
}

// poolLabel is a transition that crashed operations offer, and how many
// of them offer it.
type poolLabel struct {
	l h.Label
	n int
	// from, to: a compare-and-set's old and new states (ids); to: a
	// write's state
	from, to uint32
	// free: usable any number of times, not counted in used (the
	// fallback's, frontfall.go)
	free bool
}

// fconf is a configuration.
type fconf struct {
	st    uint32 // state id (frontier.states)
	taken uint64 // open operations (slots) that took effect
	other uint64 // open compare-and-sets that may fail: a state ≠ old came since the call
	// hide: open writes that may be placed, unseen, right before a write
	// taken since their call: as good as taken, and they may still be
	// taken later.
	hide uint64
	// seenK: open reads whose result is known (fslot.known) that saw it
	seenK uint64
	// pastK: open reads whose result is known, not seen, that a crashed
	// write of their result may explain in the past, put right before a
	// write taken since their call (frontpast.go)
	pastK uint64
	seen  []uint64 // other open reads: slot<<32 | state id, sorted
	used  []uint32 // pool labels used, sorted, a multiset
	// alts: crashed operations used besides used, as a product of
	// disjunctions (frontterms.go): c stands for the configurations
	// that used used ⊎ t1 ⊎ … ⊎ tk, ti one of the terms (sorted
	// multisets: two or more, none containing another, no label in
	// all) of the i-th factor. Configurations that differ only in the
	// crashed operations they used are merged so (merge). Shared
	// between clones, never written in place.
	alts [][][]uint32
}

// clone copies c. seen and used are changed in place (slices.Insert,
// Delete) and are copied; alts is never written in place (a change
// makes a new list), so the copy shares it. Once crashed writes of many
// values have been used, nearly every configuration carries factors, and
// copying them would cost more than the rest of a clone.
//
// used gets room for one label more: a clone is mostly made to use a
// crashed operation (use), and a second allocation for its insertion
// cost as much as the first.
func (c *fconf) clone() fconf {
	var used []uint32
	if len(c.used) > 0 {
		used = append(make([]uint32, 0, len(c.used)+1), c.used...)
	}
	return fconf{st: c.st, taken: c.taken, other: c.other, hide: c.hide, seenK: c.seenK, pastK: c.pastK, seen: slices.Clone(c.seen), used: used, alts: slices.Clip(c.alts)}
}

type frontier struct {
	obj   h.Object
	slots [maxFrontSlots]fslot
	// hi: no slot from hi on was ever in use (call takes the lowest
	// free one), so loops over the open operations stop there: a log
	// of 8 clients scans 8 or 9 slots, not 64.
	hi       int
	bySerial map[int]int
	confs    []fconf
	spare    []fconf // room for the next return's configurations (ret)
	pool     []poolLabel
	poolIdx  map[poolKey]int
	states   []regState
	stateID  map[regState]uint32
	top      bool   // gave up: nothing more is checked
	why      string // why it gave up
	checks   int
	maxConfs int
	stack    []fconf
	keep     []bool
	// wanted's marks: wmark[st] == wgen for the states wlist lists.
	wmark []uint32
	hmark []uint32 // want's, not wantSoft's (wmark's generation)
	wgen  uint32
	wlist []uint32
	wkf   []int  // open compare-and-sets known to fail, not taken
	fails uint64 // failMask, during one return's search
	// wb: wanted's open compare-and-sets known to fail, not taken,
	// that have seen no other state than their old value (retro);
	// retSlot: the returning operation's slot, during ret's search.
	wb      uint64
	retSlot int
	// The pool by kind: writes by value (and all), compare-and-sets by
	// old value (and all), appends.
	poolWrite  []int32 // by state id: 1 + the label of its crashed writes, 0 none (crashedWrite)
	poolWrites []int
	poolCAS    map[h.Value][]int
	poolOther  []int
	poolCASAll []int
	poolBuf    []int // ret's: the crashed operations to try from one configuration
	// cover's record of the configurations of one return, by state and
	// operations taken; created counts them.
	groups  []gent   // prune's, by state
	cidx    cindex   // allG by key (once byKey)
	allG    []kgent  // cover's record of this return's configurations
	byKey   bool     // cidx indexes allG
	gone    []bool   // merge's scratch
	grouped []bool   // mergeFew's scratch
	group   []int    // mergeFew's scratch
	need    []uint32 // covers' scratch
	rest    []uint32 // usedCovers' scratch
	useBuf  []fconf  // ret's: what use makes of one configuration
	pastBuf []fconf  // ret's: what pastUse makes of one configuration
	all     []fconf
	created int
	// explored: the configurations created over all returns (a
	// deterministic measure of the frontier's work, for benchmarks).
	explored int
	// pastUsed: the configurations pastUse made (frontpast.go), for
	// the tests.
	pastUsed int
	// pastExt: the search's extensions with the returning read marked,
	// on which pastUse is not called (frontpast.go), for tests
	pastExt int

	// lost: why the frontier stopped being exact but goes on, soundly
	// (frontfall.go); lostAt: the step where it was lost; lostSaid: the
	// monitor warned. maxOpen, budget: test knobs for maxFrontSlots and
	// frontBudget, 0 for those.
	lost            string
	lostAt          int
	lostSaid        bool
	maxOpen, budget int
	degraded        int // how many returns degrade rebuilt
	spent           int // configurations created since exactness was lost

	// sortByState's scratch (prune's order)
	sortKeys []uint64
	sortTmp  []gent
	parts    []ppart // pruneGroup's
	em       enterMasks
	wc       wcache
	// borrowed: the configuration cover is given holds its lists in
	// bseen and bused (borrowClone), and takes copies of its own if
	// it is new.
	borrowed bool
	bseen    []uint64
	bused    []uint32
	// casFrom's: poolCAS by state id, made when the pool had casByN
	// labels.
	casBy  [][]int
	casByN int
	// openFirst: crashed writes not used for an open one (openWriteOf),
	// counted for tests.
	openFirst int
}

func newFrontier(obj h.Object, init regState, hasInit bool) *frontier {
	f := &frontier{obj: obj, bySerial: map[int]int{}, poolIdx: map[poolKey]int{},
		stateID: map[regState]uint32{},
		poolCAS: map[h.Value][]int{}}
	f.intern(regState{}) // id 0: no value
	st := uint32(0)
	if hasInit {
		st = f.intern(init)
	}
	f.confs = []fconf{{st: st}}
	f.maxConfs = 1
	return f
}

func (f *frontier) intern(s regState) uint32 {
	if id, ok := f.stateID[s]; ok {
		return id
	}
	id := uint32(len(f.states))
	f.states = append(f.states, s)
	f.stateID[s] = id
	return id
}

// giveUp stops checking: every later return is accepted.
func (f *frontier) giveUp(why string) {
	f.top, f.why = true, why
	f.confs = nil
}

// apply is the transition of a state-changing label at state st: a
// compare-and-set as a success.
func (f *frontier) apply(st uint32, l *h.Label) (uint32, bool) {
	lab := *l
	lab.Pending = false
	if lab.Method == h.CAS {
		lab.Ret = h.OK
	}
	ns, ok := regStep(f.obj, f.states[st], &lab)
	if !ok {
		return 0, false
	}
	return f.intern(ns), true
}

// applySlot is apply for the open operation sl: a write's state is
// sl.arg, interned at its call, so the search hashes no value for it.
func (f *frontier) applySlot(st uint32, sl *fslot) (uint32, bool) {
	if sl.l.Method == h.Write {
		return sl.arg, true
	}
	return f.apply(st, &sl.l)
}

// applyPool is apply for the pool's transition pl: a write's and a
// compare-and-set's states are interned when the label enters the pool.
func (f *frontier) applyPool(st uint32, pl *poolLabel) (uint32, bool) {
	switch {
	case pl.l.Method == h.Write:
		return pl.to, true
	case pl.l.Method == h.CAS && f.obj == h.CASRegister:
		// regStep: a success, from the old value only (from is a state
		// with a value, so a register without one has no transition).
		return pl.to, st == pl.from
	}
	return f.apply(st, &pl.l)
}

// stateChanging reports whether l may change the state: a write, an append, a
// compare-and-set (as a success).
func stateChanging(l *h.Label) bool {
	return l.Method == h.Write || l.Method == h.Append || l.Method == h.CAS
}

// addSeen records that open read p saw state st in c.
func (f *frontier) addSeen(c *fconf, p int, st uint32) {
	if f.slots[p].known {
		c.seenK |= 1 << p
		c.pastK &^= 1 << p
		return
	}
	x := uint64(p)<<32 | uint64(st)
	i, found := slices.BinarySearch(c.seen, x)
	if !found {
		c.seen = slices.Insert(c.seen, i, x)
	}
}

// hasSeen reports whether open read p saw state st in c.
func (f *frontier) hasSeen(c *fconf, p int, st uint32) bool {
	if f.slots[p].known {
		return c.seenK&(1<<p) != 0 && st == f.slots[p].target
	}
	_, found := slices.BinarySearch(c.seen, uint64(p)<<32|uint64(st))
	return found
}

// dropSlot forgets slot p in c.
func (c *fconf) dropSlot(p int) {
	c.taken &^= 1 << p
	c.other &^= 1 << p
	c.hide &^= 1 << p
	c.seenK &^= 1 << p
	c.pastK &^= 1 << p
	lo, _ := slices.BinarySearch(c.seen, uint64(p)<<32)
	hi, _ := slices.BinarySearch(c.seen, uint64(p+1)<<32)
	if hi > lo {
		c.seen = slices.Delete(c.seen, lo, hi)
	}
}

// call adds the operation serial, called with label l. For a read, ret is
// its result when already known (known).
func (f *frontier) call(serial int, l h.Label, known bool, ret h.Value) {
	if f.top {
		return
	}
	p := -1
	for i := range f.openLimit() {
		if !f.slots[i].inUse {
			p = i
			break
		}
	}
	if p < 0 {
		f.overflow(l, fmt.Sprintf("more than %d operations open at once", f.openLimit()))
		return
	}
	f.slots[p] = fslot{inUse: true, serial: serial, l: l}
	f.hi = max(f.hi, p+1)
	switch {
	case known && l.Method == h.Read:
		f.slots[p].known, f.slots[p].target = true, f.intern(regState{ret, true})
	case known && l.Method == h.CAS:
		f.slots[p].known, f.slots[p].ok = true, ret == h.OK
	}
	sl := &f.slots[p]
	switch l.Method {
	case h.Write:
		sl.arg = f.intern(regState{l.Arg, true})
	case h.CAS:
		sl.old, sl.arg = f.intern(regState{l.Old, true}), f.intern(regState{l.Arg, true})
	}
	f.bySerial[serial] = p
	for i := range f.confs {
		c := &f.confs[i]
		s := f.states[c.st]
		switch l.Method {
		case h.Read:
			if s.has && (!sl.known || sl.target == c.st) {
				f.addSeen(c, p, c.st)
			}
		case h.CAS:
			if s.has && s.val != l.Old && !(sl.known && sl.ok) {
				c.other |= 1 << p
			}
		}
	}
}

// explains reports whether c explains the return of slot j with label l.
func (f *frontier) explains(c *fconf, j int, l *h.Label, want uint32) bool {
	switch {
	case l.Method == h.Read:
		return f.hasSeen(c, j, want)
	case l.Method == h.CAS && l.Ret == h.Fail:
		return c.taken&(1<<j) == 0 && c.other&(1<<j) != 0
	}
	return c.taken&(1<<j) != 0 || l.Method == h.Write && c.hide&(1<<j) != 0
}

// wantedNow is wanted, computed (wcache keeps it): it marks the states
// that taking a write may help reach in c, or
// says all: the result of an open read not yet seen (any, for a read
// whose result is unknown); the old value of an open compare-and-set not
// taken (any, for one whose result is unknown that has not seen another
// state yet), but of one known to fail only if it leads to a wanted
// state, as of a crashed one (one known to fail that has not seen
// another state yet is recorded in f.wb for retro, and makes any wanted
// only at its own return); any, for a string register, whose appends
// extend any state. A write of another value taken now and overwritten
// later is as good as hidden (fconf.hide), and one left last is as good
// as taken later: the frontier need not take it before another
// operation.
func (f *frontier) wantedNow(c *fconf) (all bool) {
	f.wgen++
	f.wlist, f.wkf, f.wb = f.wlist[:0], f.wkf[:0], 0
	if f.obj == h.StringRegister {
		return true
	}
	for p := range f.slots[:f.hi] {
		sl := &f.slots[p]
		if !sl.inUse {
			continue
		}
		switch sl.l.Method {
		case h.Read:
			if !sl.known {
				return true
			}
			if !f.hasSeen(c, p, sl.target) {
				if p == f.retSlot {
					f.want(sl.target)
				} else {
					// Its crashed writes wait (frontpast.go).
					f.wantSoft(sl.target)
				}
			}
		case h.CAS:
			switch {
			case c.taken&(1<<p) != 0:
			case sl.known && !sl.ok:
				// Known to fail: taken as a success, it dies at its
				// return; it helps only by the state it leaves,
				// as a crashed compare-and-set does (below).
				// One that has not seen another state yet needs
				// one only by its return: at its return it wants
				// all; before, a write of another value is placed
				// right before a write taken (retro, frontretro.go).
				if c.other&(1<<p) == 0 {
					if p == f.retSlot {
						return true
					}
					f.wb |= 1 << p
				}
				f.wkf = append(f.wkf, p)
			case c.other&(1<<p) == 0 && !(sl.known && sl.ok):
				return true
			default:
				f.want(sl.old)
			}
		}
	}
	// A crashed compare-and-set, or an open one known to fail, from u to
	// a wanted state makes u wanted.
	for grew := true; grew; {
		grew = false
		for _, li := range f.poolCASAll {
			pl := &f.pool[li]
			if f.wanted1(pl.to) && !f.hard1(pl.from) {
				f.want(pl.from)
				grew = true
			}
		}
		for _, p := range f.wkf {
			if sl := &f.slots[p]; f.wanted1(sl.arg) && !f.hard1(sl.old) {
				f.want(sl.old)
				grew = true
			}
		}
	}
	return false
}

// want marks state id st wanted (wanted's marks), for crashed writes
// too.
func (f *frontier) want(st uint32) {
	f.wantSoft(st)
	f.hmark[st] = f.wgen
}

// wantSoft marks state id st wanted for open writes only: by an open
// read known to return it, not the returning one, whose crashed writes
// need not be used before its return (frontpast.go).
func (f *frontier) wantSoft(st uint32) {
	for int(st) >= len(f.wmark) {
		f.wmark = append(f.wmark, 0)
		f.hmark = append(f.hmark, 0)
	}
	if f.wmark[st] != f.wgen {
		f.wmark[st] = f.wgen
		f.wlist = append(f.wlist, st)
	}
}

// hard1 reports whether want marked state id st.
func (f *frontier) hard1(st uint32) bool {
	return int(st) < len(f.hmark) && f.hmark[st] == f.wgen
}

// wanted1 reports whether wanted marked state id st.
func (f *frontier) wanted1(st uint32) bool {
	return int(st) < len(f.wmark) && f.wmark[st] == f.wgen
}

// ret applies the return of serial with label l (its result known) and
// reports whether some linearization of the history so far exists.
func (f *frontier) ret(serial int, l h.Label) bool {
	f.checks++
	if f.top {
		return true
	}
	j, ok := f.bySerial[serial]
	if !ok {
		return true
	}
	delete(f.bySerial, serial)
	var want uint32
	if l.Method == h.Read {
		want = f.intern(regState{l.Ret, true})
	}
	failed := l.Method == h.CAS && l.Ret == h.Fail
	searched := false // add's configuration is an extension (hiddenOnly)
	writesOnly := l.Method == h.Write && f.writesOnly()
	// The returning operation as it may take effect: a failed
	// compare-and-set never changes the state.
	f.slots[j].l = l
	f.fails = f.failMask()
	f.retSlot = j
	f.enterPrep()
	f.wc.reset()
	f.resetCover()
	out := f.spare[:0]
	queue := f.stack[:0]
	// hid: c extends one that explained j as a hidden write, and is
	// in out already (see below).
	add := func(c fconf, hid bool) bool {
		if failed && c.taken&(1<<j) != 0 {
			return true // dead: cannot fail once taken as a success
		}
		if c.pastK&(1<<j) == 0 {
		} else if searched {
			// Not for the search's extensions: those it would
			// make are covered by c's or by the search's own
			// (pastUse, frontpast.go).
			f.pastExt++
		} else {
			// j explained in the past by a crashed write of its
			// result (frontpast.go): recorded before c, which
			// covers them and goes on below.
			n := len(f.pastBuf)
			f.pastBuf = f.pastUse(&c, j, f.pastBuf)
			for k := n; k < len(f.pastBuf); k++ {
				if f.cover(&f.pastBuf[k]) {
					out = append(out, f.pastBuf[k])
				}
			}
			f.pastBuf = f.pastBuf[:n]
		}
		// The configurations of before the return were pruned at the
		// last one, and a call since changed alike those of one state
		// (what it records depends on the state alone): none covers
		// another but where the pool took an operation, which prune
		// finds. They are recorded, not compared.
		fresh := !searched
		if writesOnly && hiddenOnly(&c, j, &l, searched) {
			c.st = 0 // no value: see writesOnly
			fresh = false
		}
		if fresh {
			f.record(&c)
		} else if !f.cover(&c) {
			return true
		}
		if f.created > f.confBudget() {
			return false
		}
		if f.explains(&c, j, &l, want) && !hiddenOnly(&c, j, &l, searched) {
			if !hid || c.taken&(1<<j) != 0 {
				out = append(out, c)
			}
			if c.taken&(1<<j) != 0 || !stateChanging(&l) || failed {
				// What c would be extended by stays open (or
				// crashed) after this return: the next return's
				// search can take it, to the same effect, and an
				// operation called meanwhile sees more states, not
				// fewer, so c covers its extensions.
				return true
			}
			// A write explained as hidden in the past may also take
			// effect now, or after others: that is no extension of c.
			// Only those are: what c is extended by before j is
			// taken, j still hidden, is an extension of c by
			// operations that stay open (or crashed) after this
			// return, which c, in out, stands for (hid).
		}
		queue = append(queue, c)
		return true
	}
	tooMany := func() bool {
		f.stack = queue[:0]
		f.degrade(j, l, fmt.Sprintf("one return had more than %d configurations to explore", f.confBudget()))
		return true
	}
	for _, c := range f.confs {
		if !add(c, false) {
			return tooMany()
		}
	}
	// Breadth first, so that configurations that used fewer crashed
	// operations come first and cover the others.
	searched = true
	for head := 0; head < len(queue); head++ {
		c := queue[head]
		all := f.wanted(&c)
		hid := f.explains(&c, j, &l, want)
		for p := range f.slots[:f.hi] {
			sl := &f.slots[p]
			if !sl.inUse || c.taken&(1<<p) != 0 || !stateChanging(&sl.l) || p == j && failed {
				continue
			}
			// A compare-and-set known to fail is still taken as a success
			// until it returns: the history so far, where it is open,
			// allows that, and a violation is reported at the earliest
			// return after which none of its linearizations exists.
			if p != j && sl.l.Method == h.Write && !all && !f.wanted1(sl.arg) {
				continue
			}
			// One known to fail, taken as a success towards a state
			// nothing wants, records nothing an open operation needs
			// and dies at its return: what follows it goes as well
			// without it (see the crashed compare-and-sets below).
			if p != j && sl.l.Method == h.CAS && sl.known && !sl.ok && !all && !f.wanted1(sl.arg) {
				continue
			}
			ns, ok := f.applySlot(c.st, sl)
			if !ok {
				continue
			}
			c2 := f.borrowClone(&c)
			c2.taken |= 1 << p
			c2.hide &^= 1 << p
			f.enter(&c2, ns, &sl.l)
			f.borrowed = true
			added := add(c2, hid)
			f.borrowed = false
			f.bseen, f.bused = c2.seen[:0], c2.used[:0]
			if !added {
				return tooMany()
			}
			if sl.l.Method == h.Write && !all && f.wb != 0 && !f.retro(c.st, &c2, p, hid, add) {
				return tooMany()
			}
		}
		// Crashed operations: writes of a wanted value, compare-and-sets
		// from the current state to a wanted one, appends.
		// In room of its own (poolBuf): appending to poolOther's
		// clipped would allocate for every configuration.
		pool := append(f.poolBuf[:0], f.poolOther...)
		if cur := f.states[c.st]; cur.has {
			for _, li := range f.casFrom(c.st) {
				// One to a state u that is not wanted helps
				// nothing, as a crashed write of a value not
				// wanted does not: unless all, entering u records
				// nothing an open operation needs (a read known to
				// return u wants u; a compare-and-set that may
				// still need another state makes all), and what
				// may follow u either ignores the state (a write)
				// or starts from u, which then is wanted (an open
				// compare-and-set's old value; by wanted's
				// closure, a crashed one's to a wanted state).
				if all || f.wanted1(f.pool[li].to) {
					pool = append(pool, li)
				}
			}
		}
		if all {
			pool = append(pool, f.poolWrites...)
		} else {
			for _, st := range f.wlist {
				if li, ok := f.crashedWrite(st); ok && f.hard1(st) {
					pool = append(pool, li)
				}
			}
		}
		f.poolBuf = pool
		for _, li := range pool {
			pl := &f.pool[li]
			ns, ok := f.applyPool(c.st, pl)
			if !ok || f.poolIdle(&c, pl, ns) {
				continue
			}
			// Only the configurations c stands for that have one
			// crashed operation of li left use it (use).
			f.useBuf = f.use(&c, li, f.useBuf[:0])
			for k := range f.useBuf {
				c2 := f.useBuf[k]
				f.enter(&c2, ns, &pl.l)
				if !add(c2, hid) {
					return tooMany()
				}
				if pl.l.Method == h.Write && !all && f.wb != 0 && !f.retro(c.st, &c2, -1, hid, add) {
					return tooMany()
				}
			}
		}
	}
	f.stack = queue[:0]
	f.explored += f.created
	f.slots[j] = fslot{}
	for i := range out {
		out[i].dropSlot(j)
	}
	prev := f.confs
	f.confs = f.prune(out)
	if n := len(f.confs); n > 1 {
		// A merge may leave one configuration covering another;
		// where it merged none, pruning again would keep them all.
		if f.confs = f.merge(f.confs); len(f.confs) < n {
			f.confs = f.prune(f.confs)
		}
	}
	// The next return builds its configurations in these ones' room:
	// nothing holds on to them (the search copies them).
	clear(prev)
	f.spare = prev[:0]
	f.maxConfs = max(f.maxConfs, len(f.confs))
	if cap(f.all) > 1<<14 {
		// A rare return explored many: do not hold on to its room.
		f.all, f.stack, f.spare = nil, nil, nil
		f.groups, f.allG = nil, nil
		f.sortKeys, f.sortTmp = nil, nil
		f.cidx = cindex{}
	}
	if f.checks%64 == 0 {
		f.normalize()
	}
	return len(f.confs) > 0
}

// normalize takes the crashed operations every configuration used out of
// the pool and out of the configurations: what is left to each is the
// same, and the lists stay as short as the configurations differ.
func (f *frontier) normalize() {
	if len(f.confs) == 0 || len(f.confs[0].used) == 0 {
		return
	}
	common := slices.Clone(f.confs[0].used)
	for i := 1; i < len(f.confs) && len(common) > 0; i++ {
		common = intersect(common, f.confs[i].used)
	}
	if len(common) == 0 {
		return
	}
	for _, li := range common {
		f.pool[li].n--
	}
	for i := range f.confs {
		f.confs[i].used = minus(f.confs[i].used, common)
	}
}

// intersect is the multiset intersection of the sorted a and b, in a.
func intersect(a, b []uint32) []uint32 {
	out, j := a[:0], 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			out = append(out, x)
			j++
		}
	}
	return out
}

// minus is the sorted multiset a less b (contained in a), in a.
func minus(a, b []uint32) []uint32 {
	out, j := a[:0], 0
	for _, x := range a {
		if j < len(b) && b[j] == x {
			j++
			continue
		}
		out = append(out, x)
	}
	return out
}

// covers reports whether a covers b: the same state, and every way on
// open to b open to a, so that b can go (docs/removal.md, "Keeping it small").
//   - Each open operation b took that a did not is a write hidden in a:
//     as good as taken, and still free to take effect later; or a
//     compare-and-set known to fail, which b took as a success and dies
//     by at its return (failMask).
//   - Each open operation a took that b did not is a write, and a has, of
//     the crashed writes of its value, one more left than b: where b
//     takes the open write, a uses the crashed one, to the same effect
//     (a crashed write may take effect at any time, an open one only
//     until it returns).
//   - a's observers saw at least b's (seen, other), a hides at least the
//     writes b hides (but those a took), and a used, besides those, at
//     most the crashed operations b used.
//
// Every move open to b is then open to a and leads to configurations of
// which the one covers the other, and every return b explains a explains.
func (f *frontier) covers(a, b *fconf) bool {
	dA, dB := a.taken&^b.taken, b.taken&^a.taken
	if a.st != b.st || dB&^a.hide != 0 && dB&^a.hide&^f.failMask() != 0 || b.hide&^dA&^a.hide != 0 || a.other&b.other != b.other ||
		!pastCovers(a, b) || !subset(b.seen, a.seen) {
		return false
	}
	ks := b.seenK &^ a.seenK // marked in a (pastCovers)
	if dA == 0 && ks == 0 {
		return f.usedCovers(a.used, a.alts, b)
	}
	// Only dA's slots are looked at (not writeMask's every open one):
	// covers runs for most pairs of a return's configurations.
	need := f.need[:0]
	need = append(need, a.used...)
	if ks != 0 {
		var ok bool
		if need, ok = f.pastNeed(need, ks); !ok {
			f.need = need
			return false
		}
	}
	for m := dA; m != 0; m &= m - 1 {
		sl := &f.slots[bits.TrailingZeros64(m)]
		if !sl.inUse || sl.l.Method != h.Write {
			return false
		}
		li, ok := f.crashedWrite(sl.arg)
		if !ok {
			return false
		}
		i, _ := slices.BinarySearch(need, uint32(li))
		need = slices.Insert(need, i, uint32(li))
	}
	f.need = need
	return f.usedCovers(need, a.alts, b)
}

// writeMask is the open writes, by slot.
func (f *frontier) writeMask() uint64 {
	var m uint64
	for p := range f.slots[:f.hi] {
		if f.slots[p].inUse && f.slots[p].l.Method == h.Write {
			m |= 1 << p
		}
	}
	return m
}

// subset reports whether the sorted multiset a is contained in b.
func subset[T uint32 | uint64](a, b []T) bool {
	if len(a) > len(b) {
		return false
	}
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
		j++
	}
	return true
}

// gent is a configuration as cover and prune index it: covers' tests
// on bitsets, and a summary of its lists (one bit per hash), in one
// place, so that the pairs that fail them, most, cost a few
// instructions.
type gent struct {
	// seenK: the known reads seen or marked, seenK | pastK (covers'
	// test on them: pastCovers)
	taken, other, hide, seenK uint64
	seen, used                uint64 // the summaries of the lists
	i                         int
}

func gentOf(c *fconf, i int) gent {
	g := gent{taken: c.taken, other: c.other, hide: c.hide, seenK: c.seenK | c.pastK, i: i}
	for _, x := range c.seen {
		g.seen |= 1 << ((x * 0x9E3779B97F4A7C15) >> 58)
	}
	for _, x := range c.used {
		g.used |= 1 << ((uint64(x) * 0x9E3779B97F4A7C15) >> 58)
	}
	return g
}

// mayCover is covers' test on a's and b's bitsets and summaries: false
// only if a does not cover b. writes is the open writes: a may have
// taken some of them that b did not.
func mayCover(a, b *gent, writes, fails uint64) bool {
	dA, dB := a.taken&^b.taken, b.taken&^a.taken
	return dA&^writes == 0 && (a.hide|fails)&dB == dB && b.hide&^dA&^a.hide == 0 && a.other&b.other == b.other &&
		a.seenK&b.seenK == b.seenK && b.seen&^a.seen == 0 && a.used&^b.used == 0
}

// coveredAmong reports whether a configuration recorded since
// resetCover under key k covers c (summary e), where the open
// compare-and-sets known to fail fails may be taken by c alone.
func (f *frontier) coveredAmong(k ckey, c *fconf, e *gent, fails uint64) bool {
	if !f.byKey {
		for x := range f.allG {
			if g := &f.allG[x]; g.k == k && mayCover(&g.g, e, 0, fails) && f.covers(&f.all[g.g.i], c) {
				return true
			}
		}
		return false
	}
	// The latest coverChain of the bucket only: where one key holds
	// many configurations that do not cover one another (each with its
	// own crashed operations used, in factors that no longer merge),
	// comparing each new one with all the others made a return
	// quadratic in them. Stopping early keeps a configuration that
	// another may cover, never drops one; prune compares those kept.
	n := 0
	for x := f.cidx.first(&k); x >= 0 && n < coverChain; x = f.allG[x].next {
		n++
		if g := &f.allG[x]; g.k == k && mayCover(&g.g, e, 0, fails) && f.covers(&f.all[g.g.i], c) {
			return true
		}
	}
	return false
}

// coverChain bounds the configurations of one bucket that cover
// compares a new one with.
const coverChain = 128

// resetCover starts a new set of configurations for cover.
func (f *frontier) resetCover() {
	f.byKey = false
	f.allG = f.allG[:0]
	f.created = 0
	f.all = f.all[:0]
}

// cover records c and reports whether it is new: no configuration
// recorded since resetCover with the same bitsets (state, taken, other,
// hide, seenK) covers it. Configurations with other bitsets may cover it
// too; prune finds those among the configurations kept. Comparing each
// new configuration with only those of its bitsets keeps this linear in
// practice: the configurations of one return can be many thousands.
func (f *frontier) cover(c *fconf) bool {
	k := ckey{c.st, c.taken, c.other, c.hide, c.seenK | c.pastK}
	e := gentOf(c, len(f.all))
	f.indexIfMany()
	if f.coveredAmong(k, c, &e, 0) {
		return false
	}
	if fm := c.taken & f.fails; fm != 0 {
		// The lookup by c's own bitsets cannot find one that covers c
		// by not having taken the compare-and-sets known to fail that
		// c took (failMask, frontcas.go).
		k2 := k
		k2.taken &^= fm
		if f.coveredAmong(k2, c, &e, fm) {
			return false
		}
	}
	if f.borrowed {
		c.own()
	}
	f.recordAs(k, e, c)
	return true
}

// record records c for cover, without comparing it with those recorded.
func (f *frontier) record(c *fconf) {
	f.indexIfMany()
	f.recordAs(ckey{c.st, c.taken, c.other, c.hide, c.seenK | c.pastK}, gentOf(c, len(f.all)), c)
}

// indexIfMany indexes the configurations recorded (cidx), each bucket's
// a list through next, the latest first, once they are many. Fewer, a
// scan is cheaper than hashing the key.
func (f *frontier) indexIfMany() {
	if !f.byKey && len(f.allG)+1 >= coverScan {
		f.cidx.build(f.allG)
		f.byKey = true
	}
}

// recordAs records c, with key k and summary e, for cover.
func (f *frontier) recordAs(k ckey, e gent, c *fconf) {
	f.allG = append(f.allG, kgent{k, e, -1})
	if f.byKey {
		f.cidx.add(f.allG)
	}
	f.all = append(f.all, *c)
	f.created++
}

// coverScan is how many configurations one return records (cover)
// before they are indexed by their bitsets instead of scanned: most
// returns make a few dozen at most.
const coverScan = 16

// kgent is a configuration as cover records them; next: the one
// recorded before it in the same bucket of cidx, once indexed (-1:
// none).
type kgent struct {
	k    ckey
	g    gent
	next int32
}

// ckey is a configuration's bitsets (seenK: the known reads seen or
// marked, seenK | pastK, which one that covers another has the same or
// more of: pastCovers).
type ckey struct {
	st                        uint32
	taken, other, hide, seenK uint64
}

// prune drops the configurations of cs that another covers (of two
// that cover each other, the later), comparing them by state.
func (f *frontier) prune(cs []fconf) []fconf {
	// By state, in their order within one: a list sorted, not a map of
	// lists, so that pruning allocates nothing (it runs two or three
	// times a return).
	groups := f.groups[:0]
	for i := range cs {
		groups = append(groups, gentOf(&cs[i], i))
	}
	if len(groups) <= 16 {
		// Few: an insertion sort, in place of the general one's
		// overhead.
		for x := 1; x < len(groups); x++ {
			for y := x; y > 0 && cs[groups[y].i].st < cs[groups[y-1].i].st; y-- {
				groups[y], groups[y-1] = groups[y-1], groups[y]
			}
		}
	} else {
		groups = f.sortByState(cs, groups)
	}
	f.groups = groups
	writes, fails := f.writeMask(), f.failMask()
	keep := f.keep[:0]
	for range cs {
		keep = append(keep, true)
	}
	for lo := 0; lo < len(groups); {
		hi := lo + 1
		for hi < len(groups) && cs[groups[hi].i].st == cs[groups[lo].i].st {
			hi++
		}
		f.pruneGroup(cs, groups[lo:hi], keep, writes, fails)
		lo = hi
	}
	f.keep = keep
	out := cs[:0]
	for i := range cs {
		if keep[i] {
			out = append(out, cs[i])
		}
	}
	return out
}

// merge replaces, among cs, the configurations of one key (state,
// taken, other, hide, seenK, seen: all but the crashed operations used)
// by one that stands for all of them (mergeGroup, frontterms.go), or a
// few when their factors would exceed maxTerms terms. Configurations that used
// different crashed operations to the same effect (a write of any value
// no open operation observes, later overwritten; a chain of crashed
// compare-and-sets that comes back to a state) otherwise multiply with
// every crashed operation, and stay apart for ever: a crashed operation
// may take effect at any later time, and neither used fewer than the
// other. One that used nothing is alone in its key after prune (it
// covers the others), and is skipped.
func (f *frontier) merge(cs []fconf) []fconf {
	if len(cs) < 2 || len(f.pool) == 0 {
		return cs
	}
	if len(cs) <= mergeScan {
		return f.mergeFew(cs)
	}
	return f.mergeSorted(cs)
}

// mergeSorted is merge on many configurations.
func (f *frontier) mergeSorted(cs []fconf) []fconf {
	// The configurations with something to merge on, sorted by key and
	// then index: each key's a run, in order of index (a map of lists
	// keyed on the seen list printed cost more than the merging).
	idx := f.group[:0]
	for i := range cs {
		if len(cs[i].used)+len(cs[i].alts) > 0 {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(x, y int) int {
		a, b := &cs[x], &cs[y]
		return cmp.Or(cmp.Compare(a.st, b.st), cmp.Compare(a.taken, b.taken), cmp.Compare(a.other, b.other),
			cmp.Compare(a.hide, b.hide), cmp.Compare(a.seenK, b.seenK), cmp.Compare(a.pastK, b.pastK), slices.Compare(a.seen, b.seen), cmp.Compare(x, y))
	})
	f.group = idx
	gone := f.gone[:0]
	for range cs {
		gone = append(gone, false)
	}
	f.gone = gone
	merged := false
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && sameKey(&cs[idx[lo]], &cs[idx[hi]]) {
			hi++
		}
		// Each key's group is merged alone: the groups' order does
		// not matter.
		if hi-lo >= 2 && mergeGroup(cs, idx[lo:hi], gone) {
			merged = true
		}
		lo = hi
	}
	if !merged {
		return cs
	}
	return withoutGone(cs, gone)
}

// sameKey reports whether a and b differ only in the crashed operations
// used (merge's key).
func sameKey(a, b *fconf) bool {
	return a.st == b.st && a.taken == b.taken && a.other == b.other && a.hide == b.hide && a.seenK == b.seenK &&
		a.pastK == b.pastK && slices.Equal(a.seen, b.seen)
}

// abandon turns the open operation serial into a crashed one: it will
// never return, and may take effect once at any later time.
func (f *frontier) abandon(serial int) {
	if f.top {
		return
	}
	p, ok := f.bySerial[serial]
	if !ok {
		return
	}
	delete(f.bySerial, serial)
	f.slotToPool(p, false)
}

// slotToPool turns the operation in slot p into a crashed one: a
// transition of the pool if it may change the state (free: usable any
// number of times), and the slot free.
func (f *frontier) slotToPool(p int, free bool) {
	l := f.slots[p].l
	f.slots[p] = fslot{}
	li := f.toPool(&l, free)
	for i := range f.confs {
		c := &f.confs[i]
		if li >= 0 && !f.pool[li].free && c.taken&(1<<p) != 0 {
			j, _ := slices.BinarySearch(c.used, uint32(li))
			c.used = slices.Insert(c.used, j, uint32(li))
		}
		c.dropSlot(p)
	}
	f.confs = f.prune(f.confs)
}

// toPool adds one crashed operation with label l to the pool and returns
// its transition's index, -1 when it changes nothing (a read, a
// compare-and-set that returned fail). A free one makes its transition
// usable any number of times (never an append's: the strings would
// grow without end).
func (f *frontier) toPool(l *h.Label, free bool) int {
	li := -1
	if stateChanging(l) && !(l.Method == h.CAS && !l.Pending && l.Ret == h.Fail) {
		key := poolKey{l.Method, l.Arg, l.Old}
		var ok bool
		if li, ok = f.poolIdx[key]; !ok {
			li = len(f.pool)
			f.pool = append(f.pool, poolLabel{l: h.Label{Method: l.Method, Arg: l.Arg, Old: l.Old}})
			f.poolIdx[key] = li
			switch l.Method {
			case h.Write:
				f.pool[li].to = f.intern(regState{l.Arg, true})
				f.setCrashedWrite(f.pool[li].to, li)
				f.poolWrites = append(f.poolWrites, li)
			case h.CAS:
				f.pool[li].from, f.pool[li].to = f.intern(regState{l.Old, true}), f.intern(regState{l.Arg, true})
				f.poolCAS[l.Old] = append(f.poolCAS[l.Old], li)
				f.poolCASAll = append(f.poolCASAll, li)
			default:
				f.poolOther = append(f.poolOther, li)
			}
		}
		if l.Method == h.Write {
			// Before it counts: the marks made before its call must
			// not use it (frontpast.go).
			f.settlePast(f.pool[li].to)
		}
		f.pool[li].n++
		f.pool[li].free = f.pool[li].free || free && l.Method != h.Append
	}
	return li
}
