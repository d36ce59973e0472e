package encode

import (
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/theory"
)

// Derived relations (theory.Rel) are label facts, like arg(x) = ret(y):
// they fold to constants once the return values they read are known.

// relNode grounds a KRel atom under e.env. The kernels that read a
// pending operation's return value in a relation (the string register's
// get) leave that operation out of every instance while it is pending
// (dropped), so the value is known here; should it not be, the atom
// becomes a fresh unconstrained variable, which can only admit more.
func (gr *folder) relNode(f *theory.Formula) *node {
	e := gr.e
	switch relValue(f, func(i int) *Op { return e.scr.env[i] }) {
	case vTrue:
		return trueNode
	case vFalse:
		return falseNode
	}
	return gr.litNode(e.fo.aux())
}

// dropped reports whether o is a pending operation of the kernel's
// DropPending method: it is bound in no instance until it returns.
func (gr *folder) dropped(o *Op) bool {
	return gr.drop != h.NoMethod && o.Label.Method == gr.drop && o.pending()
}
