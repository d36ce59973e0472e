package engine

import (
	"fmt"
	"os"
	"strings"

	h "github.com/satmon/satmon/internal/history"
)

// The string register's kernel is exact only when no appended token
// occurs twice in one get's result (docs/theories.md, "Ambiguous
// parsings"). SYMBOLIC and ENUMERATE decide the kernel, so on a history
// where a get's result parses several ways their ok is no proof: the
// monitor watches for such a get and, at the first, marks the result
// inexact and says so. The default check (the frontier) does not need
// this: it decides those histories exactly (strconfirm.go).

// strParse is what the monitor remembers to tell an ambiguous parse: the
// arguments of the appends called so far.
type strParse struct {
	args map[h.Value]bool
	said bool
}

// noteStringParse is called with the operation of each action of a
// string register under an exact variant other than the frontier.
// It is the test alone, which the compiler inlines into Step, and a call
// of the rest: a call per step would cost every object.
func (m *Monitor) noteStringParse(o *h.Op) {
	if m.win.obj == h.StringRegister && m.front == nil && m.res.Exact {
		m.noteStringParseOp(o)
	}
}

func (m *Monitor) noteStringParseOp(o *h.Op) {
	if m.strp == nil {
		m.strp = &strParse{args: map[h.Value]bool{}}
	}
	p := m.strp
	switch l := &o.Label; {
	case l.Method == h.Append && l.Pending:
		p.args[l.Arg] = true
	case l.Method == h.Read && !l.Pending && !p.said:
		ret := string(l.Ret)
		for a := range p.args {
			if a == "" {
				p.ambiguous(m, o)
				return
			}
			if i := strings.Index(ret, string(a)); i >= 0 && strings.Contains(ret[i+1:], string(a)) {
				p.ambiguous(m, o)
				return
			}
		}
	}
}

// ambiguous marks the result inexact, once, at the get o.
func (p *strParse) ambiguous(m *Monitor, o *h.Op) {
	p.said = true
	m.res.Exact = false
	out := m.opt.Warn
	if out == nil {
		out = os.Stderr
	}
	fmt.Fprintf(out, "satmon: warning: at step %d the get [%s] returns a string in which an appended token occurs twice: the string register's kernel, which %s decides, may then admit a violation, so ok is not a proof; the default check (no -a) decides it exactly; see docs/theories.md\n", m.steps+1, o.ID, m.opt.Algorithm)
}
