package engine

import (
	"io"

	"github.com/satmon/satmon/encode"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/saturate"
	"github.com/satmon/satmon/theory"
)

// CoreOp is one operation of a violation's core, as Result reports it.
type CoreOp struct {
	ID         string `json:"id"`
	Op         string `json:"op"`                    // the label, e.g. "pop ⇒ 2"
	CallLine   int    `json:"call_line,omitempty"`   // 0 when unknown
	ReturnLine int    `json:"return_line,omitempty"` // 0 when pending or unknown
}

// Witness is a linearization that shows a history linearizable: the
// operations in the order the atomic object performs them, pending
// operations completed with the return chosen for them, and the pending
// operations left out.
type Witness struct {
	Order   []WitnessOp `json:"order"`
	Dropped []string    `json:"dropped,omitempty"` // ids of pending operations left out
}

// WitnessOp is one operation of a witness.
type WitnessOp struct {
	ID        string `json:"id"`
	Op        string `json:"op"`                  // the label, with the return chosen for a completed pending operation
	Completed bool   `json:"completed,omitempty"` // pending in the log, completed here
	// Partner is the exchanger's: the operation this one swapped with
	// (the exchanger is not sequential; its witness is the real-time
	// order and a pairing).
	Partner string `json:"partner,omitempty"`

	Index int     `json:"-"` // in the history's Ops
	Label h.Label `json:"-"` // Op as a label (Ret filled for completed ones)
}

// ActionTee records the actions a check reads.
type ActionTee struct {
	B        *h.Builder
	RetLines []int
	N        int // actions added, for callers that number them
}

// Add records one action.
func (t *ActionTee) Add(obj h.Object, param string, a h.Action) {
	if t.B == nil {
		t.B = h.NewBuilder(obj, param)
	}
	i, err := t.B.Add(a)
	if err != nil {
		return // the monitor reports the same error
	}
	for len(t.RetLines) <= i {
		t.RetLines = append(t.RetLines, 0)
	}
	if a.Kind == h.Return {
		t.RetLines[i] = a.Line
	}
}

// Origin is the axiom instance a clause came from: the axiom's name and
// the serials of the operations it was instantiated with.
type Origin struct {
	Axiom   string
	Serials []int
}

// Traced is one SATURATE run over a whole history with named variables,
// kept for explanations: Solver.Explain gives the conflict's resolution,
// Enc.VarName names its variables, and Origin (when asked for) names the
// axiom instance behind each clause.
type Traced struct {
	Violation bool
	Solver    *saturate.Solver
	Enc       *encode.Encoder
	Origin    map[saturate.ClauseID]Origin
}

// originSink is satSink noting each clause's origin.
type originSink struct {
	satSink
	enc    *encode.Encoder
	origin map[saturate.ClauseID]Origin
}

func (k *originSink) AddClause(lits []encode.Lit) {
	id := k.s.AddClause(lits...)
	if a, serials := k.enc.Origin(); a != nil {
		k.origin[id] = Origin{Axiom: a.Name, Serials: serials}
	}
}

// SaturateTraced runs SATURATE over hist with named variables until the
// first violation. With origins, the monitor's checker is replaced by one
// that grounds every instance eagerly and whose sink notes the axiom
// instance of every clause it passes on (encode.Encoder.Origin), for
// derivations; without, it is the monitor's own SATURATE, for cores.
func SaturateTraced(hist *h.History, origins bool) (*Traced, error) {
	m, err := New(hist.Object, hist.Param, Options{Algorithm: Saturate})
	if err != nil {
		return nil, err
	}
	t := &Traced{}
	var sc *satChecker
	if origins {
		sink := &originSink{satSink: satSink{s: saturate.New()}, origin: map[saturate.ClauseID]Origin{}}
		enc := encode.New(m.kernel, sink, encode.Config{EagerMatching: true})
		enc.Names = true
		sink.enc = enc
		enc.Begin()
		sc = &satChecker{sink: &sink.satSink, enc: enc}
		m.chk = sc
		t.Origin = sink.origin
	} else {
		sc = m.chk.(*satChecker)
		sc.enc.Names = true
	}
	for _, a := range Actions(hist) {
		if _, err := m.Step(a); err != nil {
			if origins {
				return nil, err
			}
			break
		}
		if m.Done() {
			break
		}
	}
	t.Violation = m.Result().Verdict == Violation
	t.Solver, t.Enc = sc.sink.s, sc.enc
	return t, nil
}

// CheckLogTee is CheckLogFunc telling tee of each action it reads, so
// that an explanation can keep the history.
func CheckLogTee(r io.Reader, lo logfmt.Options, opt Options, tee *ActionTee, onViolation func(Result)) (Result, error) {
	return checkLog(r, lo, opt, tee, onViolation)
}

// EncodeWhole grounds the whole of hist into s, as SYMBOLIC's check
// from scratch does.
func EncodeWhole(k *theory.Kernel, hist *h.History, s encode.Sink) *encode.Encoder {
	return encodeWhole(k, hist, s)
}
