package encode

import "github.com/satmon/satmon/internal/z"

// node is a ground formula after constant folding: a constant, a literal,
// or a conjunction/disjunction. Negation is pushed to the literals.
type node struct {
	kind nodeKind
	lit  Lit
	args []*node
}

type nodeKind uint8

const (
	nFalse nodeKind = iota
	nTrue
	nLit
	nAnd
	nOr
)

var (
	falseNode = &node{kind: nFalse}
	trueNode  = &node{kind: nTrue}
)

// nodes is an arena for the nodes of one grounding step: they live only
// until their clauses are emitted, and allocating each on the heap was a
// fifth of SATURATE's time. Chunks are never moved, so pointers into them
// stay valid; reset makes them reusable at the next entry point.
type nodes struct {
	chunks [][]node
	ci, cj int
	args   [][]*node // likewise for argument lists
	ai, aj int
}

const chunkSize = 1024

func (a *nodes) reset() { a.ci, a.cj, a.ai, a.aj = 0, 0, 0, 0 }

func (a *nodes) new(kind nodeKind, lit Lit, args []*node) *node {
	if a.ci == len(a.chunks) {
		a.chunks = append(a.chunks, make([]node, chunkSize))
	}
	n := &a.chunks[a.ci][a.cj]
	*n = node{kind: kind, lit: lit, args: args}
	if a.cj++; a.cj == chunkSize {
		a.ci, a.cj = a.ci+1, 0
	}
	return n
}

// list returns an empty argument list with room for n.
func (a *nodes) list(n int) []*node {
	if n > chunkSize/4 {
		return make([]*node, 0, n)
	}
	for {
		if a.ai == len(a.args) {
			a.args = append(a.args, make([]*node, chunkSize))
		}
		if a.aj+n <= chunkSize {
			l := a.args[a.ai][a.aj : a.aj : a.aj+n]
			a.aj += n
			return l
		}
		a.ai, a.aj = a.ai+1, 0
	}
}

func (e *Encoder) litNode(l Lit) *node { return e.scr.nodes.new(nLit, l, nil) }

func constNode(b bool) *node {
	if b {
		return trueNode
	}
	return falseNode
}

// and folds constants and flattens nested conjunctions.
func (e *Encoder) and(args ...*node) *node {
	n := 0
	for _, a := range args {
		n += len(a.args) + 1
	}
	out := e.scr.nodes.list(n)
	for _, a := range args {
		switch e.settled(a) {
		case nFalse:
			return falseNode
		case nTrue:
			continue
		case nAnd:
			out = append(out, a.args...)
		default:
			out = append(out, a)
		}
	}
	switch len(out) {
	case 0:
		return trueNode
	case 1:
		return out[0]
	}
	return e.scr.nodes.new(nAnd, z.LitNull, out)
}

// or folds constants and flattens nested disjunctions.
func (e *Encoder) or(args ...*node) *node {
	n := 0
	for _, a := range args {
		n += len(a.args) + 1
	}
	out := e.scr.nodes.list(n)
	for _, a := range args {
		switch e.settled(a) {
		case nTrue:
			return trueNode
		case nFalse:
			continue
		case nOr:
			out = append(out, a.args...)
		default:
			out = append(out, a)
		}
	}
	switch len(out) {
	case 0:
		return falseNode
	case 1:
		return out[0]
	}
	return e.scr.nodes.new(nOr, z.LitNull, out)
}

// settled is n's kind, except that a literal the saturator has already
// assigned counts as the constant it is (SATURATE only): as for isTrue,
// nothing is ever unassigned, so in a clause the literal is dead weight,
// and a conjunction with it needs no helper.
func (e *Encoder) settled(n *node) nodeKind {
	if n.kind == nLit && e.lazy != nil {
		switch e.val(n.lit) {
		case 1:
			return nTrue
		case -1:
			return nFalse
		}
	}
	return n.kind
}

func (e *Encoder) not(n *node) *node {
	switch n.kind {
	case nFalse:
		return trueNode
	case nTrue:
		return falseNode
	case nLit:
		return e.litNode(n.lit.Not())
	case nAnd:
		out := e.scr.nodes.list(len(n.args))
		for _, a := range n.args {
			out = append(out, e.not(a))
		}
		return e.or(out...)
	default:
		out := e.scr.nodes.list(len(n.args))
		for _, a := range n.args {
			out = append(out, e.not(a))
		}
		return e.and(out...)
	}
}

// assert emits clauses making n true. Disjunctions of compound formulas
// get one fresh variable per compound disjunct that implies it
// (Plaisted–Greenbaum: only the needed polarity), which keeps the clause
// set equisatisfiable and linear in the formula's size.
func (e *Encoder) assert(n *node, extra []Lit) {
	switch n.kind {
	case nTrue:
		return
	case nFalse:
		e.emit(extra)
	case nLit:
		if e.isTrue(n) {
			return
		}
		start := len(e.scr.stack)
		e.scr.stack = append(append(e.scr.stack, extra...), n.lit)
		e.emit(e.scr.stack[start:])
		e.scr.stack = e.scr.stack[:start]
	case nAnd:
		for _, a := range n.args {
			e.assert(a, extra)
		}
	case nOr:
		for _, a := range n.args {
			if e.isTrue(a) {
				return // see isTrue
			}
		}
		// The clause grows on the stack; litFor builds the helpers'
		// clauses above it and leaves the stack as it found it.
		start := len(e.scr.stack)
		e.scr.stack = append(e.scr.stack, extra...)
		for _, a := range n.args {
			l := e.litFor(a)
			e.scr.stack = append(e.scr.stack, l)
		}
		e.emit(e.scr.stack[start:])
		e.scr.stack = e.scr.stack[:start]
	}
}

// litFor returns a literal that implies n.
func (e *Encoder) litFor(n *node) Lit {
	if n.kind == nLit {
		return n.lit
	}
	t := e.aux()
	start := len(e.scr.stack)
	e.scr.stack = append(e.scr.stack, t.Not())
	e.assert(n, e.scr.stack[start:start+1:start+1])
	e.scr.stack = e.scr.stack[:start]
	return t
}

// isTrue reports whether n is a literal the saturator already holds true
// (SATURATE only). A clause containing it need not be emitted: nothing is
// ever unassigned while the clause would live (forgetting the literal's
// variable would remove the clause too), so it would never be watched and
// never propagate. Its Tseitin helpers occur positively only in it, so
// they could never propagate anything either. Pruning such instances
// keeps unit propagation's result exactly as it was, and a third of the
// clauses of a long-running window are of this kind.
func (e *Encoder) isTrue(n *node) bool {
	return n.kind == nLit && e.lazy != nil && e.val(n.lit) == 1
}

// isFalse is isTrue for ¬n.
func (e *Encoder) isFalse(n *node) bool {
	return n.kind == nLit && e.lazy != nil && e.val(n.lit) == -1
}
