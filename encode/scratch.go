package encode

import "github.com/satmon/satmon/internal/z"

// scratch holds the buffers the encoder's entry points reuse from call to
// call so that a steady window allocates nothing. No state outlives the
// entry point that fills them, except Remove's result, which is valid
// until the next Remove.
type scratch struct {
	env []*Op // the assignment of the instance being enumerated
	cur []*Op // the operations of the instance being emitted
	// stack holds the clauses being built by assert (nested: a Tseitin
	// helper's clauses are built above its parent's); emitted clauses
	// are copied by the sink.
	stack     []Lit
	clauseBuf []Lit
	parts     []*node // leaf's disjuncts
	inst      instState
	nodes     nodes // arena for the formulas being grounded
	// The template's buffers (compiled.go): the parts of an instance's
	// disjunction (folded in place), the literals of its witnesses, and
	// the clause.
	cparts    []cpart
	conj      []Lit
	cclause   []Lit
	retUnits  []Lit    // Return's unit clauses
	retSides  []Lit    // retTrue's side clauses' other variables
	cycle     [6]Lit   // checkCycle's clause
	pair      [2]Lit   // emit2's clause
	byTri     [3][]*Op // usedAssigned's scratch
	pbuf      []*Op    // the lists partnersX and partnersY build
	opScratch []*Op    // returnPartners' and pairClauses' scratch
	forget    []z.Var  // Remove's result, reused from call to call
	// quickHits and exclHits count the candidates crec's quickHolds and
	// witnessesX's rowExcluded passed over (for the tests).
	quickHits, exclHits int
	// quickJumps counts the runs quickTail passed over at once (tests).
	quickJumps int
	// quickEpoch stamps the operations' quickRun memos (compiled.go);
	// bumped when a premise of one may have broken.
	quickEpoch uint32
	quickMemos bool
}
