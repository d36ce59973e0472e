package saturate

import (
	"fmt"
	"math/rand/v2"

	"github.com/satmon/satmon/internal/z"
)

// window is the benchmark workload, shaped like what the monitor feeds
// the engine: a sliding window of completed operations with variables
// b(x,y) = "x is linearized before y" for every pair in the window, the
// axioms of a strict total order over them, units from real-time order,
// and some units from "data" (e.g. a read seeing a write) that fix the
// order of concurrent operations. Each step forgets the oldest operation
// and adds a new one. The units follow a hidden linearization, so the
// clauses are satisfiable and the engine must never find a conflict.
type window struct {
	s       *Solver
	size    int
	rng     *rand.Rand
	ops     []windowOp // by slot; slot k%size holds operation k
	b       [][]z.Var  // b[x][y] for slots x != y
	next    int        // number of operations added so far
	clock   float64
	clauses int // clauses added so far
	forget  []z.Var
}

type windowOp struct {
	call, ret float64
	point     float64 // hidden linearization point in [call, ret]
}

// Operations are on average this many time units apart and this many
// times as long, so each overlaps a few others.
const (
	opGap         = 1.0
	opConcurrency = 3.0
)

func newWindow(size int, seed uint64) *window {
	w := &window{
		s:    New(),
		size: size,
		rng:  rand.New(rand.NewPCG(seed, 42)),
		ops:  make([]windowOp, size),
		b:    make([][]z.Var, size),
	}
	for x := range w.b {
		w.b[x] = make([]z.Var, size)
	}
	return w
}

// live returns the slots of the operations in the window, except skip.
func (w *window) liveSlots(skip int, out []int) []int {
	out = out[:0]
	for k := max(0, w.next-w.size); k < w.next; k++ {
		if k%w.size != skip {
			out = append(out, k%w.size)
		}
	}
	return out
}

func (w *window) step() {
	s := w.s
	x := w.next % w.size
	var others [64]int
	if w.next >= w.size { // forget the oldest operation, which sits in slot x
		w.forget = w.forget[:0]
		for _, y := range w.liveSlots(x, others[:0]) {
			w.forget = append(w.forget, w.b[x][y], w.b[y][x])
		}
		if err := s.ForgetVars(w.forget); err != nil {
			panic(err)
		}
	}
	w.clock += w.rng.Float64() * 2 * opGap
	op := windowOp{call: w.clock, ret: w.clock + w.rng.Float64()*2*opGap*opConcurrency}
	op.point = op.call + w.rng.Float64()*(op.ret-op.call)
	w.ops[x] = op
	ys := w.liveSlots(x, others[:0])
	w.next++
	for _, y := range ys {
		w.b[x][y], w.b[y][x] = s.NewVar(), s.NewVar()
	}
	for _, y := range ys {
		xy, yx := w.b[x][y], w.b[y][x]
		s.AddClause(xy.Pos(), yx.Pos())
		s.AddClause(xy.Neg(), yx.Neg())
		w.clauses += 2
	}
	for _, y := range ys {
		for _, z := range ys {
			if y == z {
				continue
			}
			w.transitive(x, y, z)
			w.transitive(y, x, z)
			w.transitive(y, z, x)
		}
	}
	for _, y := range ys {
		other := w.ops[y]
		switch {
		case other.ret < op.call: // real time
			s.AddClause(w.b[y][x].Pos())
			w.clauses++
		case w.rng.IntN(4) == 0: // data
			if other.point < op.point {
				s.AddClause(w.b[y][x].Pos())
			} else {
				s.AddClause(w.b[x][y].Pos())
			}
			w.clauses++
		}
	}
	s.Propagate()
}

// transitive adds b(x,y) ∧ b(y,z) → b(x,z).
func (w *window) transitive(x, y, z int) {
	w.s.AddClause(w.b[x][y].Neg(), w.b[y][z].Neg(), w.b[x][z].Pos())
	w.clauses++
}

// checkOrder checks that every assigned b agrees with the hidden
// linearization, which satisfies all clauses.
func (w *window) checkOrder() error {
	var buf [64]int
	ys := w.liveSlots(-1, buf[:0])
	for _, x := range ys {
		for _, y := range ys {
			if x == y {
				continue
			}
			want := False
			if w.ops[x].point < w.ops[y].point {
				want = True
			}
			if got := w.s.Value(w.b[x][y].Pos()); got != Unknown && got != want {
				return fmt.Errorf("b(%d,%d) = %v, hidden order says %v", x, y, got, want)
			}
		}
	}
	return nil
}
