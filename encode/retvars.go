package encode

import (
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
)

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
