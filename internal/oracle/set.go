package oracle

import "github.com/satmon/satmon/internal/history"

// setValue gathers H_x for one element x of a set history. Following §4,
// add ⇒ false reads "present" like contains ⇒ true, and remove ⇒ false
// reads "absent" like contains ⇒ false.
type setValue struct {
	adds, rems []span // add ⇒ true, remove ⇒ true
	present    []span // add ⇒ false, contains ⇒ true
	absent     []span // remove ⇒ false, contains ⇒ false
}

// checkSet is Algorithm 2: a set history is linearizable iff each H_x is
// (Proposition 4.1), and H_x is decided by Lemma 4.1. The satmon set
// semantics (add/remove answer whether they changed the set, contains
// answers membership) are exactly the paper's.
func checkSet(h *history.History, spans []span) (bool, error) {
	byVal := map[history.Value]*setValue{}
	var order []history.Value
	for i := range h.Ops {
		l := &h.Ops[i].Label
		if l.Arg == history.Void || (l.Ret != history.True && l.Ret != history.False) {
			return false, ErrUnsupported
		}
		sv := byVal[l.Arg]
		if sv == nil {
			sv = &setValue{}
			byVal[l.Arg] = sv
			order = append(order, l.Arg)
		}
		yes := l.Ret == history.True
		switch l.Method {
		case history.Add:
			if yes {
				sv.adds = append(sv.adds, spans[i])
			} else {
				sv.present = append(sv.present, spans[i])
			}
		case history.Rem:
			if yes {
				sv.rems = append(sv.rems, spans[i])
			} else {
				sv.absent = append(sv.absent, spans[i])
			}
		case history.Contains:
			if yes {
				sv.present = append(sv.present, spans[i])
			} else {
				sv.absent = append(sv.absent, spans[i])
			}
		default:
			return false, ErrUnsupported
		}
	}
	// Any value decided non-linearizable decides the history (locality);
	// only when none is, an undecidable value makes the answer unknown.
	unsupported := false
	end := 2 * len(h.Ops)
	for _, x := range order {
		ok, supported := setValueLin(byVal[x], end)
		if !supported {
			unsupported = true
			continue
		}
		if !ok {
			return false, nil
		}
	}
	if unsupported {
		return false, ErrUnsupported
	}
	return true, nil
}

// setValueLin decides one H_x. end is a rank after every event, where the
// extension of Lemma 3.3 places the removal of a value never removed.
// supported is false when x is added or removed successfully more than once,
// outside the distinct-values restriction.
func setValueLin(sv *setValue, end int) (ok, supported bool) {
	if len(sv.adds) > 1 || len(sv.rems) > 1 {
		return false, false
	}
	if len(sv.adds) == 0 {
		// x is never in the set: only "absent" answers fit.
		return len(sv.rems) == 0 && len(sv.present) == 0, true
	}
	if len(sv.rems) == 0 {
		sv.rems = []span{{inv: end, res: end + 1}}
	}
	add, rem := sv.adds[0], sv.rems[0]
	minRes, maxInv := min(add.res, rem.res), max(add.inv, rem.inv)
	for _, o := range sv.present {
		minRes, maxInv = min(minRes, o.res), max(maxInv, o.inv)
	}
	// Lemma 4.1: the add must be linearizable before every operation that
	// sees x present, the removal after all of them, and every operation
	// that sees x absent before the add or after the removal.
	if add.inv > minRes || rem.res < maxInv {
		return false, true
	}
	for _, o := range sv.absent {
		if !(o.inv < minRes || o.res > maxInv) {
			return false, true
		}
	}
	return true, true
}
