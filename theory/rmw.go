package theory

import h "github.com/satmon/satmon/internal/history"

// The registers with a read-modify-write: the compare-and-set register
// (read, write, cas) and the string register (put, get, append; put and
// get are the methods Write and Read). Both follow the register of
// Figure 6: every operation that observes the state is matched to the
// latest operation before it that changed the state (READWRITE,
// READFROM), and MATCH says what the observed value must be. A
// successful cas and an append both observe and change the state, so
// they stand on both sides of the matching. docs/theories.md explains
// the kernels.

// casWrites: x changes the state of the compare-and-set register.
func casWrites(x int) *Formula { return Or(Meth(x, h.Write), And(Meth(x, h.CAS), Ret(x, h.OK))) }

// casObserves: x reads the state of the compare-and-set register.
func casObserves(x int) *Formula { return Or(Meth(x, h.Read), Meth(x, h.CAS)) }

// CASMatch is MATCH for the compare-and-set register: a read returns the
// value written by its match, a successful cas expects it, a failed cas
// expects another value.
func CASMatch() *Def {
	return def("MATCH(cas)", "", ax(vs("x", "y"), nil,
		Implies(Match(0, 1), And(casWrites(0),
			Or(And(Meth(1, h.Read), ArgRet(0, 1)),
				And(Meth(1, h.CAS), Ret(1, h.OK), Relation(ArgOldRel, 0, 1)),
				And(Meth(1, h.CAS), Ret(1, h.Fail), Not(Relation(ArgOldRel, 0, 1))))))))
}

// CASReadWrite is READWRITE for every operation that observes the state.
func CASReadWrite() *Def {
	return def("READWRITE(cas)", "", ax(vs("r"), vs("w"),
		Implies(casObserves(0), And(Match(1, 0), B(1, 0)))))
}

// CASReadFrom is READFROM: the match of r is the latest state change
// before it.
func CASReadFrom() *Def {
	return def("READFROM(cas)", "", ax(vs("w1", "r"), vs("w2"),
		Implies(And(casWrites(0), casObserves(1), Not(Match(0, 1)), B(0, 1)),
			And(Match(2, 1), B(0, 2), B(2, 1)))))
}

// strChanges: x changes the string register (put or append).
func strChanges(x int) *Formula { return Or(Meth(x, h.Write), Meth(x, h.Append)) }

// strObserves: x depends on the string before it (get or append).
func strObserves(x int) *Formula { return Or(Meth(x, h.Read), Meth(x, h.Append)) }

// StrMatch is MATCH for the string register: an append is matched to any
// state change (the string it extends); a get matched to a put returns
// the put's string, a get matched to an append returns a string ending
// with the appended one.
func StrMatch() *Def {
	return def("MATCH(string)", "", ax(vs("x", "y"), nil,
		Implies(Match(0, 1), And(strChanges(0),
			Or(Meth(1, h.Append),
				And(Meth(1, h.Read), Meth(0, h.Write), ArgRet(0, 1)),
				And(Meth(1, h.Read), Meth(0, h.Append), Relation(EndsRel, 0, 1)))))))
}

// StrReadWrite is READWRITE for gets and appends.
func StrReadWrite() *Def {
	return def("READWRITE(string)", "", ax(vs("y"), vs("x"),
		Implies(strObserves(0), And(Match(1, 0), B(1, 0)))))
}

// StrReadFrom is READFROM for gets and appends.
func StrReadFrom() *Def {
	return def("READFROM(string)", "", ax(vs("w1", "y"), vs("w2"),
		Implies(And(strChanges(0), strObserves(1), Not(Match(0, 1)), B(0, 1)),
			And(Match(2, 1), B(0, 2), B(2, 1)))))
}

// AppendChain is APPENDCHAIN: an append a that a get g sees — a is before
// g and no put lies between them — contributes its argument to ret(g)
// right after the string of its match x. With the put p that starts g's
// chain of matches and the appends a1 … ak after it, ret(g) starts with
// arg(p)·arg(a1), contains arg(ai)·arg(ai+1), and (MATCH) ends with
// arg(ak): when no append's argument occurs twice in ret(g), that is
// ret(g) = arg(p)·arg(a1)·…·arg(ak).
func AppendChain() *Def {
	return def("APPENDCHAIN", "not in the paper: the string register's concatenation, stated pairwise along the chain of matches", ax(vs("x", "a", "g"), vs("q"),
		Implies(And(Match(0, 1), Meth(1, h.Append), Meth(2, h.Read), B(1, 2)),
			Or(And(Meth(3, h.Write), B(1, 3), B(3, 2)),
				And(Meth(0, h.Write), Relation(StartsRel, 0, 1, 2)),
				And(Meth(0, h.Append), Relation(ContainsRel, 0, 1, 2))))))
}
