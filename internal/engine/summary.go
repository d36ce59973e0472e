package engine

import (
	"fmt"
	"os"
	"slices"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/sat"
	"github.com/satmon/satmon/internal/z"
)

// Summaries: where values repeat, the paper's removal (§5) is stuck —
// matching is not unique, so no match is provably obsolete — and the
// window of a register or set grows with the log. At a quiescent point
// the part of the window that values repeat in is replaced by the
// abstract states it may leave, written as completed operations that the
// kernel reads like any other (docs/removal.md, "Repeated values"):
//
//   - register, at a point where no operation is open: the values the
//     register may hold, as mutually overlapping completed writes, one
//     per value (whichever is linearized last is the current value);
//     likewise the compare-and-set register's values (the string
//     register is not summarized: see summarize);
//   - set, at a point where no operation on value x is open: x's
//     presence, as one completed add(x) ⇒ true when x is present, nothing
//     when absent. A set is a product of independent one-value objects,
//     so each value is summarized alone, whenever that value is quiet;
//   - queue, stack, priority queue, lock, exchanger, at a point where no
//     operation is open and the object is empty (free): nothing at all.
//     A non-empty collection's states are sequences, too many to write
//     down; there the window still grows, and -r says so (warnGrowing).
//
// Before the replacement the segment is checked exactly (for the
// registers by a search of the sequential specification, regsearch.go,
// elsewhere by SAT on its complete encoding, which a queue's or stack's
// segment skips when a search finds a linearization, internal/forget): a
// segment that is not linearizable is a violation, found here although
// SATURATE's unit propagation may have missed it (and confirmed by SAT
// before it is reported), and a linearizable one yields the exact set of
// states. For
// the register, the set and the collections, only tags the remover saw
// repeated trigger a summary, and operations it keeps because forgetting
// them would drop the order they impose (remover.implied): elsewhere the
// paper's removal already bounds the window. The compare-and-set
// register is summarized at every quiescent point.

// maxRMWStates bounds the states a summary of a compare-and-set register
// writes: one overlapping write each, and the window after the summary
// holds them all. With more, the segment is kept (chain).
const maxRMWStates = 32

// defaultWarnWindow is the window size from which -r says, once, that it
// cannot keep the window bounded and why (Monitor.warnWindow).
const defaultWarnWindow = 1000

// summarize is called after the return of an operation with argument arg
// left the window a member and the remover ran. It summarizes the window
// where a quiescent point allows and reports whether the window is still
// a member.
func (m *Monitor) summarize(arg h.Value) (bool, error) {
	w := m.win
	if m.hk != nil && m.hk.noSummary {
		return true, nil
	}
	switch w.obj {
	case h.Register:
		// Once summarized, a register is summarized again at every
		// quiescent point: a read may have told which summary write is
		// last, and the paper's rule forgets reads.
		if w.open() > 0 || !m.rem.anyRepeated() && w.summaryOps == 0 && !m.rem.keptLive(w, nil) {
			return true, nil
		}
		if w.summaryOps == w.size() {
			// Nothing happened since the last summary: it would write
			// the same operations again.
			return true, nil
		}
	case h.CASRegister:
		// Its state changes are never forgotten by the paper's rules
		// (values repeat, so no match is unique): every quiescent point
		// with something new since the last summary is summarized.
		//
		// The string register is not summarized, although the search
		// finds its states exactly: a summary folds the appends into one
		// put, and SATURATE's propagation through APPENDCHAIN then misses
		// violations it found through the separate appends, with a get
		// matched to an append still pending (TestStringRegisterNotSummarized).
		if w.open() > 0 || w.summaryOps == w.size() || w.size() < m.rmwRetry {
			return true, nil
		}
		return m.summarizeRMW()
	case h.Set:
		// arg's value, and every value that holds kept observers
		// (remove.go): each where no operation on it is open.
		vals := []h.Value{arg}
		for _, s := range m.rem.kept {
			if o := w.op(s); o != nil && !slices.Contains(vals, o.Label.Arg) {
				vals = append(vals, o.Label.Arg)
			}
		}
		for _, v := range vals {
			if !m.rem.repeated(v) && !m.rem.keptLive(w, &v) || valueOpen(w, v) {
				continue
			}
			if member, err := m.summarizeScope([]h.Value{v}); !member || err != nil {
				return member, err
			}
		}
		return true, nil
	case h.Queue, h.Stack, h.PQueue, h.Lock, h.Exchanger:
		if w.open() > 0 || !m.rem.anyRepeated() && !m.rem.keptLive(w, nil) || held(w) != 0 {
			return true, nil
		}
	default:
		return true, nil
	}
	return m.summarizeScope(nil)
}

// valueOpen reports whether an operation on set value v is open.
func valueOpen(w *window, v h.Value) bool {
	for _, s := range w.pending.Values() {
		if w.op(s).Label.Arg == v {
			return true
		}
	}
	return false
}

// summarizeScope replaces the window's operations on the values of scope
// (all when scope is nil) by the states they may leave, and reports
// whether the window is still a member.
func (m *Monitor) summarizeScope(scope []h.Value) (bool, error) {
	w := m.win
	var arg h.Value
	if scope != nil {
		arg = scope[0]
	}
	// The segment and its serials are built in buffers kept from summary
	// to summary: nothing holds them past replace.
	seg := &m.seg
	if n := w.size(); cap(m.segSerials) < n {
		// Twice the room the window needs now, at once: growing as the
		// window does would allocate at every new largest window.
		m.seg.Ops, m.segSerials = make([]h.Op, 0, 2*n), make([]int, 0, 2*n)
	}
	*seg = h.History{Object: w.obj, Param: w.param, Ops: seg.Ops[:0]}
	serials := m.segSerials[:0]
	for s, o := range w.all() {
		if scope != nil && o.Label.Arg != arg {
			continue
		}
		seg.Ops = append(seg.Ops, *o)
		serials = append(serials, s)
	}
	m.segSerials = serials
	m.seqs = compactBuf(seg, m.seqs)
	labels, member, err := m.states(seg)
	if !member || err != nil || labels == nil {
		return member, err
	}
	return m.replace(serials, scope, labels)
}

// chain is what a compare-and-set register's last quiescent
// point left when it was not summarized: the states the window up to it
// may leave (too many to write as summary operations), and the window's
// last action index then. The next quiescent point searches only the
// operations called after it, from those states: the window's history is
// P·Q with P all returned before Q was called, so the states it may leave
// are those Q leaves from a state P leaves (docs/removal.md).
type chain struct {
	states []regState
	at     int
}

// maxChainStates bounds chain.states; past it the register is searched
// from the window's start again, which rarely succeeds, and the window
// grows until warnGrowing says so.
const maxChainStates = 4096

// summarizeRMW summarizes a compare-and-set register at a
// quiescent point: its states, when at most maxRMWStates, replace the
// window as overlapping writes; more are remembered in m.chain.
func (m *Monitor) summarizeRMW() (bool, error) {
	w := m.win
	seg := &h.History{Object: w.obj, Param: w.param}
	var serials []int
	var starts []regState
	if m.chain != nil {
		starts = m.chain.states
	} else if v, ok := m.kernel.InitialWrite(); ok {
		starts = []regState{{v, true}}
	}
	for s, o := range w.all() {
		serials = append(serials, s)
		if m.chain == nil || o.Call > m.chain.at {
			seg.Ops = append(seg.Ops, *o)
		}
	}
	compact(seg)
	finals, ok := searchStates(seg, starts, maxChainStates)
	m.chain, m.rmwRetry = nil, 0
	switch {
	case !ok:
		// Too long a search, or too many states: kept, and searched
		// again from the window's start once the window has doubled,
		// so that failing searches cost in proportion to the log.
		m.rmwRetry = 2 * w.size()
		return true, nil
	case len(finals) == 0:
		// Not linearizable by the search: SAT on the whole window
		// decides before a violation is reported (the search is the
		// sequential specification, the kernel the definition).
		whole, _ := w.history()
		_, member, err := m.states(whole)
		return member, err
	case len(finals) > maxRMWStates:
		m.chain = &chain{states: finals, at: w.last}
		return true, nil
	}
	labels := make([]h.Label, len(finals))
	for i, f := range finals {
		labels[i] = h.Label{Method: h.Write, Arg: f.val}
	}
	return m.replace(serials, nil, labels)
}

// replace forgets the window's operations serials, which stood for the
// values of scope (all when nil), and adds completed operations with the
// given labels in their place.
func (m *Monitor) replace(serials []int, scope []h.Value, labels []h.Label) (bool, error) {
	w := m.win
	m.summaries++
	if err := m.forget(serials); err != nil {
		return false, err
	}
	if _, ok := m.kernel.InitialWrite(); ok && !m.initGone {
		// The summary writes overwrite the virtual initial write (serial
		// 0 in the encoder), and no read of it is left: it is obsolete
		// (Lemma 5.2). Kept, it would own a helper of every later read's
		// READFROM instance.
		m.initGone = true
		m.rem.initGone = true
		if err := m.chk.remove(w, []int{0}); err != nil {
			return false, err
		}
	}
	m.rem.forgetTags(scope)
	news := w.addCompleted(labels)
	for _, s := range news {
		if err := m.chk.call(w, s); err != nil {
			return false, err
		}
	}
	for _, s := range news {
		// The summary over-approximates nothing the segment could not
		// leave, so a conflict here is a violation of the real history.
		if ok, err := m.chk.ret(w, s); !ok || err != nil {
			return false, err
		}
	}
	for _, s := range news {
		if err := m.forget(m.rem.returned(w, s)); err != nil {
			return false, err
		}
	}
	return true, nil
}

// held counts, over a window where every operation has returned, the
// elements a collection holds (adds less successful removes) or the locks
// held (locks less unlocks): the kernels match every successful remove
// and every unlock to an earlier add or lock (ADDREM, TOTAL), so in any
// linearization the object ends empty, or free, iff the count is 0. An
// exchanger holds nothing between exchanges.
func held(w *window) int {
	n := 0
	for _, o := range w.all() {
		switch l := o.Label; {
		case l.Method == h.Add, l.Method == h.LockM:
			n++
		case l.Method == h.Rem && l.Ret != h.Empty, l.Method == h.Unlock:
			n--
		}
	}
	return n
}

// forget removes operations from the checker and the window.
func (m *Monitor) forget(gone []int) error {
	if len(gone) == 0 {
		return nil
	}
	if err := m.chk.remove(m.win, gone); err != nil {
		return err
	}
	m.win.remove(gone)
	m.removed += len(gone)
	return nil
}

// states decides the complete segment seg exactly and returns the
// labels of the completed operations that stand for the states it may
// leave: member is false when seg is not linearizable; labels is nil
// (and member true) when the solver gave up, and then nothing is
// summarized.
func (m *Monitor) states(seg *h.History) (labels []h.Label, member bool, err error) {
	if seg.Object == h.Register {
		// The search (regsearch.go) answers for the segments a summary
		// usually sees; SAT decides where it gives up, and confirms every
		// violation it finds.
		var starts []regState
		if v, ok := m.kernel.InitialWrite(); ok {
			starts = []regState{{v, true}}
		}
		if finals, ok := searchStates(seg, starts, 0); ok && len(finals) > 0 {
			labels = []h.Label{}
			for _, f := range finals {
				if f.has {
					labels = append(labels, h.Label{Method: h.Write, Arg: f.val})
				}
			}
			return labels, true, nil
		}
	}
	if (seg.Object == h.Queue || seg.Object == h.Stack) && (m.hk == nil || !m.hk.satOnly) && m.coll.Linearizable(seg) {
		// A linearization found (internal/forget): the one state left is
		// the empty collection, as below.
		return []h.Label{}, true, nil
	}
	s, err := sat.New(m.opt.Solver)
	if err != nil {
		return nil, false, err
	}
	e := encodeWhole(m.kernel, seg, s)
	switch s.Solve(m.expired) {
	case sat.Unsat:
		return nil, false, nil
	case sat.Unknown:
		if m.expired() {
			return nil, false, errStopped
		}
		return nil, true, nil
	}
	labels = []h.Label{}
	switch seg.Object {
	case h.CASRegister, h.StringRegister:
		// Called only to confirm a violation the search found, which
		// the solver did not: nothing is summarized.
		return nil, true, nil
	case h.Queue, h.Stack, h.PQueue, h.Lock, h.Exchanger:
		// summarize calls only when nothing is held: the one state left.
		return labels, true, nil
	case h.Set:
		// The segment is linearizable from the empty set, and each
		// add ⇒ true starts a presence interval that a remove ⇒ true ends
		// (docs/theories.md, Sets): the value is present at the end iff
		// one interval is left open.
		open := 0
		for i := range seg.Ops {
			switch l := seg.Ops[i].Label; {
			case l.Method == h.Add && l.Ret == h.True:
				open++
			case l.Method == h.Rem && l.Ret == h.True:
				open--
			}
		}
		if open == 1 {
			labels = append(labels, h.Label{Method: h.Add, Arg: seg.Ops[0].Label.Arg, Ret: h.True})
		}
		return labels, true, nil
	}
	// Register: the value it holds is the last write's (the initial write
	// included). Write w can be last iff the encoding is satisfiable with
	// b(w', w) for every other write w'.
	ops := e.Ops()
	var vals []h.Value
	for _, x := range ops {
		if x.Label.Method != h.Write || slices.Contains(vals, x.Label.Arg) {
			continue
		}
		var assume []z.Lit
		possible := true
		for _, y := range ops {
			if y == x || y.Label.Method != h.Write {
				continue
			}
			l, val := e.BLit(y.Serial, x.Serial)
			if l == z.LitNull {
				if !val {
					possible = false
					break
				}
				continue
			}
			assume = append(assume, l)
		}
		if !possible {
			continue
		}
		switch s.Solve(m.expired, assume...) {
		case sat.Sat:
			vals = append(vals, x.Label.Arg)
		case sat.Unknown:
			if m.expired() {
				return nil, false, errStopped
			}
			return nil, true, nil
		}
	}
	slices.Sort(vals)
	for _, v := range vals {
		labels = append(labels, h.Label{Method: h.Write, Arg: v})
	}
	return labels, true, nil
}

// warnGrowing says once, on Options.Warn (standard error by default), that
// -r cannot keep this window bounded, and why.
func (m *Monitor) warnGrowing() {
	m.warned = true
	out := m.opt.Warn
	if out == nil {
		out = os.Stderr
	}
	var why string
	switch obj := m.win.obj; {
	case obj == h.Register && m.win.open() > 0:
		why = "values repeat, and a register is summarized only at a point where no operation is open; none came yet"
	case obj == h.Set && m.rem.repeats > 0:
		why = "values repeat, and a set value is summarized only at a point where no operation on it is open; some value has had one open throughout"
	case m.rem.keptLive(m.win, nil) && 2*len(m.rem.kept) > m.win.size():
		why = "operations that only observed the state (reads, contains, remove ⇒ empty) overlapped state changes, so forgetting them would lose the order they impose, and no quiescent point came to summarize them"
	case obj == h.StringRegister:
		why = "values repeat, so no match is unique, and a string register's writes are not summarized"
	case obj == h.CASRegister && m.win.open() > 0:
		why = "values repeat, and this register is summarized only at a point where no operation is open; none came yet"
	case obj == h.CASRegister:
		why = fmt.Sprintf("values repeat, and at the quiescent points since the last summary the register could hold more than %d states (or the search for them gave up), too many to summarize", maxRMWStates)
	case obj == h.Register || obj == h.Set:
		why = "a pending operation overlaps the operations that could be forgotten"
	case m.rem.repeats > 0:
		why = fmt.Sprintf("%d tags repeat, and -r forgets operations of a %s only where matching is unique", m.rem.repeats, obj)
	default:
		why = "a pending operation overlaps the operations that could be forgotten"
	}
	fmt.Fprintf(out, "satmon: warning: -r cannot bound this log's window (%d operations and growing): %s; see docs/removal.md\n", m.win.size(), why)
}
