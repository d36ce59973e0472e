package explain

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/engine"
	h "github.com/satmon/satmon/internal/history"
)

// Jepsen and Porcupine processes number their operations with their own
// ids, so an id repeats. A relaxed operation never returns: the core's
// sub-history renames it when its process calls again (else SATURATE
// would refuse the sub-history, "duplicate id"), and a derivation names
// each operation whose id repeats by its id and call line.
func TestRepeatedIDs(t *testing.T) {
	t.Parallel()
	op := func(id string, m h.Method, arg, ret h.Value, call, ret_, line int) h.Op {
		return h.Op{ID: id, Label: h.Label{Method: m, Arg: arg, Ret: ret}, Call: call, Return: ret_, Line: line}
	}
	// Processes 1 and 3 append, then read; process 1 reads a value no
	// append makes: its read alone is the core, and the sub-history
	// relaxes the three others, two of them held open under ids their
	// processes call again.
	str := &h.History{Object: h.StringRegister, Ops: []h.Op{
		op("1", h.Append, "x", h.Void, 0, 1, 1),
		op("3", h.Append, "z", h.Void, 2, 3, 3),
		op("3", h.Read, h.Void, "xz", 4, 7, 5),
		op("1", h.Read, h.Void, "q", 5, 6, 6),
	}}
	// A stale read: process 2 writes 1 after 2 was written, then reads 2.
	reg := &h.History{Object: h.CASRegister, Ops: []h.Op{
		op("5", h.Write, "2", h.Void, 0, 1, 1),
		op("2", h.Write, "1", h.Void, 2, 3, 3),
		op("2", h.Read, h.Void, "2", 4, 5, 5),
	}}
	for _, c := range []struct {
		name string
		hist *h.History
		viol int
		core []int
	}{{"string register", str, 3, []int{3}}, {"cas register", reg, 2, []int{0, 1, 2}}} {
		keep := make([]bool, len(c.hist.Ops))
		keep[c.viol] = true
		sub, _ := subHistory(c.hist, keep)
		if _, err := engine.SaturateTraced(sub, true); err != nil {
			t.Errorf("%s: SATURATE refuses the sub-history of the violation's operation: %v", c.name, err)
		}
		core, exact, err := FindCore(c.hist, c.viol, 0)
		if err != nil || !exact || !slices.Equal(core, c.core) {
			t.Errorf("%s: core %v (exact %v, %v), want %v", c.name, core, exact, err, c.core)
			continue
		}
		deriv, err := Derive(c.hist, core)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		text := strings.Join(deriv, "\n")
		// Every mention of a repeated id says which operation it is.
		if m := regexp.MustCompile(`\[(1|2|3)\]`).FindString(text); m != "" {
			t.Errorf("%s: the derivation names %s, which several operations share:\n%s", c.name, m, text)
		}
		t.Logf("%s:\n%s", c.name, text)
	}
}
