package explain

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/satmon/satmon/internal/engine"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/z"
	"github.com/satmon/satmon/saturate"
)

// Derive puts into words how SATURATE proves a core's sub-history not
// linearizable: the facts unit propagation derives, each with the clause
// that forced it, ending in the clause found false.
//
// It recomputes the derivation on the (small) core rather than recording
// provenance in the streaming encoder: the core's sub-history (see
// FindCore) is replayed through SATURATE with every instance grounded
// eagerly and every variable named, and saturate.Explain's premises are
// read back through the names. The streaming hot path is untouched. Facts
// that real time or the labels decide are constants the encoder folds
// away, so they are not steps; the clause of each step names the
// operations of its instance that still had unknowns.
//
// It returns the derivation's lines, one per step. When SATURATE finds no
// conflict on the core alone (the core was shown by the exact check,
// which SATURATE may not match), it derives on the core with the other
// operations taken as they returned, or else on the whole history, and
// the first line is a note in parentheses saying which. It returns an
// error when neither refutes it, or the history is too long to derive on
// whole.
func Derive(hist *h.History, core []int) ([]string, error) {
	out, err := derive(hist, core)
	if err == nil {
		return out, nil
	}
	// SATURATE is incomplete: the exact core may be beyond it while the
	// whole history was not (SATURATE found the violation). The
	// operations the core's sub-history relaxes are taken as they
	// returned first: that is often enough, and small.
	keep := make([]bool, len(hist.Ops))
	for _, i := range core {
		keep[i] = true
	}
	if _, idx := subHistory(hist, keep); len(idx) > len(core) {
		if out, err2 := derive(hist, idx); err2 == nil {
			return append([]string{"(SATURATE alone cannot refute the core; this is its derivation with the other operations of the core's sub-history taken as they returned)"}, out...), nil
		}
	}
	if len(hist.Ops) > coreMaxOps {
		return nil, fmt.Errorf("%w (and the history is too long to derive on whole)", err)
	}
	all := make([]int, len(hist.Ops))
	for i := range all {
		all[i] = i
	}
	if out, err2 := derive(hist, all); err2 == nil {
		return append([]string{"(SATURATE alone cannot refute the core; this is its derivation on the whole history read)"}, out...), nil
	}
	return nil, err
}

func derive(hist *h.History, core []int) ([]string, error) {
	keep := make([]bool, len(hist.Ops))
	for _, i := range core {
		keep[i] = true
	}
	sub, idx := subHistory(hist, keep)
	uniqueIDs(hist, sub, idx)
	t, err := engine.SaturateTraced(sub, true)
	if err != nil {
		return nil, err
	}
	if !t.Violation {
		return nil, fmt.Errorf("SATURATE alone does not refute the core; the exact check does")
	}
	d := deriver{sub: sub, name: t.Enc.VarName, reason: map[z.Var][]z.Lit{}, origin: t.Origin}
	ex := t.Solver.Explain()
	d.clause = map[z.Var]saturate.ClauseID{}
	for _, r := range ex[1:] {
		if !r.IsFact() {
			d.reason[r.Lits[0].Var()] = r.Lits[1:]
			d.clause[r.Lits[0].Var()] = r.Clause
		}
	}
	var out []string
	// Each fact after its premises: depth first from the conflict's
	// literals. Tseitin helpers are not steps: a premise that is one
	// stands for the helper's own premises.
	done := map[z.Var]bool{}
	var visit func(v z.Var, depth int)
	visit = func(v z.Var, depth int) {
		if done[v] || depth > 10000 {
			return
		}
		done[v] = true
		prem, ok := d.reason[v]
		for _, p := range prem {
			visit(p.Var(), depth+1)
		}
		lit := z.LitNull
		for _, r := range ex[1:] {
			if r.Lits[0].Var() == v {
				lit = r.Lits[0]
			}
		}
		if lit == z.LitNull || d.aux(lit) {
			return
		}
		if !ok {
			out = append(out, fmt.Sprintf("%s: given", d.fact(lit)))
			return
		}
		out = append(out, d.fact(lit)+d.because(prem)+d.rule(v))
	}
	for _, l := range ex[0].Lits {
		visit(l.Var(), 0)
	}
	cl := ex[0].Lits
	out = append(out, fmt.Sprintf("contradiction: %s%s", d.clash(cl), d.ruleOf(ex[0].Clause)))
	for i := range out {
		out[i] = fmt.Sprintf("%d. %s", i+1, out[i])
	}
	return out, nil
}

type deriver struct {
	sub    *h.History
	name   func(z.Var) string
	reason map[z.Var][]z.Lit // implied variable → its premises (false literals)
	clause map[z.Var]saturate.ClauseID
	origin map[saturate.ClauseID]engine.Origin
}

// rule names the axiom instance that forced v.
func (d deriver) rule(v z.Var) string { return d.ruleOf(d.clause[v]) }

func (d deriver) ruleOf(id saturate.ClauseID) string {
	o, ok := d.origin[id]
	if !ok {
		return "; by the encoding's side conditions on matches and return values"
	}
	var ids []string
	for _, s := range o.Serials {
		ids = append(ids, d.id(strconv.Itoa(s)))
	}
	// The real-time order among the instance's operations was folded
	// into constants: say it, as it is half of the reason.
	var rt []string
	for _, a := range o.Serials {
		for _, b := range o.Serials {
			if a >= 1 && b >= 1 && a <= len(d.sub.Ops) && b <= len(d.sub.Ops) && h.Before(&d.sub.Ops[a-1], &d.sub.Ops[b-1]) {
				rt = append(rt, fmt.Sprintf("%s returned before %s was called", d.id(strconv.Itoa(a)), d.id(strconv.Itoa(b))))
			}
		}
	}
	why := ""
	if len(rt) > 0 {
		why = " (real time: " + strings.Join(rt, ", ") + ")"
	}
	return fmt.Sprintf("; by %s over %s%s", o.Axiom, strings.Join(ids, ", "), why)
}

func (d deriver) aux(l z.Lit) bool {
	n := d.name(l.Var())
	return !atomName.MatchString(n) || strings.Contains(n, " ")
}

// facts lists the facts that literals, all false, stand for, with helpers
// replaced by their premises.
func (d deriver) facts(lits []z.Lit, depth int) []string {
	var fs []string
	for _, p := range lits {
		if d.aux(p) && depth < 8 {
			fs = append(fs, d.facts(d.reason[p.Var()], depth+1)...)
			continue
		}
		fs = append(fs, d.fact(p.Not()))
	}
	slices.Sort(fs)
	return slices.Compact(fs)
}

var atomName = regexp.MustCompile(`^(b|match|used|ret)\(o(\d+)(?:,o(\d+))?\)(?:=(.*))?$`)

// op names an operation of the sub-history by its log id.
func (d deriver) op(serial string) string {
	s, _ := strconv.Atoi(serial)
	if s == 0 {
		return "the initial write"
	}
	if s >= 1 && s <= len(d.sub.Ops) {
		o := &d.sub.Ops[s-1]
		return fmt.Sprintf("[%s] %s", o.ID, o.Label.String())
	}
	return "o" + serial
}

func (d deriver) id(serial string) string {
	s, _ := strconv.Atoi(serial)
	if s == 0 {
		return "the initial write"
	}
	if s >= 1 && s <= len(d.sub.Ops) {
		return "[" + d.sub.Ops[s-1].ID + "]"
	}
	return "o" + serial
}

// fact says what literal l asserts.
func (d deriver) fact(l z.Lit) string {
	name := d.name(l.Var())
	pos := l.IsPos()
	m := atomName.FindStringSubmatch(name)
	if m == nil {
		if pos {
			return "helper " + name + " holds"
		}
		return "helper " + name + " fails"
	}
	x, y := m[2], m[3]
	switch m[1] {
	case "b":
		if pos {
			return fmt.Sprintf("%s before %s", d.id(x), d.id(y))
		}
		return fmt.Sprintf("%s before %s", d.id(y), d.id(x))
	case "match":
		if pos {
			return fmt.Sprintf("%s is matched with %s", d.id(y), d.op(x))
		}
		return fmt.Sprintf("%s is not matched with %s", d.id(y), d.id(x))
	case "used":
		if pos {
			return fmt.Sprintf("%s takes effect", d.op(x))
		}
		return fmt.Sprintf("%s is dropped", d.op(x))
	case "ret":
		if v, ok := strings.CutSuffix(m[4], " ladder"); ok {
			// The encoder's "at most one return value" counter: it
			// holds when one of the values up to v is returned.
			if pos {
				return fmt.Sprintf("pending %s returns one of the values it may return up to %s", d.id(x), v)
			}
			return fmt.Sprintf("pending %s returns none of the values it may return up to %s", d.id(x), v)
		}
		if pos {
			return fmt.Sprintf("pending %s returns %s", d.id(x), m[4])
		}
		return fmt.Sprintf("pending %s does not return %s", d.id(x), m[4])
	}
	return name
}

// because names the premises of a unit clause: its other literals, all
// false, so their negations are the facts used.
func (d deriver) because(premises []z.Lit) string {
	fs := d.facts(premises, 0)
	if len(fs) == 0 {
		return ""
	}
	return ", since " + strings.Join(fs, " and ")
}

// clash says why the conflicting clause is false: all its literals are.
func (d deriver) clash(lits []z.Lit) string {
	fs := d.facts(lits, 0)
	if len(fs) == 0 {
		return "labels and real time alone break an axiom instance"
	}
	return strings.Join(fs, ", ") + " cannot all hold"
}

// uniqueIDs renames the operations of sub (idx maps them to hist's) whose
// id in hist another one of sub shares (a Jepsen or Porcupine process
// calls one operation after another under its number), so that each step
// of a derivation names one operation: "2@110" is operation 2 called at
// line 110 (or, the line unknown, the operation's place in sub).
func uniqueIDs(hist, sub *h.History, idx []int) {
	n := map[string]int{}
	for _, i := range idx {
		n[hist.Ops[i].ID]++
	}
	for j, i := range idx {
		if id := hist.Ops[i].ID; n[id] > 1 {
			at := sub.Ops[j].Line
			if at == 0 {
				at = j + 1
			}
			sub.Ops[j].ID = fmt.Sprintf("%s@%d", id, at)
		}
	}
}
