package encode

import "github.com/satmon/satmon/theory"

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
