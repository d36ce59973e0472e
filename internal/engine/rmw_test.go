package engine

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/seqmodel"
	"github.com/satmon/satmon/internal/testhist"
)

// rmwHistory draws a small history of the compare-and-set or string
// register: from the generator (values repeating, linearizable or
// mutated) or random labels (garbageHistory), and for the string register
// now and then random strings for gets built from the appended tokens.
func rmwHistory(rng *rand.Rand, obj h.Object, maxOps int) *h.History {
	n := 1 + rng.IntN(maxOps)
	if rng.IntN(3) > 0 {
		cfg := gen.Config{Object: obj, Ops: n, Concurrency: 1 + rng.IntN(4), Seed: rng.Int64(),
			Mutate: rng.IntN(3), Values: rng.IntN(4)}
		cfg.Pending = rng.IntN(min(cfg.Concurrency, n) + 1)
		if hist, err := gen.History(cfg); err == nil {
			return hist
		}
	}
	hist := testhist.GarbageHistory(rng, obj, n)
	if obj == h.StringRegister {
		var toks []h.Value
		for _, o := range hist.Ops {
			if o.Label.Method != h.Read {
				toks = append(toks, o.Label.Arg)
			}
		}
		for i := range hist.Ops {
			l := &hist.Ops[i].Label
			if l.Method == h.Read && !l.Pending && len(toks) > 0 && rng.IntN(2) == 0 {
				var b strings.Builder
				for k := rng.IntN(4); k >= 0; k-- {
					b.WriteString(string(toks[rng.IntN(len(toks))]))
				}
				l.Ret = h.Value(b.String())
			}
		}
	}
	return hist
}

// uniqueParse reports whether no append argument of hist occurs twice in
// any get's result: the condition under which the string register's
// kernel is exact (docs/theories.md).
func uniqueParse(hist *h.History) bool {
	for _, g := range hist.Ops {
		if g.Label.Method != h.Read || g.Label.Pending {
			continue
		}
		for _, a := range hist.Ops {
			if a.Label.Method != h.Append {
				continue
			}
			arg := string(a.Label.Arg)
			if arg == "" {
				return false
			}
			if i := strings.Index(string(g.Label.Ret), arg); i >= 0 && strings.Contains(string(g.Label.Ret)[i+1:], arg) {
				return false
			}
		}
	}
	return true
}

// The compare-and-set register's kernel, evaluated by ENUMERATE -c, is
// exact: it agrees with the sequential model on random histories where
// values repeat. The string register's kernel agrees whenever no append
// argument occurs twice in a get's result, and otherwise never rejects a
// linearizable history; the test reports how often it admits a
// non-linearizable one there.
func TestRMWKernelsAgreeWithSequentialModels(t *testing.T) {
	t.Parallel()
	for _, obj := range []h.Object{h.CASRegister, h.StringRegister} {
		t.Run(obj.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(16, uint64(obj)))
			n, lin, ambiguous, missed := scale(800), 0, 0, 0
			for i := 0; i < n; i++ {
				hist := rmwHistory(rng, obj, 6)
				got, err := enumerateMember(mustKernel(t, hist), hist, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := seqmodel.Linearizable(hist)
				if want {
					lin++
				}
				exact := obj == h.CASRegister || uniqueParse(hist)
				if !exact {
					ambiguous++
				}
				switch {
				case got == want:
				case want || exact:
					t.Fatalf("history %d: theory says member=%v, sequential model says %v\n%v", i, got, want, hist)
				default:
					missed++
				}
			}
			t.Logf("%d histories, %d linearizable; %d with an ambiguous parse, of which %d violations the kernel admits", n, lin, ambiguous, missed)
			if lin == 0 || lin == n {
				t.Fatalf("the draw is one-sided: %d of %d linearizable", lin, n)
			}
		})
	}
}

// SATURATE and SYMBOLIC (with and without -r) never report a violation
// that ENUMERATE -c refutes, on the step where they report it; the test
// reports what fraction of the violations each one finds.
func TestRMWNoFalseViolation(t *testing.T) {
	t.Parallel()
	variants := []Options{
		{Algorithm: Saturate}, {Algorithm: Saturate, RemoveObsolete: true},
		{Algorithm: Symbolic}, {Algorithm: Symbolic, Incremental: true},
		{Algorithm: Symbolic, Incremental: true, RemoveObsolete: true},
	}
	for _, obj := range []h.Object{h.CASRegister, h.StringRegister} {
		t.Run(obj.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(17, uint64(obj)))
			n, bad := scale(300), 0
			found := make([]int, len(variants))
			for i := 0; i < n; i++ {
				hist := rmwHistory(rng, obj, 6)
				k := mustKernel(t, hist)
				member, err := enumerateMember(k, hist, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !member {
					bad++
				}
				for j, opt := range variants {
					r := check(hist, opt)
					if r.Verdict != Violation {
						if opt.Algorithm == Symbolic && !opt.RemoveObsolete && r.Verdict == OK && !member {
							t.Fatalf("history %d: %s says ok, ENUMERATE -c says violation\n%v", i, opt.Name(), hist)
						}
						continue
					}
					found[j]++
					prefix := hist.Prefix(*r.ViolationStep + 1)
					if ok, err := enumerateMember(k, prefix, nil); err != nil || ok {
						t.Fatalf("history %d: %s reports a violation at step %d that ENUMERATE -c refutes\n%v", i, opt.Name(), *r.ViolationStep, hist)
					}
				}
			}
			for j, opt := range variants {
				t.Logf("%s: %d of %d violations found", opt.Name(), found[j], bad)
			}
		})
	}
}

// Hand-written cases that pin the kernels' reading of the registers: the
// absent initial value, cas on both sides of the matching, the empty
// string, and the one admission the string kernel makes on an ambiguous
// parse (docs/theories.md).
func TestRMWCases(t *testing.T) {
	cases := []struct {
		name, log string
		member    bool // ENUMERATE -c's verdict
		model     bool // the sequential model's
	}{
		{"read nil first", "# @object cas-register\n[1] call read\n[1] return nil\n[2] call write(1)\n[2] return\n", true, true},
		{"read nil after write", "# @object cas-register\n[2] call write(1)\n[2] return\n[1] call read\n[1] return nil\n", false, false},
		{"cas from absent", "# @object cas-register\n[1] call cas(nil, 3)\n[1] return ok\n[2] call read\n[2] return 3\n", true, true},
		{"cas fails on its value", "# @object cas-register\n[1] call write(2)\n[1] return\n[2] call cas(2, 3)\n[2] return fail\n", false, false},
		{"cas reads and writes at one point", "# @object cas-register\n[1] call write(2)\n[1] return\n[2] call cas(2, 3)\n[3] call cas(2, 4)\n[2] return ok\n[3] return ok\n", false, false},
		{"repeated values", "# @object cas-register\n[1] call write(1)\n[2] call write(1)\n[1] return\n[3] call cas(1, 2)\n[3] return ok\n[4] call read\n[4] return 1\n[2] return\n", true, true},
		{"initial value", "# @object cas-register 0\n[1] call cas(0, 1)\n[1] return ok\n", true, true},
		{"empty get", "# @object string-register\n[1] call get\n[1] return\n[2] call append(a)\n[2] return\n[3] call get\n[3] return a\n", true, true},
		{"append order", "# @object string-register\n[1] call append(a)\n[1] return\n[2] call append(b)\n[2] return\n[3] call get\n[3] return ba\n", false, false},
		{"put resets", "# @object string-register\n[1] call append(a)\n[1] return\n[2] call put(c)\n[2] return\n[3] call append(b)\n[3] return\n[4] call get\n[4] return cb\n", true, true},
		{"missing append", "# @object string-register\n[1] call append(a)\n[1] return\n[2] call append(b)\n[2] return\n[3] call get\n[3] return b\n", false, false},
		{"pending get dropped", "# @object string-register\n[1] call get\n[2] call append(a)\n[2] return\n", true, true},
		{"ambiguous parse admitted", "# @object string-register\n[1] call put(ab)\n[1] return\n[2] call append(ab)\n[2] return\n[3] call get\n[3] return ababab\n", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hist, err := logfmt.ReadHistory(strings.NewReader(c.log), logfmt.Options{Name: c.name})
			if err != nil {
				t.Fatal(err)
			}
			got, err := enumerateMember(mustKernel(t, hist), hist, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.member {
				t.Errorf("ENUMERATE -c says member=%v, want %v", got, c.member)
			}
			if m := seqmodel.Linearizable(hist); m != c.model {
				t.Errorf("sequential model says %v, want %v", m, c.model)
			}
			sym := check(hist, Options{Algorithm: Symbolic})
			if (sym.Verdict == OK) != c.member {
				t.Errorf("SYMBOLIC says %v, ENUMERATE -c member=%v", sym.Verdict, c.member)
			}
		})
	}
}
