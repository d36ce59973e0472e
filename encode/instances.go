package encode

import (
	"math/bits"
	"slices"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
)

// setQuick fixes the grounder's shortcuts, which the tests' noQuick
// turns off, once the encoder's parts are made (New).
func (gr *enumerator) setQuick() {
	e := gr.e
	on := e.lazy != nil && (e.hk == nil || !e.hk.noQuick)
	gr.quick = on && e.ptn.virt
	e.gr.rowExcl = on && e.match.injective
}

// transitivity grounds b(x1,x2) ∧ b(x2,x3) ⇒ b(x1,x3) for the triples
// containing the new operation s. An instance can only matter when two
// of its three pairs overlap in real time (b is a constant on the others,
// and real-time order is itself transitive), so only those triples are
// visited: s with two operations pending at its call, or s, a pending u,
// and an operation v that overlaps u. This replaces the generic O(n²)
// enumeration per call by O(p·c), p pending operations, c overlaps.
func (gr *enumerator) transitivity(a *axiom, s *Op) {
	e := gr.e
	pend := s.conc // at s's call, exactly the operations pending then
	// The clause is built directly: its atoms are literals or constants.
	emit := func(x1, x2, x3 *Op) {
		if e.poll() {
			return
		}
		l12, c12 := e.fo.bLit(x1, x2)
		if l12 == z.LitNull && !c12 {
			return
		}
		l23, c23 := e.fo.bLit(x2, x3)
		if l23 == z.LitNull && !c23 {
			return
		}
		l13, c13 := e.fo.bLit(x1, x3)
		if l13 == z.LitNull && c13 {
			return
		}
		cl := e.scr.clauseBuf[:0]
		for i, o := range [3]*Op{x1, x2, x3} {
			if o.pending() && (i == 0 || o != x1) && (i < 2 || o != x2) {
				cl = append(cl, e.used(o).Not())
			}
		}
		for _, l := range [2]Lit{l12, l23} {
			if l != z.LitNull {
				cl = append(cl, l.Not())
			}
		}
		if l13 != z.LitNull {
			cl = append(cl, l13)
		}
		e.scr.cur, e.gr.curAxiom = append(e.scr.cur[:0], x1, x2, x3), a.Axiom
		e.emit(cl)
		e.gr.curAxiom = nil // origin.go
		e.scr.clauseBuf = cl[:0]
	}
	seq := e.k.Sequential
	perms := func(x, y, z *Op) {
		emit(x, y, z)
		emit(x, z, y)
		if seq {
			// With b(y,x) = ¬b(x,y) the instance (x1,x2,x3) says "no cycle
			// x1→x2→x3→x1": its rotations are the same clause.
			return
		}
		emit(y, x, z)
		emit(y, z, x)
		emit(z, x, y)
		emit(z, y, x)
	}
	for i, u := range pend {
		if !seq {
			// Asymmetry comes from x1 = x3: b(s,u) ∧ b(u,s) ⇒ b(s,s); in a
			// sequential kernel it is a tautology.
			emit(s, u, s)
			emit(u, s, u)
		}
		for _, v := range pend[i+1:] {
			perms(s, u, v)
		}
		for _, v := range u.conc {
			if v != s && !v.pending() && v.Serial < s.Serial && !slices.Contains(pend, v) {
				perms(s, u, v)
			}
		}
	}
}

// instances grounds axiom a. With must set, only tuples binding must to
// some universal variable; with closed, only tuples whose universal
// operations have all returned; otherwise (EmitOpen) every tuple not
// already emitted for good. extra literals are added to every clause.
func (gr *enumerator) instances(a *axiom, must *Op, closed bool, extra []Lit) {
	e := gr.e
	nf := len(a.Forall)
	compiled := a.tmpl != nil && (e.hk == nil || !e.hk.interpret)
	// At a return (must returned, closed), the fixed plans the template
	// enters are known from must's label and partner lists alone, which
	// grounding does not change: the variables whose first level
	// requires another method than must's are left out in bulk
	// (template.fixedFor), and must's label may prune it at the first
	// level (labelPrunes: EMPTY's ret(e) = empty at the return of a
	// dequeue that returned a value, ADDREM's at one that returned
	// empty), or the next level read its partners when it has none that
	// returned (noReturnedPartners). Then the level is not entered only
	// to bind must and prune it; and when no plan is left (ADDREM at an
	// add's return), the state is not even set up.
	//
	// Each of these tests depends on must's label and on whether it has
	// partners, and on the plan: the template keeps, for each plan, the
	// tests that may leave it out (template.fixedMeth), and only the
	// return value is compared here, for the plans whose first level
	// checks it.
	var enter uint32
	fast := compiled && closed && must != nil && !must.pending() && must.Label.Method < memoMethods
	if fast {
		t := a.tmpl
		enter = t.fixedMeth[must.Label.Method]
		if len(must.asX) == 0 {
			enter &^= t.fixedAsX
		}
		if len(must.asY) == 0 {
			enter &^= t.fixedAsY
		}
		for fs := enter & t.fixedRet; fs != 0; fs &= fs - 1 {
			f := bits.TrailingZeros32(fs)
			if labelPrunes(&t.fixedLevels[f][0], must) {
				enter &^= 1 << f
			}
		}
		if enter == 0 {
			return
		}
	}
	win := e.tab.win
	nv := nf + len(a.Exists)
	if cap(e.scr.env) < nv {
		e.scr.env = make([]*Op, nv)
	}
	e.scr.env = e.scr.env[:nv]
	// With must, each tuple containing it is visited once: must is put at
	// variable fixed, and kept out of the variables before fixed (those
	// tuples are visited with must at an earlier variable). Enumerating
	// the rest of the window for every variable and filtering at the end
	// would cost a factor of the window's size.
	//
	// The state is reset field by field: it lives in the encoder, and
	// assigning it whole costs a write barrier check per pointer field at
	// every call (a return grounds several axioms).
	st := &e.scr.inst
	st.a, st.must, st.closed, st.extra, st.win, st.nf, st.fixed = a, must, closed, extra, win, nf, -1
	st.pl, st.clv = &a.plan, nil
	st.ante, st.rest, st.na, st.nr = st.ante[:0], st.rest[:0], 0, 0
	st.one[0] = must
	if must == nil {
		if compiled {
			st.clv = a.tmpl.levels
			gr.crec(st, 0)
		} else {
			gr.rec(st, 0)
		}
		return
	}
	if fast {
		for ; enter != 0; enter &= enter - 1 {
			st.fixed = bits.TrailingZeros32(enter)
			st.clv = a.tmpl.fixedLevels[st.fixed]
			gr.crecFixed(st)
		}
		return
	}
	settled := closed && !must.pending()
	for st.fixed = 0; st.fixed < nf; st.fixed++ {
		if compiled {
			// As above, one variable at a time.
			lvs := a.tmpl.fixedLevels[st.fixed]
			if settled && (lvs[0].meth != h.NoMethod && lvs[0].meth != must.Label.Method ||
				nf > 1 && gr.noReturnedPartners(lvs[1].gen, st.fixed, must) || labelPrunes(&lvs[0], must)) {
				continue
			}
			st.clv = lvs
			gr.crec(st, 0)
			continue
		}
		st.pl = &a.fixedPlans[st.fixed]
		// A returned must whose method the antecedent rules out at this
		// variable binds nothing here: every atom of the first level is
		// about must alone, hence a constant once it has returned, so the
		// tuple would be pruned there without making a variable. A return
		// grounds each ∀∃ axiom at every variable, and most of them
		// require another method (FIFO's two adds, at a dequeue's return).
		if closed && !must.pending() && st.pl.meth[0] != h.NoMethod && st.pl.meth[0] != must.Label.Method {
			continue
		}
		// Likewise when the next level's candidates are must's partners
		// and it has none that returned (the pending ones are not bound
		// in a closed instance): FIFO's a2 and r2 at an add's return.
		if closed && !must.pending() && nf > 1 && gr.noReturnedPartners(st.pl.gen[1], st.fixed, must) {
			continue
		}
		gr.rec(st, 0)
	}
}

// noReturnedPartners reports whether g, a level's candidate source, reads
// the partners of the variable from, bound to o, and o has no stored
// partner on that side. Stored partners include every returned one
// (partners.go), so the level would bind nothing in a closed instance.
func (gr *enumerator) noReturnedPartners(g *source, from int, o *Op) bool {
	if g == nil || g.from != from {
		return false
	}
	if g.asX {
		return len(o.asX) == 0
	}
	return len(o.asY) == 0
}

// rec binds the universal variable of the given level to each candidate
// in turn, and emits the instance at the last level.
func (gr *enumerator) rec(st *instState, level int) {
	e := gr.e
	if e.poll() {
		return
	}
	a, nf, pl := st.a, st.nf, st.pl
	if level == nf {
		if st.must == nil && a.closable {
			allDone := true
			for _, o := range e.scr.env[:nf] {
				if o.pending() {
					allDone = false
				}
			}
			if allDone {
				return // emitted for good when its last operation returned
			}
		}
		e.gr.leaf(a, st.win, st.ante, st.rest, st.extra)
		return
	}
	v := pl.order[level]
	cands, full := st.win, true
	m := pl.meth[level]
	mark := len(e.scr.pbuf)
	if g := pl.gen[level]; g != nil {
		cands, full, m = e.ptn.partners(g, e.scr.env), false, h.NoMethod
	} else if m != h.NoMethod {
		cands = e.tab.opsOf(m)
	}
	if a.shape == shapeFunction && e.valueTied && (v == 0 || v == 1) && slices.Contains(pl.order[:level], 1-v) {
		cands, full = e.tab.byArg[e.scr.env[1-v].argID], false // see the skip in bind
	}
	if v == st.fixed {
		cands, full = st.one[:], false
	}
	head, tail, limit, _ := gr.levelRun(pl.cuts[level], cands, full)
	for _, o := range head {
		if m == h.NoMethod || o.Label.Method == m {
			gr.bind(st, level, v, o)
		}
	}
	for _, o := range tail {
		if o.Call > limit {
			break
		}
		gr.bind(st, level, v, o)
	}
	e.scr.pbuf = e.scr.pbuf[:mark]
}

// bind binds variable v of the given level to candidate o, folds the
// level's checks and goes down a level unless one prunes the tuple.
func (gr *enumerator) bind(st *instState, level, v int, o *Op) {
	e := gr.e
	a, pl := st.a, st.pl
	if st.closed && o.pending() {
		return
	}
	if o == st.must && v < st.fixed {
		return
	}
	if e.fo.dropped(o) {
		return
	}
	// FUNCTION for two partners with different values is implied,
	// by unit propagation, by the MATCH axiom (match(x,y) ⇒
	// ret(y) = arg(x)) and the at-most-one on ret(y): skip it.
	if a.shape == shapeFunction && e.valueTied && (v == 0 || v == 1) {
		if other := 1 - v; slices.Contains(pl.order[:level], other) && e.scr.env[other].Label.Arg != o.Label.Arg {
			return
		}
	}
	if !gr.cutsAdmit(pl.cuts[level], o) {
		return
	}
	if st.closed && pl.feeds != nil && gr.noReturnedPartner(pl.feeds[level], o) {
		return
	}
	gr.bindings++
	e.scr.env[v] = o
	na, nr := len(st.ante), len(st.rest)
	ok := true
	for _, c := range pl.checks[level] {
		n := e.fo.fold(c.f, false)
		if c.ante {
			if n.kind == nFalse || e.fo.isFalse(n) {
				ok = false
				break
			}
			st.ante = append(st.ante, n)
		} else {
			if n.kind == nTrue || e.fo.isTrue(n) {
				ok = false
				break
			}
			st.rest = append(st.rest, n)
		}
	}
	if ok {
		gr.rec(st, level+1)
	}
	st.ante, st.rest = st.ante[:na], st.rest[:nr]
}
