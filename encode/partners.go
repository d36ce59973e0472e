package encode

import (
	"math/bits"

	h "github.com/satmon/satmon/internal/history"
)

// partnerLists keeps, for each operation of the window, the operations
// it may match (Op.asX, Op.asY): linked at its call (linkPartners),
// pruned at its return (prunePartners, returnPartners), or read on
// demand for a pending operation when virt. Every encoder has one; it
// reads the labels' rules (matchPossible) and the window through the
// encoder it belongs to (e).
type partnerLists struct {
	e *Encoder
	// virt: the pairs (x,y) of a pending y are not stored in the partner
	// lists but read on demand.
	virt bool
	// retLive[id] counts the returned operations of the window whose
	// return value has ID id, with virt (callPartners).
	retLive []int32
	// pendFor[m] caches pendingFor(m) while tab.pendGen is gen; same
	// says that its operations all have one method, below memoMethods.
	pendFor [memoMethods]struct {
		l    []*Op
		gen  uint64
		ok   bool
		same bool
	}
}

// Partner lists of pending operations, on demand.
//
// For the kernels whose MATCH is meth(x) = … ∧ meth(y) = … ∧ arg(x) =
// ret(y) (pairRet: queue, stack, priority queue, register), whether
// match(x,y) is possible depends on x only through its method and
// argument, and on y through its method and, once y has returned, its
// value. While y is pending, its partners x are every operation of the
// window of a method MATCH allows opposite y's whose argument y may
// return: a dequeue pending in an MS queue would list every add of the
// window (a hundred or more), and every one of those adds would list the
// dequeue, only for the return to strike all but one of them again.
//
// So, in these kernels (Encoder.virt), the lists asX and asY hold only the
// pairs (x,y) whose y has returned; a pair with y pending is not stored
// but read, in call order, by partnersX and partnersY from the window and
// the pending operations. When y returns with value v, its pairs are made
// from byArg[v], the window's operations of argument v. The lists stay
// symmetric, which is all Remove's filtering relies on (CheckWindow).
// Every reader of a partner list goes through partnersX and partnersY,
// and sees the same operations, in the same order, as when every pair
// was stored.

// partnersX lists the y with match(x,y) possible, in window order. A
// list that needs merging is built on e.pbuf: the caller truncates
// e.pbuf back to the length it had before the call once it is done with
// the list (nested calls stack above it).
func (pt *partnerLists) partnersX(x *Op) []*Op {
	e := pt.e
	if !pt.virt {
		return x.asX
	}
	pend := pt.pendingFor(x.Label.Method)
	first := -1
	for i, p := range pend {
		if pt.pendingMayMatch(x, p) {
			first = i
			break
		}
	}
	if first < 0 {
		return x.asX
	}
	// When the pending operations all have one method, pendingMayMatch,
	// which reads only p's method (retPossible), said so for all with
	// pend[first].
	same := x.Label.Method < memoMethods && pt.pendFor[x.Label.Method].same
	if len(x.asX) == 0 && first == 0 {
		// No stored partner, and maybe every pending one: a dequeue pending
		// in a queue may return any add's value. Then the list is pend,
		// read as it is (nothing changes it while the caller reads: it is
		// rebuilt only once the pending operations change).
		i := 1
		if same {
			i = len(pend)
		}
		for i < len(pend) && pt.pendingMayMatch(x, pend[i]) {
			i++
		}
		if i == len(pend) {
			return pend[:len(pend):len(pend)]
		}
	}
	// Merge the stored partners (returned) with the pending ones, both
	// in window order (serials increase along the window).
	start := len(e.scr.pbuf)
	buf := e.scr.pbuf
	st, pd := x.asX, pend[first:]
	for len(pd) > 0 {
		p := pd[0]
		if !same && !pt.pendingMayMatch(x, p) {
			pd = pd[1:]
			continue
		}
		if len(st) > 0 && st[0].Serial < p.Serial {
			buf = append(buf, st[0])
			st = st[1:]
			continue
		}
		buf = append(buf, p)
		pd = pd[1:]
	}
	buf = append(buf, st...)
	e.scr.pbuf = buf
	return buf[start:len(buf):len(buf)]
}

// pendingFor lists the pending operations whose method MATCH allows
// opposite an x of method m, in window order. The list is kept per method
// until the pending operations change (pendGen): FIFO's witnesses ask for
// an add's partners at every instance.
//
// The rebuild is kept out of line (pendingForSlow), so that the look-up
// the hot call sites make (a leaf of FIFO asks twice) stays short.
func (pt *partnerLists) pendingFor(m h.Method) []*Op {
	e := pt.e
	if m < memoMethods {
		if c := &pt.pendFor[m]; c.gen == e.tab.pendGen && c.ok {
			return c.l
		}
	}
	return pt.pendingForSlow(m)
}

// pendingForSame is pendingFor with whether the list's operations all
// have one method below memoMethods (pendFor's same; false for a method
// not kept), read from the same entry in one look-up.
func (pt *partnerLists) pendingForSame(m h.Method) ([]*Op, bool) {
	e := pt.e
	if m < memoMethods {
		c := &pt.pendFor[m]
		if c.gen != e.tab.pendGen || !c.ok {
			pt.pendingForSlow(m)
		}
		return c.l, c.same
	}
	return e.tab.pend, false
}

// pendingForSlow is pendingFor when the list is not kept.
func (pt *partnerLists) pendingForSlow(m h.Method) []*Op {
	e := pt.e
	if m >= memoMethods {
		return e.tab.pend
	}
	// Rebuilt at most once a step, from every pending operation; the
	// list and its first method are kept in locals until the end.
	c := &pt.pendFor[m]
	l, same := c.l[:0], true
	var first h.Method
	for _, p := range e.tab.pend {
		pm := p.Label.Method
		if !e.lab.methodsMayMatch(m, pm) {
			continue
		}
		if len(l) == 0 {
			first = pm
		}
		l = append(l, p)
		same = same && pm < memoMethods && pm == first
	}
	c.l, c.same = l, same
	c.gen, c.ok = e.tab.pendGen, true
	return l
}

// pendingMayMatch is matchPossible(x,p) for p among pendingFor(x's
// method): p's method is allowed, and what is left of MATCH is that p
// may return x's argument.
func (pt *partnerLists) pendingMayMatch(x, p *Op) bool {
	e := pt.e
	if x.Label.Method >= memoMethods || p.Label.Method >= memoMethods {
		return e.lab.matchPossible(x, p)
	}
	return e.lab.retPossible(p, x.Label.Arg)
}

// partnersY lists the x with match(x,y) possible, in window order (see
// partnersX for e.pbuf). For a pending y they are the window's
// candidates that y may return the argument of.
func (pt *partnerLists) partnersY(y *Op) []*Op {
	e := pt.e
	if !pt.virt || !y.pending() {
		return y.asY
	}
	cands := pt.partnerCands(y.Label.Method, false)
	i := 0
	for i < len(cands) && e.lab.matchPossible(cands[i], y) {
		i++
	}
	if i == len(cands) {
		return cands // all of them, as a queue's pending dequeue has
	}
	start := len(e.scr.pbuf)
	buf := append(e.scr.pbuf, cands[:i]...)
	for _, x := range cands[i+1:] {
		if e.lab.matchPossible(x, y) {
			buf = append(buf, x)
		}
	}
	e.scr.pbuf = buf
	return buf[start:len(buf):len(buf)]
}

// partners are the candidates g names under env (see partnersX for
// e.pbuf).
func (pt *partnerLists) partners(g *source, env []*Op) []*Op {
	if g.asX {
		return pt.partnersX(env[g.from])
	}
	return pt.partnersY(env[g.from])
}

// stored are the stored partners g names under env: every returned one,
// and, unless e.ptn.virt, the pending ones too.
func (g *source) stored(env []*Op) []*Op {
	if g.asX {
		return env[g.from].asX
	}
	return env[g.from].asY
}

// callPartners makes the stored pairs of op, just called: with op as x,
// the returned y of the window (op as y, and the pending y, are read on
// demand).
//
// When the candidates are one method's operations that MATCH allows
// opposite op's (partnerCands found one such method), all that is left of
// matchPossible for a returned one is arg(op) = ret(o) (fast); then none
// passes when no returned operation of the window has op's argument as
// its value (retCands). (The body keeps the lines of its hot calls where
// the profile for PGO has them.)
func (pt *partnerLists) callPartners(op *Op) {
	e := pt.e
	cands := pt.partnerCands(op.Label.Method, true)
	// fast: arg(op) = ret(o) is all that is left of matchPossible for a
	// returned candidate; retCands passes over them all when no returned
	// operation has op's argument as its value.
	fast := e.pairRet && len(cands) > 0 && len(cands) < len(e.tab.win) &&
		op.Label.Method < memoMethods && cands[0].Label.Method < memoMethods
	for _, o := range pt.retCands(cands, fast, op) {
		if o.pending() {
			continue
		}
		if fast && op.argID != o.retID || !fast && !e.lab.matchPossible(op, o) {
			continue
		}
		op.asX = e.tab.push(op.asX, o)
		o.asY = e.tab.push(o.asY, op)
	}
}

// retCands is cands, or none when fast and no returned operation of the
// window has op's argument as its value (retLive): an enqueue's value is
// seldom returned before it is called, and a big window holds many
// returned dequeues to compare it with.
func (pt *partnerLists) retCands(cands []*Op, fast bool, op *Op) []*Op {
	if fast && (int(op.argID) >= len(pt.retLive) || pt.retLive[op.argID] == 0) {
		return nil
	}
	return cands
}

// returnPartners stores the pairs of op, which has just returned (its
// value is set), as y: the x of the window whose argument it returned.
// The pairs its value rules out lose their match variables (ruleOut), in
// window order as the stored lists would give them. Its pairs as x do not
// change: MATCH does not read x's value.
func (pt *partnerLists) returnPartners(op *Op) {
	e := pt.e
	// Appended to in place, not in a local: a local slice, live across
	// the call to matchPossible, was stored to the stack at every turn
	// of the loop, and most turns append nothing.
	e.scr.opScratch = e.scr.opScratch[:0]
	for _, ov := range op.owned {
		if e.reg.liveKind(ov) != vMatch {
			continue
		}
		if x := e.reg.varOps[ov.v][0]; e.reg.varOps[ov.v][1] == op && !e.lab.matchPossible(x, op) {
			e.scr.opScratch = append(e.scr.opScratch, x)
		}
	}
	out := e.scr.opScratch
	// By insertion: there are hardly ever more than a few, and the
	// generic sort's setup cost more than the sorting.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j-1].Serial > out[j].Serial; j-- {
			out[j-1], out[j] = out[j], out[j-1]
		}
	}
	for _, x := range out {
		pt.ruleOut(x, op)
	}
	// Not cleared: operation structs are pooled (recycle), a stale one
	e.scr.opScratch = out[:0] // holds nothing worth freeing
	pt.countRet(op)
	if m := op.Label.Method; m < memoMethods && e.lab.methAsY[m] == 0 && len(e.tab.byMeth) <= memoMethods {
		// No method MATCH allows opposite op's is in the window (every
		// method of it is below memoMethods, where the mask is exact):
		// matchPossible would fail on the methods for each operation of
		// op's value — an enqueue returns the value every dequeue takes
		// as argument (Void), and a big window holds many of them.
		return
	}
	for _, x := range e.tab.argOpsID(op.retID) {
		if e.lab.matchPossible(x, op) {
			op.asY = e.tab.push(op.asY, x)
			x.asX = pt.insertBySerial(x.asX, op)
		}
	}
}

// countRet counts op, just returned, in retLive for callPartners, until
// Remove forgets it.
func (pt *partnerLists) countRet(op *Op) {
	if int(op.retID) < len(pt.retLive) {
		pt.retLive[op.retID]++
		return
	}
	pt.growRetLive(op)
}

// growRetLive is countRet when retLive has no entry for op's value yet:
// it grows to the interner's IDs, and at least doubles, from 1,024 entries
// (4 KB), so that a window whose values keep growing reallocates it
// seldom, and the paper's big MS queue logs never once they are under way.
func (pt *partnerLists) growRetLive(op *Op) {
	e := pt.e
	n := max(int(op.retID)+1, e.tab.vals.Cap(), 2*len(pt.retLive), 1024)
	pt.retLive = append(pt.retLive, make([]int32, n-len(pt.retLive))...)
	pt.retLive[op.retID]++
}

// insertBySerial inserts o into l, which is in window order, at its
// place.
func (pt *partnerLists) insertBySerial(l []*Op, o *Op) []*Op {
	e := pt.e
	l = e.tab.push(l, o)
	i := len(l) - 1
	for i > 0 && l[i-1].Serial > o.Serial {
		l[i] = l[i-1]
		i--
	}
	l[i] = o
	return l
}

// linkPartners makes the partner lists of op, just called, in call order:
// x with match(x,op) possible (op.asY), then y with match(op,y) possible
// (op.asX). Only the operations of methods that MATCH allows opposite
// op's are looked at (partnerCands).
func (pt *partnerLists) linkPartners(op *Op) {
	e := pt.e
	if pt.virt {
		pt.callPartners(op)
	} else {
		for _, o := range pt.partnerCands(op.Label.Method, false) {
			if e.lab.matchPossible(o, op) {
				o.asX = e.tab.push(o.asX, op)
				op.asY = e.tab.push(op.asY, o)
			}
		}
		for _, o := range pt.partnerCands(op.Label.Method, true) {
			if e.lab.matchPossible(op, o) {
				op.asX = e.tab.push(op.asX, o)
				o.asY = e.tab.push(o.asY, op)
			}
		}
	}
	if e.k.Object == h.Exchanger && e.lab.matchPossible(op, op) {
		op.asX = e.tab.push(op.asX, op)
		op.asY = e.tab.push(op.asY, op)
	}
}

// prunePartners drops the pairs that the value of op, just returned,
// rules out.
func (pt *partnerLists) prunePartners(op *Op) {
	e := pt.e
	// With its return value known, op matches fewer operations: prune the
	// partner lists, which otherwise grow with every call it overlapped.
	// A pair ruled out loses its match variable (ruleOut); only the
	// partners marked by matchPartners can have one.
	mark := pt.matchPartners(op, false)
	keep := op.asY[:0]
	for _, x := range op.asY {
		if e.lab.matchPossible(x, op) {
			keep = append(keep, x)
		} else {
			x.asX = removeOp(x.asX, op)
			if x.mark == mark {
				pt.ruleOut(x, op)
			}
		}
	}
	clear(op.asY[len(keep):])
	op.asY = keep
	mark = pt.matchPartners(op, true)
	keep = op.asX[:0]
	for _, y := range op.asX {
		if e.lab.matchPossible(op, y) {
			keep = append(keep, y)
		} else {
			y.asY = removeOp(y.asY, op)
			if y.mark == mark {
				pt.ruleOut(op, y)
			}
		}
	}
	clear(op.asX[len(keep):])
	op.asX = keep
}

// matchPartners marks, with a fresh stamp that it returns, the
// operations o that share a live match variable with op: match(op,o)
// when asX, else match(o,op). Every match variable is owned by both of
// its operations, so op's owned list names them all.
func (pt *partnerLists) matchPartners(op *Op, asX bool) uint32 {
	e := pt.e
	e.stamp++
	for _, ov := range op.owned {
		if e.reg.liveKind(ov) != vMatch {
			continue
		}
		x, y := e.reg.varOps[ov.v][0], e.reg.varOps[ov.v][1]
		switch {
		case asX && x == op:
			y.mark = e.stamp
		case !asX && y == op:
			x.mark = e.stamp
		}
	}
	return e.stamp
}

// ruleOut forgets the match variable of a pair that a return has made
// impossible: later groundings fold match(x,y) to false, as they would
// have had the return come first. The variable itself stays in the
// solver, where its MATCH clause makes it false by propagation, until one
// of its operations is removed.
func (pt *partnerLists) ruleOut(x, y *Op) {
	e := pt.e
	key := varPair{vMatch, int32(x.Serial), int32(y.Serial)}.key()
	if m, ok := e.reg.vars.get(key); ok && e.lazyPairs && e.val(m) != -1 {
		// MATCH's instance, now that the labels decide it (lazypair.go).
		e.emit1(m.Not())
	}
	e.reg.vars.del(key)
}

// partnerCands are the candidates for the other side of a match with an
// operation of method m, as y when asX (match(op,y)), else as x: the
// window's operations of the one method that MATCH allows there, or the
// window when several are (nil when none is). They are in call order,
// as the window is, so the partner lists are the same as when the whole
// window is looked at.
func (pt *partnerLists) partnerCands(m h.Method, asX bool) []*Op {
	e := pt.e
	byMeth := e.tab.byMeth
	if m >= memoMethods || len(byMeth) > memoMethods {
		return pt.partnerCandsAll(m, asX)
	}
	// The methods MATCH allows opposite m's (foldMethods), most often one.
	mask := e.lab.methAsY[m]
	if asX {
		mask = e.lab.methAsX[m]
	}
	var one []*Op
	found := 0
	for ; mask != 0; mask &= mask - 1 {
		if mo := bits.TrailingZeros16(mask); mo < len(byMeth) && len(byMeth[mo]) > 0 {
			one = byMeth[mo]
			found++
		}
	}
	switch found {
	case 0:
		return nil
	case 1:
		return one
	}
	return e.tab.win
}

// partnerCandsAll is partnerCands by methodsMayMatch for each method of
// the window, where the masks do not reach.
func (pt *partnerLists) partnerCandsAll(m h.Method, asX bool) []*Op {
	e := pt.e
	var one []*Op
	found := 0
	for mo, l := range e.tab.byMeth {
		if len(l) == 0 {
			continue
		}
		ok := e.lab.methodsMayMatch(h.Method(mo), m)
		if asX {
			ok = e.lab.methodsMayMatch(m, h.Method(mo))
		}
		if ok {
			one = l
			found++
		}
	}
	switch found {
	case 0:
		return nil
	case 1:
		return one
	}
	return e.tab.win
}
