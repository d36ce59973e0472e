package viz

import (
	"fmt"
	"strings"
	"testing"
)

// A wide timeline opens at its right end only where a violation is to be
// seen there; an ok one opens at its start, by the lane names.
func TestScrollStart(t *testing.T) {
	t.Parallel()
	for _, violation := range []bool{false, true} {
		d := drawing(violation)
		for i := range 150 {
			d.Ops = append(d.Ops, Op{ID: fmt.Sprint(100 + i), Label: "add(x)", Call: 30 + 2*i, Return: 31 + 2*i})
		}
		if lay := layout(d); lay.width <= narrow {
			t.Fatalf("timeline %d wide, want more than %d", lay.width, narrow)
		}
		var b strings.Builder
		if err := HTML(&b, d); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), `class="wrap end"`); got != violation {
			t.Errorf("violation %v: opens at the right end %v", violation, got)
		}
	}
}

// A long bar whose start is out of the first view of a violation's page
// repeats its label at its end; a short one does not.
func TestLongBarLabelAtEnd(t *testing.T) {
	t.Parallel()
	d := &Drawing{Title: "t"}
	// One long core operation over 200 short ones, the violation at its end.
	d.Ops = append(d.Ops, Op{ID: "long", Label: "rem ⇒ 1", Call: 0, Return: 402, Core: true, Violation: true})
	for i := range 200 {
		d.Ops = append(d.Ops, Op{ID: fmt.Sprint(i), Label: "add(x)", Call: 1 + 2*i, Return: 2 + 2*i})
	}
	var b strings.Builder
	if err := HTML(&b, d); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), ">[long] rem ⇒ 1</text>"); n != 2 {
		t.Errorf("the long bar's label appears %d times, want 2 (start and end)", n)
	}
	if n := strings.Count(b.String(), ">[7] add(x)</text>"); n != 1 {
		t.Errorf("a short bar's label appears %d times, want 1", n)
	}
}

// A page that opens at its start (no violation) shows each label once.
func TestLongBarLabelOnceWhenOk(t *testing.T) {
	t.Parallel()
	d := &Drawing{Title: "t"}
	d.Ops = append(d.Ops, Op{ID: "long", Label: "add(1)", Call: 0, Return: 302})
	for i := range 150 {
		d.Ops = append(d.Ops, Op{ID: fmt.Sprint(i), Label: "add(x)", Call: 1 + 2*i, Return: 2 + 2*i})
	}
	var b strings.Builder
	if err := HTML(&b, d); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), ">[long] add(1)</text>"); n != 1 {
		t.Errorf("the long bar's label appears %d times, want 1", n)
	}
}

// Operations without log lines (the library's Check) say no "line 0".
func TestNoLineZero(t *testing.T) {
	t.Parallel()
	d := &Drawing{Title: "t", Ops: []Op{
		{ID: "0", Label: "add(1)", Call: 0, Return: 1},
		{ID: "1", Label: "rem ⇒ 2", Call: 2, Return: 3, Core: true, Violation: true},
		{ID: "2", Label: "add(3)", Call: 4, Return: -1},
	}}
	var b strings.Builder
	if err := HTML(&b, d); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if strings.Contains(s, "line 0") {
		t.Errorf("the page names line 0")
	}
	if !strings.Contains(s, "<title>[2] add(3) (pending)</title>") || !strings.Contains(s, "violation proved here<") {
		t.Errorf("titles or the violation mark are not as expected:\n%s", s)
	}
}
