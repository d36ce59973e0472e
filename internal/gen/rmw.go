package gen

import (
	"math/rand/v2"
	"strconv"

	"github.com/satmon/satmon/internal/history"
)

// casRegister draws runs of the compare-and-set register over a small
// pool of values (Config.Values, 5 when 0), so values repeat as in
// Jepsen's etcd tests. It starts absent.
type casRegister struct {
	values    int
	cur, prev history.Value
	rng       *rand.Rand
}

func (r *casRegister) value() history.Value {
	return history.Value(strconv.Itoa(r.rng.IntN(r.values)))
}

func (r *casRegister) draw(mutate, _, _ bool) (x, y history.Label, pair, mutated bool) {
	switch k := r.rng.IntN(10); {
	case k < 3:
		l := history.Label{Method: history.Write, Arg: r.value()}
		if mutate && l.Arg != r.cur {
			return l, none, false, true // lost write
		}
		r.prev, r.cur = r.cur, l.Arg
		return l, none, false, false
	case k < 7:
		l := history.CASLabel(r.value(), r.value())
		l.Pending = false
		if r.rng.IntN(2) == 0 {
			l.Old = r.cur // often the expected value, so that cas succeeds
		}
		ok := l.Old == r.cur
		if mutate {
			ok = !ok // the wrong outcome
		}
		if ok {
			l.Ret = history.OK
			if !mutate {
				r.prev, r.cur = r.cur, l.Arg
			}
		} else {
			l.Ret = history.Fail
		}
		return l, none, false, mutate
	}
	l := history.Label{Method: history.Read, Ret: r.cur}
	if mutate {
		l.Ret = ghost
		if r.prev != r.cur && r.rng.IntN(3) != 0 {
			l.Ret = r.prev // a stale read
		}
		return l, none, false, true
	}
	return l, none, false, false
}

// stringRegister draws runs of put, append and get. With Config.Values 0
// every put and append carries a fresh token "x<n>y", so a get's string
// splits into tokens one way only (as in Porcupine's key-value tests);
// otherwise tokens come from a pool of that many one-letter strings.
type stringRegister struct {
	values    int
	cur, prev string
	rng       *rand.Rand
	tags      *tags
}

func (r *stringRegister) token() history.Value {
	if r.values > 0 {
		return history.Value(string(rune('a' + r.rng.IntN(r.values))))
	}
	return "x" + r.tags.next() + "y"
}

func (r *stringRegister) draw(mutate, _, _ bool) (x, y history.Label, pair, mutated bool) {
	switch k := r.rng.IntN(10); {
	case k < 2:
		l := history.Label{Method: history.Write, Arg: r.token()}
		if mutate {
			return l, none, false, true // lost put
		}
		r.prev, r.cur = r.cur, string(l.Arg)
		return l, none, false, false
	case k < 6:
		l := history.Label{Method: history.Append, Arg: r.token()}
		if mutate {
			return l, none, false, true // lost append
		}
		r.prev, r.cur = r.cur, r.cur+string(l.Arg)
		return l, none, false, false
	}
	l := history.Label{Method: history.Read, Ret: history.Value(r.cur)}
	if mutate {
		l.Ret = history.Value(r.prev) // a stale get
		if r.prev == r.cur {
			l.Ret += "z"
		}
		return l, none, false, true
	}
	return l, none, false, false
}
