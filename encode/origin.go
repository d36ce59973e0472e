package encode

import "github.com/satmon/satmon/theory"

// grounder grounds the axioms' instances: it enumerates the tuples of
// window operations an axiom's universal variables bind (instances.go,
// with the compiled templates of compiled.go), folds what labels, real
// time and the saturator's assignment decide (fold, known), and turns
// what is left into clauses (node.go) or hands a ∀∃ instance to the
// watched instances (watchState.watchInstance). Every encoder has one; it
// reads the window, the variables and the partner lists through the
// encoder it belongs to (e), and emits through it.
//
// Its state and the instance being emitted (curOps, which the folder's
// aux reads to name the owners of a helper variable) are in this file,
// below the folder; its behaviour is in leaf.go, above it.
type grounder struct {
	e *Encoder
	// curAxiom is the axiom of the instance being emitted (origin.go).
	curAxiom *theory.Axiom
	// curLeaf, when not 0, says that the instance being emitted is a
	// compiled leaf's (cleaf), whose operations are env's first curLeaf-1
	// rather than scr.cur: cleaf stores an int where it would otherwise
	// swap a slice for each leaf (curOps).
	curLeaf int
	// rowExcl: witnessesX passes over the partners a true match variable
	// excludes (an injective kernel, with SATURATE's assignment), fixed
	// by enumerator.setQuick.
	rowExcl bool
	// watch: an instance with a witness, outside EmitOpen, goes to the
	// watched instances (watchInstance) rather than to clauses
	// (Config.Watch with a lazy grounding).
	watch bool
}

// curOps is the operations of the instance being emitted, whose variables
// aux makes own and Origin names: env's prefix while a compiled leaf is
// grounded (curLeaf), scr.cur otherwise.
func (gr *grounder) curOps() []*Op {
	e := gr.e
	if gr.curLeaf != 0 {
		return e.scr.env[:gr.curLeaf-1]
	}
	return e.scr.cur
}

// Origin names, while a clause is being handed to the sink, the axiom
// instance it comes from: the axiom and the serials of the operations its
// universal variables are bound to. Transitivity instances grounded
// eagerly give ATOMIC's transitivity with their three operations; any other
// clause (lazy transitivity, the side conditions of match and return
// variables) gives nil and no operations. It is for explanations, which
// call it from their Sink's AddClause; the encoder pays one pointer store
// per instance for it.
func (e *Encoder) Origin() (axiom *theory.Axiom, serials []int) {
	if e.gr.curAxiom == nil {
		return nil, nil
	}
	for _, o := range e.gr.curOps() {
		serials = append(serials, o.Serial)
	}
	return e.gr.curAxiom, serials
}
