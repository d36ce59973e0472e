package encode

import (
	"slices"

	"github.com/satmon/satmon/internal/z"
)

// Lazy transitivity, for SATURATE.
//
// In a sequential kernel b(y,x) is ¬b(x,y), so the six instances of
// transitivity over three operations collapse into two clauses, one per
// direction of the triangle: "no cycle a→b→c→a", that is
//
//	¬b(a,b) ∨ ¬b(b,c) ∨ ¬b(c,a) ∨ ¬used(o) for each pending o of a, b, c.
//
// Emitting both for every triangle with two overlapping pairs costs
// O(concurrency²) clauses per call, most of which never propagate. Unit
// propagation only ever uses a clause once all its literals but one are
// false, and a literal only becomes false when a variable is assigned. So
// the clauses can instead be generated when they become unit: the solver
// reports each assignment, and for a new order fact p→q (or a new
// used(p)) Assigned looks at the triangles through it and emits exactly
// those clauses that are now unit or false. The fixpoint reached is the
// one unit propagation reaches on the full set (TestLazyGroundingExact
// checks it against the eager grounding); SYMBOLIC, which branches,
// keeps the full set.
//
// A triangle whose clause can be unit has at least two overlapping pairs:
// with two real-time-ordered pairs the third is ordered by real time too,
// and real time has no cycles. So the triangles through the pair (p,q)
// have their third operation among p.conc and q.conc, and those through
// an operation p are p, x ∈ p.conc, and y ∈ p.conc ∪ x.conc.

// edgeAssigned visits the clauses in which the new fact p→q (literal l)
// is false: the cycles p→q→z→p. Such a clause can only be unit if q→z or
// z→p is true too (else two of its literals are not false), so only
// those z are visited: q's and p's known neighbours, and the operations
// that real time orders after q or before p.
//
// Not inlined (nor is usedAssigned): Assigned's loop calls both, and
// profile-guided optimisation would otherwise inline them there, or not,
// as the lines of their hot call sites move, spending the budget that
// Assigned's per-literal checks need.
//
//go:noinline
func (g *lazyGround) edgeAssigned(p, q *Op, l Lit) {
	e := g.e
	if g.hk != nil && g.hk.plainEdge != nil {
		g.hk.plainEdge(p, q, l)
		return
	}
	p.succ = e.tab.push(p.succ, q)
	q.pred = e.tab.push(q.pred, p)
	if q.Serial > p.Serial {
		q.bFromKey, q.bFromLit = varPair{vB, int32(p.Serial), int32(q.Serial)}.key(), l
	}
	e.stamp++
	seen := e.stamp
	p.mark, q.mark = seen, seen
	// Each z is visited once (marked seen): the loops below test the
	// mark themselves, with no closure to call per z.
	//
	// Where the loops know an edge of the cycle already, they pass it,
	// which spares checkCycle the lists edgeKnown scans and the table
	// look-up. An edge between overlapping operations (z in q.conc or
	// p.conc) is never decided by real time, so edgeKnown reads it from
	// the lists: true for z in q.succ (z→p for z in p.pred), unknown for
	// a z in neither list.
	pq := edgeVal{l: l, t: vTrue, known: true, read: true}
	for _, z := range q.succ {
		if z.mark != seen {
			z.mark = seen
			g.checkCycle(p, q, z, pq, edgeVal{t: vTrue, known: true}, edgeVal{})
		}
	}
	for _, z := range p.pred {
		if z.mark != seen {
			z.mark = seen
			g.checkCycle(p, q, z, pq, edgeVal{}, edgeVal{t: vTrue, known: true})
		}
	}
	// For these z two edges of the cycle are true (p→q, and q→z or z→p
	// by real time), so the third decides: if its variable is false the
	// clause is satisfied, whether Assigned was told so (checkCycle reads
	// it from the lists) or it was assigned in the batch being told
	// (checkCycle asks the solver). Asking first spares the list scans of
	// the many z for which it is: p→z is mostly known or derived in the
	// same batch as p→q.
	// The z in p.succ have z→p false, told: they are marked first, so
	// that only the others are looked up, when the part of p.conc called
	// after q is longer than p.succ (a stalled p has most of the window
	// in its conc, and p→z is known for most of it). When that part is
	// long, p's open list (openAfter, edgeOpenTail) gives the z to visit
	// instead.
	//
	// z is called after p while serials follow calls (p→q is not false
	// by real time, so p was called before q returned): b(p,z) is then
	// the variable, and its key differs from p's prefix only in z's
	// serial. The same z is looked up again for each new fact p→q' while
	// p→z is not yet told (it mostly is true, derived in the same batch),
	// so z remembers the literal (Op.bFromKey).
	//
	// A z that reaches checkCycle is in neither of p's lists (one in
	// p.pred is marked, and one in p.succ has b(p,z) true), so z→p is
	// open, and its literal the one just looked up.
	//
	// While calls are in window order, after holds only operations
	// called after q returned. A z is in after once, and the loop over
	// q.conc below wants none of them: so a z skipped is not marked.
	after := g.calledAfter(p.conc, q)
	kp := varPair{vB, int32(p.Serial), 0}.key()
	ordered := !e.tab.unordered
	if ordered && len(after) > openScan {
		g.edgeOpenTail(p, q, pq, kp, seen)
		return
	}
	if len(after) > len(p.succ) {
		for _, z := range p.succ {
			z.mark = seen
		}
	}
	for _, z := range after {
		if z.mark == seen || !ordered && !before(q, z) {
			continue
		}
		zp := edgeVal{}
		if z.Serial > p.Serial {
			k := kp | uint64(uint32(z.Serial))
			pz, ok := z.bFromLit, z.bFromKey == k
			if !ok {
				if pz, ok = e.reg.vars.get(k); ok {
					z.bFromKey, z.bFromLit = k, pz
				}
			}
			if ok && e.val(pz) == 1 {
				continue
			}
			zp = edgeVal{known: true, read: true}
			if ok {
				zp.l = pz.Not()
			}
		} else if l, ok := e.reg.bExisting(z, p); ok && e.val(l) == -1 {
			continue
		}
		z.mark = seen
		g.checkCycle(p, q, z, pq, edgeVal{t: vTrue, known: true, read: true}, zp)
	}
	// z returned before p was called, so was called before p: while
	// calls are in window order (opTable.unordered), q.conc is read up to
	// the first operation called after p.
	for _, z := range q.conc {
		if ordered && z.Call > p.Call {
			break
		}
		if before(z, p) && z.mark != seen {
			z.mark = seen
			if qz, ok := e.reg.bExisting(q, z); ok && e.val(qz) == -1 {
				continue
			}
			g.checkCycle(p, q, z, pq, edgeVal{}, edgeVal{t: vTrue, known: true, read: true})
		}
	}
}

// edgeOpenTail is the rest of edgeAssigned, its two last loops, when
// openAfter gives the z called after q (calls in window order): a
// function of its own, so that edgeAssigned's usual path keeps its
// registers.
func (g *lazyGround) edgeOpenTail(p, q *Op, pq edgeVal, kp uint64, seen uint32) {
	e := g.e
	for _, z := range g.openAfter(p, q, kp) {
		if z.mark != seen {
			g.afterZ(p, q, z, pq, kp, seen)
		}
	}
	// As in edgeAssigned.
	for _, z := range q.conc {
		if z.Call > p.Call {
			break
		}
		if before(z, p) && z.mark != seen {
			z.mark = seen
			if qz, ok := e.reg.bExisting(q, z); ok && e.val(qz) == -1 {
				continue
			}
			g.checkCycle(p, q, z, pq, edgeVal{}, edgeVal{t: vTrue, known: true, read: true})
		}
	}
}

// afterZ is the body of edgeAssigned's loop over the z called after q
// for a z that openAfter returned and that is not marked.
func (g *lazyGround) afterZ(p, q, z *Op, pq edgeVal, kp uint64, seen uint32) {
	e := g.e
	k := kp | uint64(uint32(z.Serial))
	pz, ok := z.bFromLit, z.bFromKey == k
	if !ok {
		if pz, ok = e.reg.vars.get(k); ok {
			z.bFromKey, z.bFromLit = k, pz
		}
	}
	if ok && e.val(pz) == 1 {
		return
	}
	zp := edgeVal{known: true, read: true}
	if ok {
		zp.l = pz.Not()
	}
	z.mark = seen
	g.checkCycle(p, q, z, pq, edgeVal{t: vTrue, known: true, read: true}, zp)
}

// lazyOrder is the state of the lazy grounding's transitivity, a part
// of lazyGround (embedded: its fields read as lazyGround's).
type lazyOrder struct {
	afterBuf []*Op // openAfter's result
	// openLists are openAfter's lists, for the few operations (stalled
	// ones) it reads; openUse counts its calls, to replace the list
	// least recently used.
	openLists [maxOpenLists]openList
	openUse   uint64
	hk        *hooks // the encoder's, for the paths here (tests only)
}

// maxOpenLists is how many operations keep an open list (openAfter):
// those with a long part of their conc called after another's return
// are the few stalled ones.
const maxOpenLists = 8

// openList is p's open list, new and empty if p has none: then it takes
// the place of the list least recently used.
func (g *lazyGround) openList(p *Op) *openList {
	g.openUse++
	lru := &g.openLists[0]
	for i := range g.openLists {
		ol := &g.openLists[i]
		if ol.o == p && ol.of == p.Serial {
			ol.used = g.openUse
			return ol
		}
		if ol.used < lru.used {
			lru = ol
		}
	}
	// Serials are never reused: a list found is p's, and one replaced
	// never again looked for.
	ops := lru.ops[:0]
	if n := len(p.conc); cap(ops) < n {
		// At once twice the room the list needs now, not doubling from
		// small: the lists are reused, and soon none grows.
		ops = make([]openOp, 0, max(2*n, 64))
	}
	*lru = openList{o: p, of: p.Serial, to: p.Serial, used: g.openUse, ops: ops}
	return lru
}

// openScan is the length of the part of p.conc called after q above
// which edgeAssigned reads p's open list (openAfter) instead. A variable
// so that tests can make every such part read from the list.
var openScan = 16

// pTrue reports whether b(p,z) is true, for z with a serial above p's;
// kp is p's key prefix (see edgeAssigned).
func (g *lazyGround) pTrue(z *Op, kp uint64) bool {
	e := g.e
	k := kp | uint64(uint32(z.Serial))
	pz, ok := z.bFromLit, z.bFromKey == k
	if !ok {
		if pz, ok = e.reg.vars.get(k); ok {
			z.bFromKey, z.bFromLit = k, pz
		}
	}
	return ok && e.val(pz) == 1
}

// openAfter is, while calls are in window order, the part of p.conc
// called after q returned that edgeAssigned must visit, for a p for
// which that part is long: a stalled p overlaps most of the window, and
// b(p,z) is true for most of it. It reads p's open list (openList), and the z called since the list was last extended, and returns those called after q
// returned for which b(p,z) is not true, in window order: the plain
// loop would skip the others (b(p,z) true) as well. A b(p,z) true stays
// true while p and z live (SATURATE only adds facts; a variable is
// forgotten only with an operation), and an operation forgotten since
// has another life (Op.life): such entries are dropped as the list is
// read. The slice is g.afterBuf, valid until the next call.
func (g *lazyGround) openAfter(p, q *Op, kp uint64) []*Op {
	ol := g.openList(p)
	ret := q.Return
	out := g.afterBuf[:0]
	if cap(out) < len(p.conc) {
		out = make([]*Op, 0, max(2*len(p.conc), 64))
	}
	keep := ol.ops[:0]
	for _, oz := range ol.ops {
		z := oz.z
		switch {
		case z.life != oz.life:
			continue // forgotten
		case z.Call <= ret:
			// Not wanted: kept, even if b(p,z) is true by now.
		case g.pTrue(z, kp):
			continue
		default:
			out = append(out, z)
		}
		keep = append(keep, oz)
	}
	i := len(p.conc)
	for i > 0 && p.conc[i-1].Serial > ol.to {
		i--
	}
	for _, z := range p.conc[i:] {
		if g.pTrue(z, kp) {
			continue
		}
		keep = append(keep, openOp{z, z.life})
		if z.Call > ret {
			out = append(out, z)
		}
	}
	if n := len(p.conc); n > i {
		ol.to = p.conc[n-1].Serial
	}
	ol.ops, g.afterBuf = keep, out
	return out
}

// calledAfterReturn reports whether an operation of the window was
// called after p returned, while the window is in call order.
func (g *lazyGround) calledAfterReturn(p *Op) bool {
	e := g.e
	n := len(e.tab.win)
	return !p.pending() && n > 0 && e.tab.win[n-1].Call > p.Return
}

// overlapsP is, for usedAssigned, whether operation y of the window, in
// x.succ for an x of p.conc, is in p.conc: whether it overlaps p in real
// time. As nothing was called after p returned, y does unless it
// returned before p was called.
func overlapsP(y, p *Op) bool { return !before(y, p) }

// markAll sets the mark of every operation of l. Not inlined: it is
// seldom called (usedAssigned).
//
//go:noinline
func markAll(l []*Op, mark uint32) {
	for _, x := range l {
		x.mark = mark
	}
}

// checkOverlapsP (tests: hooks.checkConcMarks) checks overlapsP against p.conc
// for every operation usedAssigned may ask it of; it returns true (and
// panics if one disagrees).
func (g *lazyGround) checkOverlapsP(p *Op) bool {
	for _, x := range p.conc {
		for _, y := range x.succ {
			if y == p {
				continue
			}
			g.hk.concChecked++
			if overlapsP(y, p) != slices.Contains(p.conc, y) {
				panic("encode: usedAssigned: overlapsP does not say which operations are in p.conc")
			}
		}
	}
	return true
}

// usedAssigned visits the clauses in which ¬used(p) is now false: every
// cycle through p with two overlapping pairs. Such a clause can only be
// unit if two of its three edges are true. The clause of a cycle
// p→x→y→p is satisfied when p→x or y→p is false; so the state of p's
// edge to each x is read once, not once per cycle.
//
// An operation y that overlaps x but not p returned before p was called
// (p is returning, or pending, so everything called since p's call
// overlaps it): y→p is true and p→y false, so of the cycles through p,
// x and y only p→x→y→p can be unit, and only if p→x or x→y is true.
//
// When p's edges are all open, p.conc is marked only when the calls are
// out of window order or one came after p returned (the end reads the
// marks of p.conc): otherwise the only mark read says whether an
// operation of the window is in p.conc, which overlapsP reads from real
// time instead.
//
//go:noinline
func (g *lazyGround) usedAssigned(p *Op) {
	e := g.e
	// The marks base+1..base+3 flag p.conc and say how p→x is known: the
	// state of every edge at p read in one pass over p.conc, p.succ and
	// p.pred. (Compared by difference, so that the stamp may wrap.)
	base := e.stamp
	e.stamp += 3
	for _, x := range p.succ {
		x.mark = base + 1 + uint32(vTrue)
	}
	for _, x := range p.pred {
		x.mark = base + 1 + uint32(vFalse)
	}
	// p→x→y→p with x, y in p.conc: p→x must not be false, y→p (that is,
	// p→y) not true, and one of them true. The rest of p.conc is marked
	// unknown as it is sorted (the marks are new: a mark out of range is
	// an operation not in p.succ or p.pred).
	ts, us, fs, marked := e.scr.byTri[0][:0], e.scr.byTri[1][:0], e.scr.byTri[2][:0], true
	if len(p.succ) == 0 && len(p.pred) == 0 {
		// The usual case, p's edges all open: us is p.conc itself (read
		// only, and not kept in the scratch), marked only if need be.
		if marked = e.tab.unordered || g.calledAfterReturn(p) || g.hk != nil && g.hk.checkConcMarks && !g.checkOverlapsP(p); marked {
			markAll(p.conc, base+1+uint32(vUnknown))
		}
		us = p.conc
	} else {
		for _, x := range p.conc {
			switch t := x.mark - base - 1; {
			case t > 2 || tri(t) == vUnknown:
				x.mark = base + 1 + uint32(vUnknown)
				us = append(us, x)
			case tri(t) == vTrue:
				ts = append(ts, x)
			default:
				fs = append(fs, x)
			}
		}
		e.scr.byTri = [3][]*Op{ts, us, fs}
	}
	tv, uv := edgeVal{t: vTrue, known: true}, edgeVal{known: true}
	for _, x := range ts {
		// p→x is true and y→p open: the clause is unit only if x→y is
		// true as well, and checkCycle would return at once for the
		// other y. They are skipped here, where whether x→y is true is
		// read from real time and the facts told (edgeKnown).
		for _, y := range us {
			if g.edgeKnown(x, y).t == vTrue {
				g.checkCycle(p, x, y, tv, edgeVal{}, uv)
			}
		}
		for _, y := range fs {
			g.checkCycle(p, x, y, tv, edgeVal{}, tv)
		}
	}
	if len(fs) > 0 {
		for _, x := range us {
			for _, y := range fs {
				g.checkCycle(p, x, y, uv, edgeVal{}, tv)
			}
		}
	}
	// p→x→y→p with y outside p.conc, so y→p by real time (see above);
	// x was called before p (see below). ts and us are in p.conc's
	// order: while calls are in window order (opTable.unordered), the
	// first x called after p ends them.
	ordered := !e.tab.unordered
	for _, x := range ts {
		if x.Call > p.Call {
			if ordered {
				break
			}
			continue
		}
		for _, y := range x.conc {
			if y != p && y.mark-base-1 > 2 {
				g.checkCycle(p, x, y, tv, edgeVal{}, edgeVal{})
			}
		}
	}
	// Here x→y is true (y is in x.succ), and the clause is satisfied
	// once p→x is false: which the first clause emitted for x makes it,
	// if it is unit. The rest of x.succ is then skipped (checkCycle would
	// return at p→x without emitting).
	// Such a y overlaps x, so x was called before y returned, which was
	// before p was called: an x called after p has no such y, and its
	// list is not read.
	xy := edgeVal{t: vTrue, known: true}
	for _, x := range us {
		if x.Call > p.Call {
			if ordered {
				break
			}
			continue
		}
		if len(x.succ) == 0 {
			// Most x, told no fact yet: passed over before the loop
			// below sets up (its values went to the stack at every x).
			continue
		}
		var px Lit // b(p,x), once it has a variable
		for _, y := range x.succ {
			if y == p || marked && y.mark-base-1 <= 2 || !marked && overlapsP(y, p) {
				continue
			}
			if px == z.LitNull {
				px, _ = e.reg.bExisting(p, x)
			}
			if px != z.LitNull && e.val(px) == -1 {
				break
			}
			g.checkCycle(p, x, y, uv, xy, edgeVal{})
		}
	}
	// Not expected (see above), and impossible unless p returned before
	// the last call; kept exact.
	if g.calledAfterReturn(p) {
		for _, x := range p.conc {
			px := edgeVal{t: tri(x.mark - base - 1), known: true}
			for _, y := range x.conc {
				if y != p && y.mark-base-1 > 2 && !before(y, p) {
					g.checkCycle(p, y, x, edgeVal{}, edgeVal{}, px.reverse())
				}
			}
		}
	}
}

// edgeVal is what checkCycle knows of an edge u→w: its value (known
// set) and, once looked up (read set), the literal of an overlapping
// pair's variable (0 if it has none).
type edgeVal struct {
	l           Lit
	t           tri
	known, read bool
}

// reverse is the value of w→u, read as u→w.
func (v edgeVal) reverse() edgeVal {
	switch v.t {
	case vTrue:
		v.t = vFalse
	case vFalse:
		v.t = vTrue
	}
	v.l = v.l.Not()
	return v
}

// edgeKnown is b(x,y) as real time and the facts Assigned learnt decide
// it; its literal is not looked up. An edge assigned but not yet told to
// Assigned reads unknown: the check its own report triggers covers it.
func (g *lazyGround) edgeKnown(x, y *Op) edgeVal {
	if t := realTime(x, y); t != vUnknown {
		return edgeVal{t: t, known: true, read: true}
	}
	// x→y is known true iff y is in x.succ (x in y.pred), false iff y is
	// in x.pred (x in y.succ): the shorter side is read, as a stalled
	// operation's lists hold most of the window.
	succ, pred := x.succ, x.pred
	if len(y.succ)+len(y.pred) < len(succ)+len(pred) {
		succ, pred, y = y.pred, y.succ, x
	}
	for _, z := range succ {
		if z == y {
			return edgeVal{t: vTrue, known: true}
		}
	}
	for _, z := range pred {
		if z == y {
			return edgeVal{t: vFalse, known: true}
		}
	}
	return edgeVal{known: true}
}

// calledAfter narrows l, a list in window order, to a part that holds
// every operation called after q returned: none while q is pending, and
// while calls are in window order (opTable.unordered) the suffix past
// q's return, found by bisection. A stalled operation's conc holds most of
// the window, of which edgeAssigned wants only the few called after q.
func (g *lazyGround) calledAfter(l []*Op, q *Op) []*Op {
	e := g.e
	if q.pending() {
		return nil
	}
	if e.tab.unordered {
		return l
	}
	// sort.Search, written out: no closure call per probe.
	ret := q.Return
	i, j := 0, len(l)
	for i < j {
		h := int(uint(i+j) >> 1)
		if l[h].Call > ret {
			j = h
		} else {
			i = h + 1
		}
	}
	return l[i:]
}

// checkCycle emits "no cycle a→b→c→a" if it is now unit or false. ab,
// bc and ca are the edges a→b, b→c and c→a if the caller knows them
// already.
func (g *lazyGround) checkCycle(a, b, c *Op, ab, bc, ca edgeVal) {
	e := g.e
	// The edges are read one by one, and the clause is dropped at the
	// first that says it cannot be unit: a false edge (¬b(u,w) is true:
	// satisfied) or a second open one. (edgeKnown only reads.)
	open := 0 // literals not false
	if !ab.known {
		ab = g.edgeKnown(a, b)
	}
	switch ab.t {
	case vFalse:
		return
	case vUnknown:
		open++
	}
	if !bc.known {
		bc = g.edgeKnown(b, c)
	}
	switch bc.t {
	case vFalse:
		return
	case vUnknown:
		if open++; open > 1 {
			return
		}
	}
	if !ca.known {
		ca = g.edgeKnown(c, a)
	}
	switch ca.t {
	case vFalse:
		return
	case vUnknown:
		if open++; open > 1 {
			return
		}
	}
	ends := [3][2]*Op{{a, b}, {b, c}, {c, a}}
	ev := [3]edgeVal{ab, bc, ca}
	// Not a local array: passed to the sink it would escape, and be
	// allocated on every call, emitted or not.
	lits := e.scr.cycle[:]
	n := 0
	var openEdge [2]*Op // an edge that still needs its variable
	for i, v := range ev {
		if !v.read {
			var ok bool
			if v.l, ok = e.reg.bExisting(ends[i][0], ends[i][1]); !ok && v.t != vUnknown {
				// Leaving the literal out would make the clause stronger
				// than transitivity: unsound.
				panic("encode: an assigned order fact has no variable")
			}
		}
		switch {
		case v.l != z.LitNull:
			if v.t == vUnknown && e.val(v.l.Not()) == 1 {
				// Assigned in the batch being told, not yet in the
				// lists: the clause is satisfied. Emitting it anyway
				// was 97% of an MS-queue log's transitivity clauses.
				return
			}
			lits[n] = v.l.Not()
			n++
		case v.t == vUnknown:
			openEdge = ends[i] // no variable yet: created below
		}
	}
	for i, o := range [3]*Op{a, b, c} {
		if !o.pending() || (i > 0 && o == a) || (i > 1 && o == b) {
			continue
		}
		g := e.used(o).Not()
		switch e.val(g) {
		case 1:
			return
		case 0:
			if open++; open > 1 {
				return
			}
		}
		lits[n] = g
		n++
	}
	if openEdge[0] != nil {
		lits[n] = e.fo.bNode(openEdge[0], openEdge[1]).lit.Not()
		n++
	}
	e.emit(lits[:n])
}
