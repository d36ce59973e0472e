package forget

import (
	"testing"

	h "github.com/satmon/satmon/internal/history"
)

// seg builds a complete segment from (method, value, call, return)
// quadruples; an empty value on a remove is a remove ⇒ empty.
func seg(obj h.Object, ops ...[4]any) *h.History {
	hist := &h.History{Object: obj}
	for i, o := range ops {
		l := h.Label{Method: o[0].(h.Method)}
		if l.Method == h.Add {
			l.Arg = h.Value(o[1].(string))
		} else if l.Ret = h.Value(o[1].(string)); l.Ret == "" {
			l.Ret = h.Empty
		}
		hist.Ops = append(hist.Ops, h.Op{ID: string(rune('a' + i)), Label: l, Call: o[2].(int), Return: o[3].(int)})
	}
	return hist
}

// A few segments whose answer is known by hand: FIFO against LIFO, an
// empty remove while an element is in, overlapping operations that allow
// either order. The engine's TestCollSearchAgreesWithSAT checks the
// search against the kernel on random segments.
func TestCollSearchByHand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		seg  *h.History
		lin  bool
	}{
		{"queue fifo", seg(h.Queue, [4]any{h.Add, "1", 0, 1}, [4]any{h.Add, "2", 2, 3}, [4]any{h.Rem, "1", 4, 5}, [4]any{h.Rem, "2", 6, 7}), true},
		{"queue lifo", seg(h.Queue, [4]any{h.Add, "1", 0, 1}, [4]any{h.Add, "2", 2, 3}, [4]any{h.Rem, "2", 4, 5}, [4]any{h.Rem, "1", 6, 7}), false},
		{"stack lifo", seg(h.Stack, [4]any{h.Add, "1", 0, 1}, [4]any{h.Add, "2", 2, 3}, [4]any{h.Rem, "2", 4, 5}, [4]any{h.Rem, "1", 6, 7}), true},
		{"stack fifo", seg(h.Stack, [4]any{h.Add, "1", 0, 1}, [4]any{h.Add, "2", 2, 3}, [4]any{h.Rem, "1", 4, 5}, [4]any{h.Rem, "2", 6, 7}), false},
		{"empty while full", seg(h.Queue, [4]any{h.Add, "1", 0, 1}, [4]any{h.Rem, "", 2, 3}, [4]any{h.Rem, "1", 4, 5}), false},
		{"empty overlapping the add", seg(h.Queue, [4]any{h.Add, "1", 0, 3}, [4]any{h.Rem, "", 1, 2}, [4]any{h.Rem, "1", 4, 5}), true},
		{"overlapping adds", seg(h.Queue, [4]any{h.Add, "1", 0, 3}, [4]any{h.Add, "2", 1, 2}, [4]any{h.Rem, "2", 4, 5}, [4]any{h.Rem, "1", 6, 7}), true},
		{"remove of a value never added", seg(h.Queue, [4]any{h.Rem, "1", 0, 1}), false},
	}
	var s CollSearch // reused, as the monitor reuses it
	for _, c := range cases {
		if got := s.Linearizable(c.seg); got != c.lin || s.GaveUp() {
			t.Errorf("%s: Linearizable %v (gave up %v), want %v", c.name, got, s.GaveUp(), c.lin)
		}
	}
	// A pending operation or another object is never searched.
	p := seg(h.Queue, [4]any{h.Add, "1", 0, 1})
	p.Ops[0].Return = -1
	if s.Linearizable(p) {
		t.Error("a segment with a pending operation found linearizable")
	}
	if s.Linearizable(&h.History{Object: h.Set}) {
		t.Error("a set segment found linearizable")
	}
}
