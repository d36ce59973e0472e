package explain

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/enumerate"

	"github.com/go-air/gini"
	gz "github.com/go-air/gini/z"

	"github.com/satmon/satmon/encode"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/theory"
)

// giniModel is an encode.Sink over gini that can read the model back,
// which internal/sat's interface does not offer. One solve only, so
// gini's lost-level-0-conflict bug (see internal/sat) cannot arise.
type giniModel struct{ g *gini.Gini }

func (s *giniModel) NewVar() z.Var { return z.Var(s.g.Lit().Var()) }

// AddClause hands the literals to gini as they are: z's encoding is
// gini's.
func (s *giniModel) AddClause(lits []z.Lit) {
	for _, l := range lits {
		s.g.Add(gz.Lit(l))
	}
	s.g.Add(gz.LitNull)
}

// value is l's value in the model; a variable the model leaves
// unassigned counts as false.
func (s *giniModel) value(l z.Lit) bool {
	if l.IsNeg() {
		return !s.g.Value(gz.Lit(l.Not()))
	}
	return s.g.Value(gz.Lit(l))
}

var matchName = regexp.MustCompile(`^match\(o(\d+),o(\d+)\)$`)

// FindWitness returns a linearization of hist, read from a model of its
// SYMBOLIC encoding (one SAT call on the whole history), or nil when hist
// is not linearizable. A time limit (0: none) that expires is an error.
func FindWitness(hist *h.History, limit time.Duration) (*engine.Witness, error) {
	k, err := theory.KernelOf(hist.Object, hist.Param)
	if err != nil {
		return nil, err
	}
	s := &giniModel{g: gini.New()}
	enc := engine.EncodeHistoryNamed(k, hist, s)
	// The encoding says "at most one return value" of a completed pending
	// operation, not "at least one": a model may leave every ret(o)=v
	// false. A witness needs the value, so demand one; any completion
	// that linearizes satisfies the demand, so the answer is unchanged.
	// A candidate value no axiom mentions has no variable: one fresh
	// variable stands for all of them.
	pend, cands, _ := enumerate.PendingCandidates(k, hist)
	for j, i := range pend {
		u := enc.UsedLit(encode.SerialOf(i))
		if u == z.LitNull || len(cands[j]) == 0 {
			continue
		}
		vars := enc.RetVars(encode.SerialOf(i))
		cl := []z.Lit{u.Not()}
		other := false
		for _, v := range cands[j] {
			if l, ok := vars[v]; ok {
				cl = append(cl, l)
			} else {
				other = true
			}
		}
		if other {
			cl = append(cl, s.NewVar().Pos())
		}
		s.AddClause(cl)
	}
	var r int
	if limit > 0 {
		r = s.g.Try(limit)
	} else {
		r = s.g.Solve()
	}
	switch r {
	case -1:
		return nil, nil
	case 0:
		return nil, fmt.Errorf("witness: no answer within %v", limit)
	}
	n := len(hist.Ops)
	candsOf := map[int][]h.Value{}
	for j, i := range pend {
		candsOf[i] = cands[j]
	}
	used := make([]bool, n)
	ret := make([]h.Value, n)
	for i := range hist.Ops {
		o := &hist.Ops[i]
		used[i], ret[i] = true, o.Label.Ret
		if !o.Pending() {
			continue
		}
		if u := enc.UsedLit(encode.SerialOf(i)); u != z.LitNull {
			used[i] = s.value(u)
		}
		// A return value no axiom instance mentions has no variable: it
		// is as good as any, so one is taken when no variable is true.
		vars := enc.RetVars(encode.SerialOf(i))
		ret[i] = h.Void
		chosen := false
		for v, l := range vars {
			if s.value(l) {
				ret[i], chosen = v, true
			}
		}
		for _, v := range candsOf[i] {
			if _, ok := vars[v]; !chosen && !ok {
				ret[i], chosen = v, true
			}
		}
	}
	before := func(i, j int) bool {
		l, c := enc.BLit(encode.SerialOf(i), encode.SerialOf(j))
		if l == z.LitNull {
			return c
		}
		return s.value(l)
	}
	var order []int
	for i := range n {
		if used[i] {
			order = append(order, i)
		}
	}
	if k.Sequential {
		// b is a strict total order on the used operations (totality is
		// implicit, transitivity is encoded): rank by predecessors.
		rank := make([]int, n)
		for _, i := range order {
			for _, j := range order {
				if i != j && before(j, i) {
					rank[i]++
				}
			}
		}
		slices.SortStableFunc(order, func(a, b int) int { return rank[a] - rank[b] })
		for p, i := range order {
			if rank[i] != p {
				return nil, fmt.Errorf("witness: the model's order is not total at [%s]", hist.Ops[i].ID)
			}
		}
	}
	partner := make([]int, n)
	for i := range partner {
		partner[i] = -1
	}
	if hist.Object == h.Exchanger {
		for v := z.Var(1); v <= z.Var(s.g.MaxVar()); v++ {
			m := matchName.FindStringSubmatch(enc.VarName(v))
			if m == nil || !s.value(v.Pos()) {
				continue
			}
			x, _ := strconv.Atoi(m[1])
			y, _ := strconv.Atoi(m[2])
			if x >= 1 && y >= 1 && x <= n && y <= n {
				partner[x-1], partner[y-1] = y-1, x-1
			}
		}
	}
	w := &engine.Witness{}
	for _, i := range order {
		o := &hist.Ops[i]
		l := o.Label
		if o.Pending() {
			l.Pending, l.Ret = false, ret[i]
		}
		wo := engine.WitnessOp{ID: o.ID, Op: l.String(), Completed: o.Pending(), Index: i, Label: l}
		if partner[i] >= 0 {
			wo.Partner = hist.Ops[partner[i]].ID
		}
		w.Order = append(w.Order, wo)
	}
	for i := range n {
		if !used[i] {
			w.Dropped = append(w.Dropped, hist.Ops[i].ID)
		}
	}
	return w, nil
}
