package encode

import (
	"bufio"
	"fmt"
	"io"

	"github.com/satmon/satmon/internal/z"
)

// CNF is a Sink that keeps every clause, for writing DIMACS.
type CNF struct {
	Vars    int
	Clauses [][]Lit
}

// NewVar hands out the next variable.
func (c *CNF) NewVar() z.Var { c.Vars++; return z.Var(c.Vars) }

// AddClause keeps a copy of the clause.
func (c *CNF) AddClause(lits []Lit) { c.Clauses = append(c.Clauses, append([]Lit(nil), lits...)) }

// WriteDIMACS writes the clauses in DIMACS CNF, preceded by comment lines
// naming each variable ("c 17 b(o3,o7)") when names is not nil.
func (c *CNF) WriteDIMACS(w io.Writer, header []string, names func(z.Var) string) error {
	bw := bufio.NewWriter(w)
	for _, l := range header {
		fmt.Fprintf(bw, "c %s\n", l)
	}
	if names != nil {
		for v := 1; v <= c.Vars; v++ {
			fmt.Fprintf(bw, "c %d %s\n", v, names(z.Var(v)))
		}
	}
	fmt.Fprintf(bw, "p cnf %d %d\n", c.Vars, len(c.Clauses))
	for _, cl := range c.Clauses {
		for _, l := range cl {
			fmt.Fprintf(bw, "%d ", l.Dimacs())
		}
		bw.WriteString("0\n")
	}
	return bw.Flush()
}
