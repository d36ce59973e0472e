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
