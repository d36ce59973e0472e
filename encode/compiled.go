package encode

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// enumerator enumerates the tuples of an axiom's instances: the compiled
// plans (crec, below) or the interpreter (rec, instances.go), cut by real
// time, for each tuple handing the instance to the grounder (cleaf,
// leaf). Its entry points (instances, transitivity) are in instances.go,
// above this file, whose helpers the interpreter shares.
type enumerator struct {
	e        *Encoder
	bindings int // GroundingStats
	// quick: crec passes over the candidates quickHolds finds ground
	// nothing (partner lists read on demand, with SATURATE's
	// assignment), fixed by setQuick.
	quick bool
}

// The enumeration through the compiled templates (template.go): crec
// and cbind bind the levels of a plan, crecFixed the operation given,
// and the quick passes skip the candidates that would ground nothing.

// crec is rec through the template: the folded checks are literals in
// st.lante[:st.na] and st.lrest[:st.nr] (constants that cannot prune are left out, as the
// interpreter's disjunction drops them).
func (gr *enumerator) crec(st *instState, level int) {
	e := gr.e
	if e.poll() {
		return
	}
	if level == st.nf {
		if !gr.openDone(st) {
			e.gr.cleaf(st)
		}
		return
	}
	lv := &st.clv[level]
	v := lv.v
	if lv.storedOnly && st.closed && v != st.fixed {
		// The case below for a closed instance's level whose candidates
		// are the stored partners of an operation bound earlier, with
		// no cuts, tie or quick shortcut to narrow them: each one
		// returned, not the self variable's, with returned partners for
		// the later levels, is bound.
		var self *Op
		if lv.self >= 0 {
			self = e.scr.env[lv.self]
		}
		for _, o := range lv.gen.stored(e.scr.env) {
			if o != self && !o.pending() && (lv.feeds == nil || !gr.noReturnedPartner(lv.feeds, o)) {
				gr.cbind(st, lv, level, o, false, true)
			}
		}
		return
	}
	cands, full := st.win, true
	m := lv.meth
	mark := len(e.scr.pbuf)
	if g := lv.gen; g != nil && st.closed {
		// A closed instance binds only returned operations, and the
		// stored partners hold every returned one, in the same order as
		// partners lists them (partners.go): the pending ones are not
		// merged in only to be skipped.
		cands, full, m = g.stored(e.scr.env), false, h.NoMethod
	} else if g != nil {
		cands, full, m = e.ptn.partners(g, e.scr.env), false, h.NoMethod
	} else if m != h.NoMethod {
		cands = e.tab.opsOf(m)
	} else if lv.feedSides != 0 && st.closed {
		// Only operations with a returned partner on each side a later
		// level reads are bound (noReturnedPartner); when the methods
		// MATCH allows on those sides leave one, the level visits that
		// method's operations, in the same order, as if it were the
		// level's (LIFO's a1 at an add's return, FIFO's a2 at an add's:
		// the adds, not the window).
		if fm := gr.feedMethod(st, lv); fm != h.NoMethod {
			cands, m = e.tab.opsOf(fm), fm
		}
	}
	tied := lv.tied && e.valueTied
	if tied {
		cands, full = e.tab.byArg[e.scr.env[1-v].argID], false // see rec
	}
	if v == st.fixed {
		cands, full = st.one[:], false
	}
	var head, tail []*Op
	limit, admitted := math.MaxInt, true
	if len(lv.cuts) == 0 {
		tail = cands // levelRun without cuts
	} else {
		head, tail, limit, admitted = gr.levelRun(lv.cuts, cands, full)
	}
	// A closed instance binds no pending operation, nor one whose
	// partners a later level reads when none of them has returned
	// (noReturnedPartner), nor any instance the operation of the
	// level's self variable, which the first check prunes
	// (clevel.self; nil, which no candidate is, when there is none):
	// skipped here, before the call. The loops are written out for each
	// case, so that the common ones test nothing per candidate that is
	// the same for all.
	var self *Op
	if lv.self >= 0 {
		self = e.scr.env[lv.self]
	}
	switch {
	case !st.closed:
		for _, o := range head {
			if (m == h.NoMethod || o.Label.Method == m) && o != self {
				gr.cbind(st, lv, level, o, tied, false)
			}
		}
		for _, o := range tail {
			if o.Call > limit {
				break
			}
			if o != self {
				gr.cbind(st, lv, level, o, tied, admitted)
			}
		}
	case lv.quick && gr.quick:
		// As below, passing over the candidates quickHolds finds ground
		// nothing; one without a true match variable of its own
		// (clevel.quick: the witness's x is the level's variable) is
		// bound without asking it. Long tails of one method's list go
		// to quickTail, which passes over runs of them at once.
		for _, o := range head {
			if (m == h.NoMethod || o.Label.Method == m) && o != self && !o.pending() && (o.trueAsX == noLit || !gr.quickHolds(st, lv, o)) {
				gr.cbind(st, lv, level, o, tied, false)
			}
		}
		if len(tail) >= quickMin && (e.hk == nil || !e.hk.noRuns) && lv.gen == nil && !tied && v != st.fixed && m != h.NoMethod {
			gr.quickTail(st, lv, level, tail, limit, admitted)
			break
		}
		for _, o := range tail {
			if o.Call > limit {
				break
			}
			if o != self && !o.pending() && (o.trueAsX == noLit || !gr.quickHolds(st, lv, o)) {
				gr.cbind(st, lv, level, o, tied, admitted)
			}
		}
	case lv.feeds == nil && lv.label > 0:
		// As below, leaving out the candidates whose label prunes them
		// (labelPrunes), as cbind's first checks would: EMPTY's ret(e) =
		// empty at an add's return, over the dequeues that returned a
		// value.
		for _, o := range head {
			if (m == h.NoMethod || o.Label.Method == m) && o != self && !o.pending() && !labelPrunes(lv, o) {
				gr.cbind(st, lv, level, o, tied, false)
			}
		}
		for _, o := range tail {
			if o.Call > limit {
				break
			}
			if o != self && !o.pending() && !labelPrunes(lv, o) {
				gr.cbind(st, lv, level, o, tied, admitted)
			}
		}
	case lv.feeds == nil:
		for _, o := range head {
			if (m == h.NoMethod || o.Label.Method == m) && o != self && !o.pending() {
				gr.cbind(st, lv, level, o, tied, false)
			}
		}
		for _, o := range tail {
			if o.Call > limit {
				break
			}
			if o != self && !o.pending() {
				gr.cbind(st, lv, level, o, tied, admitted)
			}
		}
	default:
		for _, o := range head {
			if (m == h.NoMethod || o.Label.Method == m) && o != self && !o.pending() && !gr.noReturnedPartner(lv.feeds, o) {
				gr.cbind(st, lv, level, o, tied, false)
			}
		}
		for _, o := range tail {
			if o.Call > limit {
				break
			}
			if o != self && !o.pending() && !gr.noReturnedPartner(lv.feeds, o) {
				gr.cbind(st, lv, level, o, tied, admitted)
			}
		}
	}
	if len(e.scr.pbuf) != mark {
		e.scr.pbuf = e.scr.pbuf[:mark]
	}
}

// feedMethod is the one method whose operations can have partners on
// every side that lv's feeds read (clevel.feedSides; MATCH's methods:
// methAsX, methAsY), or h.NoMethod when there are several or none.
// Partner lists pair only operations whose methods MATCH allows
// (matchPossible), so an operation of another method has none there,
// and noReturnedPartner leaves it out. The method for each set of sides
// is found once per encoder, as the kernel's MATCH decides it.
func (gr *enumerator) feedMethod(st *instState, lv *clevel) h.Method {
	e := gr.e
	if !st.methsSet {
		var x, y uint16
		for m := range memoMethods {
			if e.lab.methAsX[m] != 0 {
				x |= 1 << m
			}
			if e.lab.methAsY[m] != 0 {
				y |= 1 << m
			}
		}
		for sides := range st.feedMeth {
			mask := ^uint16(0)
			if sides&1 != 0 {
				mask &= x
			}
			if sides&2 != 0 {
				mask &= y
			}
			st.feedMeth[sides] = h.NoMethod
			if mask != 0 && mask&(mask-1) == 0 {
				st.feedMeth[sides] = h.Method(bits.TrailingZeros16(mask))
			}
		}
		st.methsSet = true
	}
	return st.feedMeth[lv.feedSides]
}

// crecFixed is crec at the first level of a fixed plan of a closed
// instance whose must has returned (instances), which labelPrunes found
// does not prune it: its one candidate is must, bound without going
// through crec's candidate lists when the level takes them from nowhere
// else (clevel.direct), as crec would bind it: returned, and with a
// returned partner for every later level that reads its partners
// (noReturnedPartner).
func (gr *enumerator) crecFixed(st *instState) {
	e := gr.e
	lv := &st.clv[0]
	if !lv.direct {
		gr.crec(st, 0)
		return
	}
	if e.poll() {
		return
	}
	if lv.feeds != nil && gr.noReturnedPartner(lv.feeds, st.must) {
		return
	}
	if len(lv.checks) != lv.label {
		gr.cbind(st, lv, 0, st.must, false, true)
		return
	}
	// cbind, when the level's checks are all label checks, which must's
	// label does not prune (instances asked labelPrunes): nothing to
	// fold, must is bound and the next level entered.
	gr.bindings++
	e.scr.env[lv.v] = st.must
	st.clauseAt = e.clause
	if st.nf > 1 {
		gr.crec(st, 1)
	} else if !e.poll() {
		e.gr.cleaf(st) // openDone is false: must is given
	}
}

// quickHolds reports whether binding o at lv, the last level of a
// closed instance (clevel.quick), grounds nothing because its instance
// has a true witness, as cwitnessHolds would find it, and folding the
// level's checks makes no variable. Then cbind would either prune o or
// reach cleaf, which stops at cwitnessHolds, and passing over o derives
// the same (only the bindings count is lower). It looks at one
// candidate witness only: y, the partner of x = o (the level binds the
// witness's x) whose match variable is true (x.trueAsX). That
// variable is still match(x,y) when the table maps the pair to it (a
// forgotten or ruled-out one is not found there, and a recycled index
// stands for the pair its new meaning names); y has then returned and
// match(x,y) is possible, so y is one of x's stored partners, and
// knownWit finds the witness true when real time orders b(u,w). Anything
// else (no true match variable, a pending y, an order atom that real
// time leaves open in the witness, or in a check without a variable
// yet) is left to cbind. The cheap tests come first: most candidates
// that fail, fail at the first.
func (gr *enumerator) quickHolds(st *instState, lv *clevel, o *Op) bool {
	e := gr.e
	// o is the witness's x (clevel.quick).
	l := o.trueAsX
	if l == noLit || e.val(l) != 1 {
		return false
	}
	y := e.reg.varOps[l.Var()][1]
	if y == nil || y.pending() {
		return false
	}
	// The witness's b(y,u) or b(u,y), true by real time; u is bound at
	// an earlier level (compile).
	env := e.scr.env
	if t := st.a.tmpl; t.quickYFirst && !before(y, env[t.quickU]) || !t.quickYFirst && !before(env[t.quickU], y) {
		return false
	}
	if m, ok := e.reg.vars.get(varPair{vMatch, int32(o.Serial), int32(y.Serial)}.key()); !ok || m != l {
		return false
	}
	env[lv.v] = o
	// The checks, order atoms, as bLitKind folds them: a variable is
	// looked up, and made when missing, only when real time leaves the
	// atom open.
	for i := range lv.checks {
		c := &lv.checks[i].atom
		u, w := env[c.x], env[c.y]
		if u == w || before(u, w) || before(w, u) {
			continue // realTime decides it
		}
		if e.k.Sequential && u.Serial > w.Serial {
			u, w = w, u
		}
		if _, ok := e.reg.vars.get(varPair{vB, int32(u.Serial), int32(w.Serial)}.key()); !ok {
			return false
		}
	}
	e.scr.quickHits++
	return true
}

// cbind binds the variable of level lv to candidate o, folds the level's
// checks and goes down a level unless one prunes the tuple. admitted says
// that levelRun's run already applied the level's cuts to o; crec leaves
// out the candidates a closed instance does not bind.
func (gr *enumerator) cbind(st *instState, lv *clevel, level int, o *Op, tied, admitted bool) {
	v := lv.v
	if o == st.must && v < st.fixed {
		return
	}
	e := gr.e // here, not above: loaded where it is used, it needs no nil check of its own
	if e.fo.dropped(o) {
		return
	}
	if tied && e.scr.env[1-v].Label.Arg != o.Label.Arg {
		return
	}
	if !admitted && !gr.cutsAdmit(lv.cuts, o) {
		return
	}
	gr.bindings++
	// A label check is a constant, true or false, as atomLit would find
	// it without making a variable; a true antecedent conjunct or false
	// disjunct adds nothing.
	first := 0
	for ; first < lv.label; first++ {
		c := &lv.checks[first]
		var t bool
		if c.atom.kind == theory.KMeth {
			t = o.Label.Method == c.atom.m
		} else if o.pending() {
			break
		} else {
			t = o.Label.Ret == c.atom.v
		}
		if t == c.atom.neg == c.ante {
			return
		}
	}
	e.scr.env[v] = o
	if level == 0 {
		st.clauseAt = e.clause
	}
	na, nr := st.na, st.nr
	ok := true
	for i := first; i < len(lv.checks); i++ {
		c := &lv.checks[i]
		var l Lit
		var k nodeKind
		if c.atom.kind == theory.KB {
			// atomLit's case, without its dispatch: most checks below
			// the first level are order atoms (LIFO's b(a1,a2) and
			// b(a2,r1) at each a2).
			l, k = e.fo.bLitKind(e.scr.env[c.atom.x], e.scr.env[c.atom.y])
			if c.atom.neg {
				l, k = negLit(l, k)
			}
		} else {
			l, k = e.fo.atomLit(&c.atom)
		}
		if k == nLit {
			k = e.fo.settledLit(l)
		}
		if c.ante {
			if k == nFalse {
				ok = false
				break
			}
			if k == nLit {
				st.lante[st.na] = l
				st.na++
			}
		} else {
			if k == nTrue {
				ok = false
				break
			}
			if k == nLit {
				st.lrest[st.nr] = l
				st.nr++
			}
		}
	}
	if ok {
		if level+1 < st.nf {
			gr.crec(st, level+1)
		} else if !e.poll() && !gr.openDone(st) {
			// crec's leaf, without the call: one per instance.
			e.gr.cleaf(st)
		}
	}
	st.na, st.nr = na, nr
}

// openDone reports whether the instance bound in env, enumerated
// without a given operation (EmitOpen), was emitted for good when its
// last operation returned.
func (gr *enumerator) openDone(st *instState) bool {
	e := gr.e
	return st.must == nil && st.a.closable && !anyPending(e.scr.env[:st.nf])
}

// labelPrunes reports whether a label check of level lv (clevel.label)
// prunes candidate o, as cbind would find it before folding anything.
func labelPrunes(lv *clevel, o *Op) bool {
	for i := 0; i < lv.label; i++ {
		c := &lv.checks[i]
		var t bool
		if c.atom.kind == theory.KMeth {
			t = o.Label.Method == c.atom.m
		} else if o.pending() {
			return false
		} else {
			t = o.Label.Ret == c.atom.v
		}
		if t == c.atom.neg == c.ante {
			return true
		}
	}
	return false
}

func anyPending(ops []*Op) bool {
	for _, o := range ops {
		if o.pending() {
			return true
		}
	}
	return false
}

// quickForgotten keeps the quickRun memos (quickTail) exact when the
// operations of serials, marked gone, are forgotten (Remove calls it
// before they leave the table's lists). A run whose holder goes is
// handed to the next live operation of its list within the run: the
// operations left in the run are still consecutive in the list and
// still settled, and its times, over a superset, still bound theirs.
// A run's premise breaks only when the y of a live x's true match
// variable goes (the variable goes with it, and quickHolds would no
// longer find it): then every memo is dropped (quickEpoch). x is one of
// y's stored partners (match(x,y) is possible), so y.asY finds it; any
// live x there with a true match variable counts, whichever y it names.
func (gr *enumerator) quickForgotten(serials []int, gone uint32) {
	e := gr.e
	ep := e.scr.quickEpoch
	bump := false
	for _, s := range serials {
		o := e.tab.op(s)
		if o == nil || o.mark != gone {
			continue
		}
		for _, x := range o.asY {
			if x.mark != gone && x.trueAsX != noLit {
				bump = true
			}
		}
		if o.qEpoch != ep || o.qrun.start != o.Serial+1 || o.qrun.end <= o.Serial {
			continue
		}
		l := e.tab.opsOf(o.Label.Method)
		i, found := slices.BinarySearchFunc(l, o.Serial, func(p *Op, s int) int { return cmp.Compare(p.Serial, s) })
		if !found {
			continue
		}
		for i++; i < len(l) && l[i].Serial <= o.qrun.end; i++ {
			if n := l[i]; n.mark != gone {
				r := o.qrun
				if n.qEpoch == ep && n.qrun.start == n.Serial+1 {
					r.merge(&n.qrun)
				}
				r.start = n.Serial + 1
				n.qrun, n.qEpoch = r, ep
				break
			}
		}
	}
	if bump {
		e.scr.quickEpoch++
	}
}

// runPasses reports whether quickHolds passes every operation of run r
// at lv under env (the earlier levels bound): the witness's order atom
// is true by real time for every y of the run (with yFirst, y returned
// before u was called: r.yRet < u.Call; else u returned before any y
// was called), and real time decides each check for every operation o
// of the run: all returned before w was called, or w returned before
// any of them was called (o = w, which real time also decides, fails
// both: then the run is not passed over). A check between two earlier
// levels' operations is left to quickHolds (false).
func (gr *enumerator) runPasses(st *instState, lv *clevel, r *quickRun) bool {
	e := gr.e
	t := st.a.tmpl
	env := e.scr.env
	u := env[t.quickU]
	if t.quickYFirst {
		if r.yRet >= u.Call {
			return false
		}
	} else if u.Return < 0 || u.Return >= r.yCall {
		return false
	}
	for i := range lv.checks {
		c := &lv.checks[i].atom
		switch {
		case c.x == lv.v && c.y == lv.v:
			continue
		case c.x == lv.v || c.y == lv.v:
			w := env[c.y]
			if c.y == lv.v {
				w = env[c.x]
			}
			// Not implied by the witness's bound above: an operation of
			// the run may overlap w while its y returned before u was
			// called, and then b(o,w) is open and may have no variable
			// yet, which binding o makes (TestQuickRunCheckOverlap:
			// EMPTY's b(a,e) for an add overlapping the empty dequeue).
			if r.ret < w.Call || w.Return >= 0 && w.Return < r.call {
				continue
			}
			return false
		default:
			return false // not one of ours
		}
	}
	return true
}

// quickTail is crec's loop over the tail of a closed instance's last
// level (clevel.quick) when the candidates are one method's list in
// call order (no source, not tied, not fixed) and many: as the loop it
// stands for, it binds the candidates quickHolds does not pass over,
// but it notes the runs of consecutive ones it does pass over on their
// first operation (quickRun) and passes a noted run over at once when
// runPasses finds every one of its operations would pass. Runs are cut
// at serial blocks of 1<<quickChunk, so that instances starting their
// runs at different operations still meet the same holders; a run met
// while one is open in the same block is merged into it.
func (gr *enumerator) quickTail(st *instState, lv *clevel, level int, tail []*Op, limit int, admitted bool) {
	e := gr.e
	var rs *Op
	var run quickRun
	ep := e.scr.quickEpoch
	var self *Op // as in crec
	if lv.self >= 0 {
		self = e.scr.env[lv.self]
	}
	closeRun := func() {
		if rs != nil {
			run.start = rs.Serial + 1
			rs.qrun, rs.qEpoch = run, ep
			e.scr.quickMemos = true
			rs = nil
		}
	}
	for i := 0; i < len(tail); i++ {
		o := tail[i]
		if o.Call > limit {
			break
		}
		if o.qEpoch == ep && o.qrun.start == o.Serial+1 && gr.runPasses(st, lv, &o.qrun) {
			if rs != nil && rs.Serial>>quickChunk != o.Serial>>quickChunk {
				closeRun()
			}
			if rs == nil {
				rs, run = o, o.qrun
			} else {
				run.merge(&o.qrun)
			}
			e.scr.quickHits++
			e.scr.quickJumps++
			end := o.qrun.end
			j := i + 1
			for j < len(tail) && tail[j].Serial <= end {
				j++
			}
			i = j - 1
			continue
		}
		if o.pending() {
			closeRun()
			continue
		}
		if o.trueAsX != noLit && gr.quickHolds(st, lv, o) {
			y := e.reg.varOps[o.trueAsX.Var()][1]
			if rs != nil && rs.Serial>>quickChunk != o.Serial>>quickChunk {
				closeRun()
			}
			if rs == nil {
				rs = o
				run = quickRun{end: o.Serial, yRet: y.Return, yCall: y.Call, ret: o.Return, call: o.Call}
			} else {
				run.add(o, y)
			}
			continue
		}
		closeRun()
		if o != self {
			gr.cbind(st, lv, level, o, false, admitted)
		}
	}
	closeRun()
}

// quickChunk sets the serial blocks runs are cut at; quickMin is the
// tail length from which crec uses quickTail (on short lists its
// bookkeeping costs more than the candidates it passes over).
const (
	quickChunk = 5
	quickMin   = 32
)

// levelRun narrows the candidates of a level by its real-time cuts
// (rtCut): the level visits head (to be filtered by the level's method,
// when it has one), then tail up to the first candidate called after
// limit. full says that cands is the window or its operations of the
// level's method, which hold every live operation that cands may: only
// then may candidates be taken from an operation's overlap list. What
// the run leaves out, cutsAdmit rejects; candidates in the run are
// still checked by cutsAdmit, which keeps the result independent of the
// narrowing (and exact when calls are not in order: see unordered),
// except those of the tail when admitted is set: there the run applied
// every cut (below).
func (gr *enumerator) levelRun(cuts []rtCut, cands []*Op, full bool) (head, tail []*Op, limit int, admitted bool) {
	e := gr.e
	limit = math.MaxInt
	if e.tab.unordered {
		return nil, cands, limit, len(cuts) == 0
	}
	var from *Op // of the !after cuts, the operation called last
	befores := false
	for _, c := range cuts {
		u := e.scr.env[c.u]
		switch {
		case c.after:
			if !u.pending() && u.Return < limit {
				limit = u.Return
			}
		case !full:
			befores = true
		case from == nil || u.Call > from.Call:
			from = u
		}
	}
	// In call order, a tail candidate o called no later than limit was
	// not called after an after cut's u returned; and one called no
	// earlier than from did not return before any !after cut's u (called
	// no later than from) was called. So without !after cuts left
	// unapplied, the tail needs no cutsAdmit.
	if from == nil {
		return nil, cands, limit, !befores
	}
	// The candidates called before from that did not return before it
	// was called overlap it: they open from.conc, in call order. Then
	// from itself (if a candidate) and everything called after it.
	lo, hi := 0, len(cands)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if cands[mid].Call < from.Call {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	n := 0
	for n < len(from.conc) && from.conc[n].Call < from.Call {
		n++
	}
	return from.conc[:n], cands[lo:], limit, true
}

// cutsAdmit reports whether no real-time cut of a level prunes o.
func (gr *enumerator) cutsAdmit(cuts []rtCut, o *Op) bool {
	e := gr.e
	for _, c := range cuts {
		u := e.scr.env[c.u]
		if c.after && before(u, o) || !c.after && before(o, u) {
			return false
		}
	}
	return true
}

// noReturnedPartner reports whether a later level of a closed instance
// would bind nothing under o (feeds: the level's plan.feeds): its
// candidates are the partners of o, and none of them has returned. The
// stored partners include every returned one (partners.go), and a
// closed instance binds no pending operation. Then o is not bound:
// folding the level's checks would only make variables (an order
// variable b(a1,a2) for each add a2 at FIFO's a1) that no instance uses.
func (gr *enumerator) noReturnedPartner(feeds []*source, o *Op) bool {
	for _, g := range feeds {
		l := o.asY
		if g.asX {
			l = o.asX
		}
		if !anyReturned(l) {
			return true
		}
	}
	return false
}

func anyReturned(ops []*Op) bool {
	for _, o := range ops {
		if !o.pending() {
			return true
		}
	}
	return false
}
