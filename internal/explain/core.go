package explain

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/satmon/satmon/internal/engine"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/sat"
	"github.com/satmon/satmon/theory"
)

// A violation's core is a set C of operations whose sub-history is already
// not linearizable, 1-minimal: relaxing any one more operation makes it
// linearizable.
//
// What a sub-history is matters. Dropping the operations outside C
// outright would make cores meaningless: without its enqueue(a), a
// dequeue ⇒ a is a violation on its own, so every core would shrink to one
// removal of a value. The sub-history of C therefore keeps every other
// operation, relaxed: its call stays where it was, its return is
// forgotten, and like any pending operation it may be dropped or completed
// with any value after every other action. Relaxing only ever adds
// linearizations (the original return is one of the completions, and a
// later return is a weaker real-time constraint), so a non-linearizable
// sub-history proves the whole history is not linearizable. Operations
// pending in the history stay pending. A relaxed or pending operation
// called after every return of C is left out altogether: every such
// operation follows every complete operation in any linearization, so the
// linearization's prefix up to the last complete operation, with those
// operations dropped, is one too. For the set, a relaxed operation on a
// value no operation of C names is left out as well: the set is the
// product of one independent object per value, linearizability is local
// (Herlihy and Wing), and a value's history made only of pending
// operations is linearizable.
//
// For a queue or a stack whose adds all add distinct values, the
// operations outside C on values no operation of C names are left out,
// returned or not, and so are the removals outside C that found the
// collection empty. This is sound by data independence: restricting a
// linearization of the whole history to the operations on a set V of
// values (keeping the empty removals or not) gives a linearization of
// the restriction, since the contents restricted to V still have the
// removed value at the front (queue) or top (stack), and are empty when
// the whole is. A pending removal may have taken a value outside V: it
// is kept, and may be dropped. Without this, every removal called
// before C's last return would be relaxed, free to take the element C's
// violation is about, and a core would have to hold them all; with it,
// a queue that loses one element among thousands gets a core of three
// operations.

// coreCap bounds the operations of the sub-histories the exact shrinking
// pass encodes (relaxed ones included): SYMBOLIC's encoding is cubic in
// the concurrent operations, and pending operations overlap everything
// after their call. Beyond it the core is minimal for SATURATE only.
const coreCap = 120

// coreMaxOps bounds the operations of any sub-history FindCore checks.
const coreMaxOps = 500

// projectedMaxOps bounds the operations of the sub-histories FindCore
// starts from for a queue or stack of distinct values: their relaxed
// operations are few (those on the values the kept ones name, and the
// pending removals), so SATURATE's checks stay cheap, and ddmin takes out
// half of them at its first steps.
const projectedMaxOps = 4 * coreMaxOps

// subHistory returns hist restricted to the operations in keep, the
// others relaxed as described above; idx maps its operations to hist's.
func subHistory(hist *h.History, keep []bool) (*h.History, []int) {
	lastRet := -1
	for i := range hist.Ops {
		if keep[i] && hist.Ops[i].Return > lastRet {
			lastRet = hist.Ops[i].Return
		}
	}
	var values map[h.Value]bool
	if hist.Object == h.Set {
		values = map[h.Value]bool{}
		for i := range hist.Ops {
			if keep[i] {
				values[hist.Ops[i].Label.Arg] = true
			}
		}
	}
	named := namedValues(hist, keep)
	sub := &h.History{Object: hist.Object, Param: hist.Param}
	var idx []int
	for i := range hist.Ops {
		o := hist.Ops[i]
		if named != nil && !keep[i] {
			l := o.Label
			switch {
			case l.Method == h.Add && !named[l.Arg]:
				continue
			case l.Method == h.Rem && !o.Pending() && (l.Ret == h.Empty || !named[l.Ret]):
				continue
			}
		}
		if !keep[i] || o.Pending() {
			if o.Call > lastRet || values != nil && !values[o.Label.Arg] {
				continue
			}
			o.Return, o.Label.Pending, o.Label.Ret = -1, true, h.Void
		}
		sub.Ops = append(sub.Ops, o)
		idx = append(idx, i)
	}
	renamePending(sub)
	return sub, idx
}

// renamePending renames each pending operation of sub whose id a later
// operation reuses: an id names one open operation at a time, and a
// relaxed operation, which never returns, would still hold the id of its
// process (a Jepsen or Porcupine client) when the process calls again.
// The new id is the old one with the call's line, "3@48" (or with the
// operation's place in sub, when the line is unknown).
func renamePending(sub *h.History) {
	open := map[string]int{} // id → the pending operation holding it
	for j := range sub.Ops {
		o := &sub.Ops[j]
		if p, ok := open[o.ID]; ok {
			q := &sub.Ops[p]
			at := q.Line
			if at == 0 {
				at = p + 1
			}
			q.ID = fmt.Sprintf("%s@%d", q.ID, at)
			delete(open, o.ID)
		}
		if o.Pending() {
			open[o.ID] = j
		}
	}
}

// namedValues returns, for a queue or stack whose adds add distinct
// values, the values the kept operations name (added, or returned by a
// removal); nil for other objects and histories, whose sub-histories
// keep every operation's value (see above).
func namedValues(hist *h.History, keep []bool) map[h.Value]bool {
	if hist.Object != h.Queue && hist.Object != h.Stack {
		return nil
	}
	added := make(map[h.Value]bool, len(hist.Ops)/2)
	for i := range hist.Ops {
		if l := hist.Ops[i].Label; l.Method == h.Add {
			if added[l.Arg] {
				return nil
			}
			added[l.Arg] = true
		}
	}
	named := map[h.Value]bool{}
	for i := range hist.Ops {
		if !keep[i] {
			continue
		}
		switch o := &hist.Ops[i]; {
		case o.Label.Method == h.Add:
			named[o.Label.Arg] = true
		case o.Label.Method == h.Rem && !o.Pending() && o.Label.Ret != h.Empty:
			named[o.Label.Ret] = true
		}
	}
	return named
}

// violatesSaturate reports whether SATURATE finds hist not linearizable.
// It is sound: a yes is a proof.
func violatesSaturate(hist *h.History) bool {
	r, _ := engine.CheckHistory(hist, engine.Options{Algorithm: engine.Saturate}) // an error is verdict Error
	return r.Verdict == engine.Violation
}

// errTooLong: the sub-histories FindCore would check pass coreMaxOps.
var errTooLong = fmt.Errorf("cores are searched among at most %d operations", coreMaxOps)

// errUndecided: the exact check ran out of time.
var errUndecided = errors.New("undecided")

// violatesExact decides whether hist is not linearizable with one SAT
// call on its whole encoding (SYMBOLIC's from-scratch check).
func violatesExact(k *theory.Kernel, hist *h.History, limit time.Duration) (bool, error) {
	s, err := sat.New("gini")
	if err != nil {
		return false, err
	}
	engine.EncodeWhole(k, hist, s)
	deadline := time.Now().Add(limit)
	switch s.Solve(func() bool { return limit > 0 && time.Now().After(deadline) }) {
	case sat.Unsat:
		return true, nil
	case sat.Sat:
		return false, nil
	}
	return false, errUndecided
}

var serialName = regexp.MustCompile(`o(\d+)`)

// explainedOps runs SATURATE over hist with named variables and returns
// the operations (indices into hist.Ops) named by the variables of the
// conflict's explanation, or nil when SATURATE finds no conflict.
// Operations whose atoms were folded into constants are not named; the
// caller checks that the set still fails.
func explainedOps(hist *h.History) []int {
	t, err := engine.SaturateTraced(hist, false)
	if err != nil || !t.Violation {
		return nil
	}
	seen := map[int]bool{}
	var out []int
	for _, r := range t.Solver.Explain() {
		for _, l := range r.Lits {
			for _, mm := range serialName.FindAllStringSubmatch(t.Enc.VarName(l.Var()), -1) {
				s, _ := strconv.Atoi(mm[1])
				if s >= 1 && s <= len(hist.Ops) && !seen[s-1] {
					seen[s-1] = true
					out = append(out, s-1)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// FindCore returns a core of the non-linearizable history hist (indices
// into hist.Ops, in call order) and whether it is exactly 1-minimal. It
// starts from the operations SATURATE's conflict explanation names (with
// viol, the operation whose return proved the violation, or -1), shrinks
// with SATURATE while that is cheap and sound, then with the exact SAT
// check until dropping any one operation leaves a linearizable
// sub-history. exact is false when the sub-histories were too large for
// the exact pass (coreCap) or a check ran past limit (0: none); the core
// is then minimal for SATURATE only. It returns nil when no core could be
// shown (hist not proven non-linearizable within limit).
func FindCore(hist *h.History, viol int, limit time.Duration) (core []int, exact bool, err error) {
	k, err := theory.KernelOf(hist.Object, hist.Param)
	if err != nil {
		return nil, false, err
	}
	n := len(hist.Ops)
	deadline := time.Now().Add(limit)
	left := func() time.Duration {
		if limit <= 0 {
			return 0
		}
		return max(time.Until(deadline), time.Millisecond)
	}
	keepOf := func(set []int) []bool {
		keep := make([]bool, n)
		for _, i := range set {
			keep[i] = true
		}
		return keep
	}
	fails := func(set []int, exactOnly bool) (bool, error) {
		sub, _ := subHistory(hist, keepOf(set))
		if !exactOnly && violatesSaturate(sub) {
			return true, nil
		}
		if len(sub.Ops) > coreCap {
			return false, errUndecided
		}
		return violatesExact(k, sub, left())
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	projected := namedValues(hist, make([]bool, n)) != nil
	var set []int
	if projected && viol >= 0 {
		// A span from the first operation on a value named near the
		// violation to the last one called before its return: a fault that returns
		// an element out of order shows within it, however far back the
		// element was added, and its sub-history keeps only the
		// operations on the values added or removed within it. The
		// values named are the violation's operation's (the add of the
		// value a removal returned), then also those of the operations
		// that returned while it was open: the return that proves a
		// violation may be a later one than the faulty operation's.
		near := []int{viol}
		hi := viol // the last operation called before the violation's return
		for i := range hist.Ops {
			o := &hist.Ops[i]
			if r := o.Return; i != viol && r > hist.Ops[viol].Call && r < hist.Ops[viol].Return {
				near = append(near, i)
			}
			if o.Call < hist.Ops[viol].Return {
				hi = max(hi, i)
			}
		}
		for _, named := range []map[h.Value]bool{namedValues(hist, keepOf(near[:1])), namedValues(hist, keepOf(near))} {
			lo := viol
			for i := 0; i < viol; i++ {
				if l := hist.Ops[i].Label; l.Method == h.Add && named[l.Arg] {
					lo = i
					break
				}
			}
			if try := all[lo : hi+1]; len(try) <= projectedMaxOps {
				if ok, _ := fails(try, false); ok {
					set = try
					break
				}
			}
			if len(near) == 1 {
				break
			}
		}
	}
	if projected && set == nil {
		// Where operations on other values are left out, the last
		// operations before the violation, 16, 32, … of them, are a
		// start whose sub-history is small: the first that fails is
		// shrunk. (SATURATE's conflict on a long history names many
		// operations, and without -r it may find none: the violation
		// may have needed -r's summaries.)
		for w := 16; w < 2*coreMaxOps && w < 2*n; w *= 2 {
			try := all[max(0, n-w):]
			if viol >= 0 && !slices.Contains(try, viol) {
				try = append([]int{viol}, try...)
				slices.Sort(try)
			}
			if ok, _ := fails(try, false); ok {
				set = try
				break
			}
		}
	}
	if set == nil {
		set = explainedOps(hist)
	} else if sub, idx := subHistory(hist, keepOf(set)); len(sub.Ops) > coreCap {
		// SATURATE's conflict on the start's sub-history names few of
		// its operations: when they fail alone, ddmin starts from them.
		var named []int
		for _, j := range explainedOps(sub) {
			named = append(named, idx[j])
		}
		if viol >= 0 && !slices.Contains(named, viol) {
			named = append(named, viol)
		}
		slices.Sort(named)
		if len(named) < len(set) {
			if ok, _ := fails(named, false); ok {
				set = named
			}
		}
	}
	if viol >= 0 && !slices.Contains(set, viol) {
		set = append(set, viol)
		slices.Sort(set)
	}
	// Relaxed operations are pending, and SATURATE's instances about
	// pending operations grow with everything they overlap: past
	// coreMaxOps there is no core (yet).
	maxOps := coreMaxOps
	if projected {
		maxOps = projectedMaxOps
	}
	if sub, _ := subHistory(hist, keepOf(set)); len(sub.Ops) > maxOps {
		return nil, false, fmt.Errorf("%d operations were called before the core's last return: %w", len(sub.Ops), errTooLong)
	}
	if ok, _ := fails(set, false); !ok {
		if n > coreMaxOps {
			return nil, false, fmt.Errorf("SATURATE's explanation does not refute, and %d operations are too many to start from all: %w", n, errTooLong)
		}
		set = all
		if ok, err := fails(set, false); !ok {
			if err != nil && !errors.Is(err, errUndecided) {
				return nil, false, err
			}
			return nil, false, nil
		}
	}
	// Shrink with SATURATE: each check is linear-ish, and a yes is sound.
	// SATURATE is incomplete, and can fail on a sub-history between the
	// start and a small core: a "no" on a sub-history small enough is
	// asked again of the exact check, so that the shrinking goes on. The
	// start can be large (the conflict of a long log names many
	// operations), so chunks are taken out first, then single operations
	// (ddmin's complement steps). This is for the queue and stack whose
	// operations on other values are left out (subHistory), where
	// sub-histories get small; elsewhere the exact checks cost more than
	// they save, and one pass of single removals is made.
	if projected {
		set = ddmin(set, func(try []int) bool {
			if limit > 0 && time.Now().After(deadline) {
				return false // out of time: the core so far stands
			}
			sub, _ := subHistory(hist, keepOf(try))
			if violatesSaturate(sub) {
				return true
			}
			if len(sub.Ops) > coreCap || limit > 0 && time.Now().After(deadline) {
				return false
			}
			bad, err := violatesExact(k, sub, left())
			return err == nil && bad
		})
	} else {
		for j := len(set) - 1; j >= 0 && len(set) > 1; j-- {
			try := slices.Delete(slices.Clone(set), j, j+1)
			if sub, _ := subHistory(hist, keepOf(try)); violatesSaturate(sub) {
				set = try
			}
		}
	}
	// Then exactly, to 1-minimality.
	exact = true
	if ok, err := fails(set, true); !ok || err != nil {
		// The set fails for SATURATE, so an exact "member" is impossible:
		// only an undecided check (too large, or out of time) gets here.
		return set, false, nil
	}
	for j := len(set) - 1; j >= 0; j-- {
		try := slices.Delete(slices.Clone(set), j, j+1)
		bad, err := fails(try, true)
		if err != nil {
			exact = false
			continue
		}
		if bad {
			set = try
		}
	}
	if !exact {
		return set, false, nil
	}
	return set, true, nil
}

// ddmin shrinks set while fails holds, taking out chunks of a half, a
// quarter, … of it and at last single members (Zeller and Hildebrandt's
// delta debugging, complements only). The set it returns fails, and
// taking out any one member makes it pass, as fails judged it.
func ddmin(set []int, fails func([]int) bool) []int {
	n := 2
	for len(set) > 1 {
		chunk := (len(set) + n - 1) / n
		cut := false
		for lo := 0; lo < len(set); lo += chunk {
			try := slices.Delete(slices.Clone(set), lo, min(lo+chunk, len(set)))
			if len(try) > 0 && fails(try) {
				set, n, cut = try, max(n-1, 2), true
				break
			}
		}
		if !cut {
			if n >= len(set) {
				break
			}
			n = min(2*n, len(set))
		}
	}
	return set
}

// A long history has no core by FindCore alone: the operations called
// before the core's last return are relaxed, not left out, and past
// coreMaxOps of them the checks are too costly. Such a history is cut at a
// point that separates it in real time, as dropping an idle monitor does
// (idleState, multi.go): no operation open and every linearization of the
// operations before it ending in one known state S. Then the history is
// not linearizable if the operations after the cut are not from S (every
// linearization of the whole is one of the operations before followed by
// one of those after), so a core of the part after the cut, started from
// S, shows the whole history is not linearizable.

// Cut says where a long history was cut to find a core: the core is one
// of the operations after it, from the state every linearization of the
// operations before it ends in.
type Cut struct {
	// Before is how many operations precede the cut; Line is the log line
	// of the last action before it (0 when unknown).
	Before int `json:"before"`
	Line   int `json:"line,omitempty"`
	// State is the object's state at the cut, as the parameter of a
	// fresh object or, for the compare-and-set and string registers, the
	// value it holds ("nil": absent; "": empty).
	State string `json:"state"`
}

// cutAt is a candidate cut: after action position pos, in state (as
// idleState.droppable gives it).
type cutAt struct {
	pos   int
	state string
}

// cutPoints lists, in order, the points of hist before action position
// upto where the history may be cut (see above).
func cutPoints(hist *h.History, upto int) []cutAt {
	var t engine.IdleState
	t.Reset(hist.Object, hist.Param)
	param := hist.Param
	var out []cutAt
	for _, a := range engine.Actions(hist) {
		if a.Seq >= upto {
			break
		}
		t.Step(hist.Object, a)
		if a.Kind != h.Return {
			continue
		}
		p, ok := t.Droppable(hist.Object, param)
		if !ok {
			continue
		}
		out = append(out, cutAt{a.Seq, p})
		if k := hist.Object; k != h.CASRegister && k != h.StringRegister {
			param = p
		}
		t.Reset(hist.Object, p)
	}
	return out
}

// afterCut returns the operations of hist called after c, as a history
// from c's state, and idx mapping its operations to hist's (-1 for the
// completed write that sets a compare-and-set or string register's state,
// when its parameter cannot).
func afterCut(hist *h.History, c cutAt) (*h.History, []int) {
	sub := &h.History{Object: hist.Object, Param: c.state}
	var write h.Value
	switch hist.Object {
	case h.CASRegister:
		if c.state == string(h.Nil) {
			sub.Param = ""
		} else if engine.ValidateParam(h.CASRegister, c.state) != nil {
			sub.Param, write = "", h.Value(c.state)
		}
	case h.StringRegister:
		sub.Param, write = "", h.Value(c.state)
	}
	shift := c.pos + 1
	var idx []int
	if write != "" {
		sub.Ops = append(sub.Ops, h.Op{ID: "init", Label: h.Label{Method: h.Write, Arg: write}, Call: 0, Return: 1})
		idx = append(idx, -1)
		shift -= 2
	}
	for i := range hist.Ops {
		o := hist.Ops[i]
		if o.Call <= c.pos {
			continue // returned before the cut: the cut is quiescent
		}
		o.Call -= shift
		if o.Return >= 0 {
			o.Return -= shift
		}
		sub.Ops = append(sub.Ops, o)
		idx = append(idx, i)
	}
	return sub, idx
}

// findCoreCut finds a core of the long history hist (viol as for
// FindCore) after a cut: the latest cut before the violation's return
// after which SATURATE still finds a violation, trying cuts further back
// in doubling steps. It returns the history after the cut, the map of its
// operations to hist's, the cut, and the core (indices into the history
// after the cut), or an error when no cut gives one.
// retLines, when not nil, gives the return line of each operation, for
// Cut.Line.
func findCoreCut(hist *h.History, viol int, limit time.Duration, retLines []int) (*h.History, []int, *Cut, []int, bool, error) {
	upto := 0
	for i := range hist.Ops {
		upto = max(upto, hist.Ops[i].Call+1, hist.Ops[i].Return+1)
	}
	if viol >= 0 && hist.Ops[viol].Return >= 0 {
		upto = hist.Ops[viol].Return
	}
	cuts := cutPoints(hist, upto)
	if len(cuts) == 0 {
		return nil, nil, nil, nil, false, fmt.Errorf("no point before the violation separates the history in a known state")
	}
	refuted, tooLong := 0, 0 // cuts after which SATURATE finds the violation; of them, too long
	for back := 1; back <= len(cuts); back *= 2 {
		c := cuts[len(cuts)-back]
		sub, idx := afterCut(hist, c)
		if !violatesSaturate(sub) {
			continue
		}
		refuted++
		v := -1
		for j, i := range idx {
			if i == viol && i >= 0 {
				v = j
			}
		}
		core, exact, err := FindCore(sub, v, limit)
		if errors.Is(err, errTooLong) {
			tooLong++
		}
		if err != nil || core == nil {
			continue
		}
		before := 0
		for i := range hist.Ops {
			if hist.Ops[i].Call <= c.pos {
				before++
			}
		}
		cut := &Cut{Before: before, State: c.state}
		for i := range hist.Ops {
			if hist.Ops[i].Return == c.pos && i < len(retLines) {
				cut.Line = retLines[i]
			}
		}
		return sub, idx, cut, core, exact, nil
	}
	if tooLong > 0 && tooLong == refuted {
		return nil, nil, nil, nil, false, fmt.Errorf("the %d points that separate the history in a known state are too far from the violation", len(cuts))
	}
	return nil, nil, nil, nil, false, fmt.Errorf("no core after any of the %d points that separate the history in a known state (SATURATE finds the violation after %d of those tried)", len(cuts), refuted)
}
