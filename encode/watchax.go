package encode

// stepAxioms picks, once in New, the axioms that Call and Return act on:
// the others fall through their switch at every action, and the loops
// walking every axiom to find the few that act were a measurable part of
// a step. What a kept axiom grounds, and the order, are unchanged; it is
// called after e.lazy is set, since Call's choice depends on it.
func (e *Encoder) stepAxioms() {
	e.callAx, e.retAx = nil, nil
	for _, a := range e.ax {
		switch {
		case len(a.Exists) > 0, a.valid:
		case a.shape == shapeTotal && e.k.Sequential:
			// b(y,x) is ¬b(x,y): every instance is true.
		case a.matchAtoms != nil:
			// Emitted when their match variables exist (lazymatch.go).
		case a.shape == shapeTransitive && e.lazy != nil:
			// Generated on demand by Assigned.
		default:
			// transitivity for shapeTransitive, else instances.
			e.callAx = append(e.callAx, a)
		}
		switch {
		case a.shape == shapeLimit:
			e.retAx = append(e.retAx, a)
		case len(a.Exists) > 0 && a.closable:
			e.retAx = append(e.retAx, a)
		}
	}
	// flushMatches' choice for each axiom waiting for match variables,
	// in matchAx's order: its switch, read once here rather than for
	// every new match variable.
	e.match.matchAct = e.match.matchAct[:0]
	for _, a := range e.match.matchAx {
		act := matchGround
		switch {
		case a.shape == shapeInjective && e.lazy != nil:
			act = matchExclRow
		case a.shape == shapeFunction && e.lazy != nil:
			act = matchExclCol
		case a.shape == shapeInjective:
			act = matchAtMostRow
		case a.shape == shapeFunction:
			act = matchAtMostCol
		case a.Axiom == e.k.Pair && e.lazyPairs:
			act = matchPair
		}
		e.match.matchAct = append(e.match.matchAct, act)
	}
	a := e.match.matchAct
	e.match.matchPRC = len(a) == 3 && a[0] == matchPair && a[1] == matchExclRow && a[2] == matchExclCol
}
