package gen

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/satmon/satmon/internal/testutil"
)

// jepIn is an operation of a generated Jepsen log as Porcupine sees it.
type jepIn struct {
	f        string
	arg, old int
}

// jepOut is its outcome; unknown for a crashed (:info) operation.
type jepOut struct {
	unknown bool
	ok      bool // a cas succeeded
	val     int  // the value read
}

// casModel is an atomic compare-and-set register starting absent (-1),
// as Porcupine's etcd test models it: a crashed operation's outcome is
// unknown, and its effect, placed anywhere after its call (Porcupine
// returns it at the end), is the atomic one.
var casModel = porcupine.Model{
	Init: func() any { return -1 },
	Step: func(state, input, output any) (bool, any) {
		s, in, out := state.(int), input.(jepIn), output.(jepOut)
		switch in.f {
		case "read":
			return out.unknown || out.val == s, s
		case "write":
			return true, in.arg
		default:
			if s == in.old {
				return out.unknown || out.ok, in.arg
			}
			return out.unknown || !out.ok, s
		}
	},
	Equal: func(a, b any) bool { return a == b },
}

// parseJepsen reads a generated log into Porcupine's operations, failing
// the test on any line it does not expect.
func parseJepsen(t *testing.T, log string) []porcupine.Operation {
	t.Helper()
	num := func(s string) int {
		if s == "nil" {
			return -1
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("bad value %q", s)
		}
		return n
	}
	var ops []porcupine.Operation
	openAt := map[int]int{} // process → index in ops
	for i, l := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		rest, ok := strings.CutPrefix(l, "INFO  jepsen.util - ")
		fs := strings.Split(rest, "\t")
		if !ok || len(fs) != 4 {
			t.Fatalf("line %d: %q", i+1, l)
		}
		p, _ := strconv.Atoi(fs[0])
		typ, f, val := fs[1], strings.TrimPrefix(fs[2], ":"), fs[3]
		if typ == ":invoke" {
			if _, busy := openAt[p]; busy {
				t.Fatalf("line %d: process %d invokes with an operation open", i+1, p)
			}
			in := jepIn{f: f}
			switch f {
			case "write":
				in.arg = num(val)
			case "cas":
				var a, b string
				fmt.Sscanf(strings.Trim(val, "[]"), "%s %s", &a, &b)
				in.old, in.arg = num(a), num(b)
			}
			openAt[p] = len(ops)
			ops = append(ops, porcupine.Operation{ClientId: p, Input: in, Call: int64(i), Return: math.MaxInt64, Output: jepOut{unknown: true}})
			continue
		}
		j, ok := openAt[p]
		if !ok {
			t.Fatalf("line %d: completion without invoke", i+1)
		}
		delete(openAt, p)
		switch typ {
		case ":info":
			continue // stays open for ever
		case ":ok":
			out := jepOut{ok: true}
			if f == "read" {
				out.val = num(val)
			}
			ops[j].Output = out
		case ":fail":
			if f != "cas" {
				t.Fatalf("line %d: :fail on %s", i+1, f)
			}
			ops[j].Output = jepOut{}
		default:
			t.Fatalf("line %d: type %s", i+1, typ)
		}
		ops[j].Return = int64(i)
	}
	if len(openAt) != 0 {
		t.Fatalf("%d operations neither completed nor crashed", len(openAt))
	}
	return ops
}

// TestJepsenLinearizable checks, with Porcupine, that generated register
// and compare-and-set register histories are linearizable without a
// stale read and not linearizable with one.
func TestJepsenLinearizable(t *testing.T) {
	t.Parallel()
	n := testutil.Scale(40)
	staleRuns := 0
	for i := 0; i < n; i++ {
		cfg := JepsenConfig{Ops: 30 + i*3, Clients: 2 + i%7, Values: 2 + i%5, Reads: 0.5, Info: float64(i%3) * 0.05, Seed: int64(i)}
		if i%2 == 1 {
			cfg.CAS = 0.3
		}
		for _, stale := range []bool{false, true} {
			cfg.Stale = stale
			var buf bytes.Buffer
			if err := Jepsen(cfg, &buf); err != nil {
				if stale && err == ErrNoStale {
					continue
				}
				t.Fatal(err)
			}
			if stale {
				staleRuns++
			}
			ops := parseJepsen(t, buf.String())
			if len(ops) != cfg.Ops {
				t.Fatalf("%+v: %d operations", cfg, len(ops))
			}
			if got := porcupine.CheckOperations(casModel, ops); got == stale {
				t.Fatalf("%+v: Porcupine says linearizable %v\n%s", cfg, got, buf.String())
			}
		}
	}
	if staleRuns < n/2 {
		t.Errorf("a stale read was placed in %d of %d histories", staleRuns, n)
	}
}

// TestJepsenShape checks the shares and the crashed processes' new ids.
func TestJepsenShape(t *testing.T) {
	t.Parallel()
	cfg := JepsenConfig{Ops: 4000, Clients: 8, Values: 10, Reads: 0.5, CAS: 0.2, Info: 0.05, Seed: 1}
	var buf bytes.Buffer
	if err := Jepsen(cfg, &buf); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	procs := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		fs := strings.Split(strings.TrimPrefix(l, "INFO  jepsen.util - "), "\t")
		count[fs[1]+fs[2]]++
		procs[fs[0]] = true
	}
	reads, cas := count[":invoke:read"], count[":invoke:cas"]
	if reads < 1800 || reads > 2200 || cas < 650 || cas > 950 {
		t.Errorf("reads %d, cas %d of 4000", reads, cas)
	}
	info := count[":info:read"] + count[":info:write"] + count[":info:cas"]
	if info < 120 || info > 280 {
		t.Errorf("%d crashes of 4000", info)
	}
	if len(procs) != cfg.Clients+info {
		t.Errorf("%d process ids for %d clients and %d crashes", len(procs), cfg.Clients, info)
	}
	if cfg.Validate() != nil || (JepsenConfig{Ops: 1, Clients: 0, Values: 1}).Validate() == nil {
		t.Error("Validate")
	}
}
