package testhist

import (
	"math/rand/v2"
	"strconv"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
)

// RandomHistory draws a small history of obj. Half come from the
// generator (linearizable, or mutated), half are random labels with
// random intervals over a tiny value pool — mostly violations, and the
// kind of odd input a buggy implementation produces.
func RandomHistory(rng *rand.Rand, obj h.Object, maxOps int) *h.History {
	if obj == h.CASRegister || obj == h.StringRegister {
		// Their values repeat, so every read has several candidate
		// writes: ENUMERATE's matchings grow as candidates^ops.
		maxOps = min(maxOps, 6)
	}
	n := 1 + rng.IntN(maxOps)
	if rng.IntN(2) == 0 {
		cfg := gen.Config{Object: obj, Ops: n, Concurrency: 1 + rng.IntN(4), Seed: rng.Int64(),
			Mutate: rng.IntN(3), Capacity: rng.IntN(4)}
		if obj == h.Semaphore {
			cfg.Capacity = 1 + rng.IntN(2)
		}
		cfg.Pending = rng.IntN(min(cfg.Concurrency, n) + 1)
		if obj == h.Register || obj == h.Set {
			cfg.Values = rng.IntN(4)
		}
		if hist, err := gen.History(cfg); err == nil {
			return hist
		}
	}
	return GarbageHistory(rng, obj, n)
}

func GarbageHistory(rng *rand.Rand, obj h.Object, n int) *h.History {
	hist := &h.History{Object: obj}
	switch obj {
	case h.Semaphore:
		hist.Param = strconv.Itoa(1 + rng.IntN(2))
	case h.Register:
		if rng.IntN(2) == 0 {
			hist.Param = "0"
		}
	}
	sigs := h.Signatures(obj)
	vals := []h.Value{"0", "1", "2"}
	pick := func() h.Value { return vals[rng.IntN(len(vals))] }
	type ev struct {
		t    float64
		call bool
		op   int
	}
	var evs []ev
	for i := 0; i < n; i++ {
		s := sigs[rng.IntN(len(sigs))]
		l := h.Label{Method: s.Method}
		if s.MaxArgs > 0 && (s.MinArgs > 0 || rng.IntN(2) == 0) {
			l.Arg = pick()
		}
		if obj == h.PQueue && l.Method == h.Add {
			l.Prio = int64(rng.IntN(3))
		}
		if l.Method == h.CAS {
			l.Old = pick()
		}
		switch s.Ret {
		case h.RetBool:
			l.Ret = []h.Value{h.True, h.False}[rng.IntN(2)]
		case h.RetStatus:
			l.Ret = []h.Value{h.OK, h.Fail}[rng.IntN(2)]
		case h.RetValue:
			special := map[h.Object]h.Value{h.Exchanger: h.Null, h.Register: "", h.CASRegister: h.Nil}[obj]
			if special == "" && obj != h.Register {
				special = h.Empty
			}
			if special != "" && rng.IntN(4) == 0 {
				l.Ret = special
			} else {
				l.Ret = pick()
			}
		case h.RetOptional:
			if rng.IntN(3) > 0 {
				l.Ret = pick()
			}
		}
		start := rng.Float64() * float64(n)
		hist.Ops = append(hist.Ops, h.Op{ID: strconv.Itoa(i + 1), Label: l})
		evs = append(evs, ev{start, true, i})
		if rng.IntN(6) > 0 {
			evs = append(evs, ev{start + 0.1 + rng.Float64()*2, false, i})
		}
	}
	// Sort events by time (calls first at ties) and number them.
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evs[j].t < evs[j-1].t; j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
	for i := range hist.Ops {
		hist.Ops[i].Return = -1
	}
	for seq, e := range evs {
		if e.call {
			hist.Ops[e.op].Call = seq
		} else {
			hist.Ops[e.op].Return = seq
		}
	}
	for i := range hist.Ops {
		if hist.Ops[i].Pending() {
			hist.Ops[i].Label.Pending, hist.Ops[i].Label.Ret = true, h.Void
		}
	}
	// Ops must be listed in call order.
	ops := hist.Ops
	for i := 1; i < len(ops); i++ {
		for j := i; j > 0 && ops[j].Call < ops[j-1].Call; j-- {
			ops[j], ops[j-1] = ops[j-1], ops[j]
		}
	}
	return hist
}

// Step prints a violation step for a test's message: "-" for none.
func Step(p *int) any {
	if p == nil {
		return "-"
	}
	return *p
}
