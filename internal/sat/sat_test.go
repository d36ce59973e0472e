package sat

import (
	"testing"
	"time"

	"github.com/satmon/satmon/internal/z"
)

// pigeonhole adds the clauses saying that pigeons pigeons sit in holes
// holes, no two in one, and returns the variables (pigeon, hole). With a
// pigeon more than holes it is unsatisfiable, and exponentially hard for
// resolution, so for both backends.
func pigeonhole(s Solver, pigeons, holes int) [][]z.Lit {
	v := make([][]z.Lit, pigeons)
	for p := range v {
		v[p] = make([]z.Lit, holes)
		for h := range v[p] {
			v[p][h] = s.NewVar().Pos()
		}
		s.AddClause(v[p])
	}
	for h := 0; h < holes; h++ {
		for p := range v {
			for q := p + 1; q < len(v); q++ {
				s.AddClause([]z.Lit{v[p][h].Not(), v[q][h].Not()})
			}
		}
	}
	return v
}

// Both backends answer small instances, with and without a stop
// function, and give up with Unknown soon after stop says so on one that
// takes them minutes.
func TestSolveStops(t *testing.T) {
	for _, name := range []string{"gini", "gophersat"} {
		for _, holes := range []int{2, 3, 4} {
			for _, stop := range []func() bool{nil, func() bool { return false }} {
				s, err := New(name)
				if err != nil {
					t.Fatal(err)
				}
				v := pigeonhole(s, holes, holes)
				if r := s.Solve(stop); r != Sat {
					t.Fatalf("%s: %d pigeons, %d holes: %d, want sat", name, holes, holes, r)
				}
				if r := s.Solve(stop, v[0][0], v[1][0]); r != Unsat {
					t.Fatalf("%s: two pigeons assumed in one hole: %d, want unsat", name, r)
				}
				if r := s.Solve(stop, v[0][0], v[1][1]); r != Sat {
					t.Fatalf("%s: after the assumptions: %d, want sat", name, r)
				}
				u, _ := New(name)
				pigeonhole(u, holes+1, holes)
				if r := u.Solve(stop); r != Unsat {
					t.Fatalf("%s: %d pigeons, %d holes: %d, want unsat", name, holes+1, holes, r)
				}
			}
		}
		s, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		pigeonhole(s, 14, 13)
		deadline := time.Now().Add(200 * time.Millisecond)
		start := time.Now()
		r := s.Solve(func() bool { return time.Now().After(deadline) })
		if el := time.Since(start); r != Unknown || el > 20*time.Second {
			t.Fatalf("%s: 13 holes, stopped at 200 ms: %d after %v, want unknown", name, r, el)
		}
	}
}
