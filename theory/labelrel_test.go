package theory

import (
	"strings"
	"testing"

	h "github.com/satmon/satmon/internal/history"
)

// The derived relations read the labels they should, are unknown on a
// pending return value they read, and print as docs/theories.md shows.
func TestDerivedRelations(t *testing.T) {
	w := &h.Label{Method: h.Write, Arg: "ab"}
	a := &h.Label{Method: h.Append, Arg: "cd"}
	g := &h.Label{Method: h.Read, Ret: "xabcdy"}
	cas := &h.Label{Method: h.CAS, Old: "ab", Arg: "z", Ret: h.OK}
	pending := &h.Label{Method: h.Read, Pending: true}
	cases := []struct {
		r    *Rel
		ls   []*h.Label
		want int
	}{
		{ArgOldRel, []*h.Label{w, cas}, RelTrue},
		{ArgOldRel, []*h.Label{a, cas}, RelFalse},
		{ArgOldRel, []*h.Label{w, g}, RelFalse}, // only a cas has an old value
		{EndsRel, []*h.Label{a, &h.Label{Method: h.Read, Ret: "abcd"}}, RelTrue},
		{EndsRel, []*h.Label{a, g}, RelFalse},
		{EndsRel, []*h.Label{a, pending}, RelUnknown},
		{StartsRel, []*h.Label{w, a, &h.Label{Method: h.Read, Ret: "abcdef"}}, RelTrue},
		{StartsRel, []*h.Label{w, a, g}, RelFalse},
		{ContainsRel, []*h.Label{w, a, g}, RelTrue},
		{ContainsRel, []*h.Label{a, w, g}, RelFalse},
		{ContainsRel, []*h.Label{w, a, pending}, RelUnknown},
	}
	for i, c := range cases {
		if got := c.r.Eval(c.ls); got != c.want {
			t.Errorf("case %d: %s = %d, want %d", i, c.r.Name, got, c.want)
		}
	}
	k, err := KernelOf(h.CASRegister, "")
	if err != nil {
		t.Fatal(err)
	}
	if s := k.Pair.String(); !strings.Contains(s, "arg(x) = old(y)") || !strings.Contains(s, "arg(x) ≠ old(y)") {
		t.Errorf("MATCH(cas) prints as %s", s)
	}
	k, err = KernelOf(h.StringRegister, "")
	if err != nil {
		t.Fatal(err)
	}
	if s := AppendChain().Parts[0].String(); !strings.Contains(s, "ret(g) = arg(x)·arg(a)·…") || !strings.Contains(s, "⇒ ∃q.") {
		t.Errorf("APPENDCHAIN prints as %s", s)
	}
	if k.DropPending != h.Read {
		t.Errorf("the string register's pending gets are not dropped")
	}
	if v, ok := k.InitialWrite(); !ok || v != h.Void {
		t.Errorf("the string register's initial write is %q, %v; want the empty string", v, ok)
	}
}
