package encode

import (
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
)

// retVars are the ret(o) = v variables of a pending operation o, in the
// order they were made. Most pending operations see few values: a short
// list searched linearly needs no hashing of the value and no map per
// operation. An operation that stays pending for long (a stalled one
// overlaps the whole window) can see hundreds, so from retIndexAt
// variables on an index by value (a map) is kept besides the list, and
// look-ups use it; the list stays for the walks (retTrue, Return), which
// cost less over a slice than over a map.
type retVars struct {
	vs  []retVar
	idx map[h.Value]Lit // nil until len(vs) reaches retIndexAt
}

// retVar is one ret(o) = v variable.
type retVar struct {
	v h.Value
	l Lit
}

// retIndexAt is the number of variables from which look-ups go through
// the map: below it a linear scan of the list costs less than hashing.
const retIndexAt = 8

// get returns the variable of v, or z.LitNull and false.
func (r *retVars) get(v h.Value) (Lit, bool) {
	if r.idx != nil {
		l, ok := r.idx[v]
		return l, ok
	}
	for i := range r.vs {
		if r.vs[i].v == v {
			return r.vs[i].l, true
		}
	}
	return z.LitNull, false
}

// len is the number of variables.
func (r *retVars) len() int { return len(r.vs) }

// add records l as the variable of v, which has none.
func (r *retVars) add(t *opTable, v h.Value, l Lit) {
	if r.vs == nil {
		r.vs = t.takeRets()
	}
	r.vs = append(r.vs, retVar{v, l})
	switch {
	case r.idx != nil:
		r.idx[v] = l
	case len(r.vs) == retIndexAt:
		r.idx = t.takeRetIndex()
		for _, w := range r.vs {
			r.idx[w.v] = w.l
		}
	}
}
