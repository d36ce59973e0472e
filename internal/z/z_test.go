package z

import (
	"testing"

	gz "github.com/go-air/gini/z"
)

func TestEncoding(t *testing.T) {
	for _, d := range []int{1, -1, 2, -2, 7, -7, 1 << 20, -(1 << 20)} {
		l := Dimacs2Lit(d)
		if l.Dimacs() != d || l.String() != gz.Dimacs2Lit(d).String() {
			t.Errorf("Dimacs2Lit(%d) = %v (Dimacs %d)", d, l, l.Dimacs())
		}
		if gz.Lit(l) != gz.Dimacs2Lit(d) {
			t.Errorf("Dimacs2Lit(%d) = %d, gini's is %d", d, l, gz.Dimacs2Lit(d))
		}
		if l.Not().Dimacs() != -d || l.Not().Not() != l || l.Not().Var() != l.Var() {
			t.Errorf("Not(%v) = %v", l, l.Not())
		}
		if l.IsPos() != (d > 0) || l.IsNeg() != (d < 0) {
			t.Errorf("%v: IsPos %v IsNeg %v", l, l.IsPos(), l.IsNeg())
		}
		v := l.Var()
		if int(v) != max(d, -d) || v.Lit(d > 0) != l || v.Pos() != Lit(gz.Var(v).Pos()) || v.Neg() != Lit(gz.Var(v).Neg()) {
			t.Errorf("%v: Var %d, Pos %v, Neg %v", l, v, v.Pos(), v.Neg())
		}
	}
	if Dimacs2Lit(0) != LitNull || LitNull.Var() != 0 {
		t.Errorf("Dimacs2Lit(0) = %v", Dimacs2Lit(0))
	}
}
