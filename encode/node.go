package encode

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

func litNode(l Lit) *node { return &node{kind: nLit, lit: l} }

func constNode(b bool) *node {
	if b {
		return trueNode
	}
	return falseNode
}

// and folds constants and flattens nested conjunctions.
func and(args ...*node) *node {
	var out []*node
	for _, a := range args {
		switch a.kind {
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
	return &node{kind: nAnd, args: out}
}

// or folds constants and flattens nested disjunctions.
func or(args ...*node) *node {
	var out []*node
	for _, a := range args {
		switch a.kind {
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
	return &node{kind: nOr, args: out}
}

func not(n *node) *node {
	switch n.kind {
	case nFalse:
		return trueNode
	case nTrue:
		return falseNode
	case nLit:
		return litNode(-n.lit)
	case nAnd:
		out := make([]*node, len(n.args))
		for i, a := range n.args {
			out[i] = not(a)
		}
		return or(out...)
	default:
		out := make([]*node, len(n.args))
		for i, a := range n.args {
			out[i] = not(a)
		}
		return and(out...)
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
		e.emit(append([]Lit(nil), extra...))
	case nLit:
		e.emit(append(append([]Lit(nil), extra...), n.lit))
	case nAnd:
		for _, a := range n.args {
			e.assert(a, extra)
		}
	case nOr:
		cl := append([]Lit(nil), extra...)
		for _, a := range n.args {
			cl = append(cl, e.litFor(a))
		}
		e.emit(cl)
	}
}

// litFor returns a literal that implies n.
func (e *Encoder) litFor(n *node) Lit {
	if n.kind == nLit {
		return n.lit
	}
	t := e.aux()
	e.assert(n, []Lit{-t})
	return t
}
