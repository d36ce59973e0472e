package engine

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
)

// Hand-made cases of hiddenOnly (frontwret.go), each checked against
// ENUMERATE -c, verdict and step. The first would be reported in
// violation if, at a write's return, the search took no other write
// before it: write(2) must come first, seen by the read that returns 2
// last, and write(1) after it, for the read of 1.
func TestFrontierWriteFirstCases(t *testing.T) {
	t.Parallel()
	logs := []string{
		"# @object register 0\n[o] call write(1)\n[w] call write(2)\n[r] call read\n[o] return\n[w] return\n[r2] call read\n[r2] return 1\n[r] return 2\n",
		// The same, the read of 2 made a read of 1: still linearizable.
		"# @object register 0\n[o] call write(1)\n[w] call write(2)\n[r] call read\n[o] return\n[w] return\n[r2] call read\n[r2] return 1\n[r] return 1\n",
		// write(1) returned before write(2) was called, which
		// returned before the read of 1 began: a violation at that read.
		"# @object register 0\n[o] call write(1)\n[r] call read\n[o] return\n[w] call write(2)\n[w] return\n[r2] call read\n[r2] return 1\n[r] return 2\n",
		// Crashed writes of the state: one of 1 never returns; the
		// read of 1 after write(2) needs it after write(2).
		"# @object register 0\n[c] call write(1)\n[o] call write(1)\n[w] call write(2)\n[r] call read\n[o] return\n[w] return\n[r2] call read\n[r2] return 1\n[r] return 2\n",
		// Two reads of 1 after write(2), one crashed write of 1: the
		// crashed write explains both, after write(2).
		"# @object register 0\n[c] call write(1)\n[o] call write(1)\n[o] return\n[w] call write(2)\n[w] return\n[r1] call read\n[r1] return 1\n[r2] call read\n[r2] return 1\n",
		// … but not a read of 1 on each side of a write(2) that
		// follows the first read: it would take effect twice.
		"# @object register 0\n[c] call write(1)\n[o] call write(1)\n[o] return\n[w] call write(2)\n[w] return\n[r1] call read\n[r1] return 1\n[x] call write(2)\n[x] return\n[r2] call read\n[r2] return 1\n",
		// A compare-and-set between the writes: write(2), cas(2, 3)
		// seen by the read of 3, then write(1), all before write(1)
		// returns. The search must take the compare-and-set from the
		// state write(2) left (writesOnly: not without a state).
		"# @object cas-register 0\n[o] call write(1)\n[w] call write(2)\n[c] call cas(2, 3)\n[r] call read\n[o] return\n[w] return\n[c] return ok\n[r2] call read\n[r2] return 1\n[r] return 3\n",
	}
	for i, log := range logs {
		enumerateCase(t, i, log)
	}
}

// writeHeavyHistory is a generated Jepsen register or compare-and-set
// register history of 10 to 50 operations, 2–6 clients, two or three
// values and many crashed operations (5–25%): writes return while others
// are open, and crashed writes are many, which is where hiddenOnly
// (frontwret.go) acts. One in three has a stale read.
func writeHeavyHistory(t *testing.T, rng *rand.Rand, obj h.Object) (*h.History, gen.JepsenConfig) {
	cfg := gen.JepsenConfig{Ops: 10 + rng.IntN(41), Clients: 2 + rng.IntN(5), Values: 2 + rng.IntN(2),
		Reads: 0.3 + 0.3*rng.Float64(), Info: 0.05 + 0.2*rng.Float64(), Stale: rng.IntN(3) == 0, Seed: rng.Int64()}
	if obj == h.CASRegister {
		cfg.CAS = 0.25
	}
	if cfg.Stale && gen.Jepsen(cfg, io.Discard) != nil {
		cfg.Stale = false // no stale read could be placed
	}
	return jepsenHistory(t, cfg), cfg
}

// hiddenOnly (frontwret.go: at a write's return, no configuration kept
// that explains it only as hidden behind a write taken in that search)
// against Porcupine on generated Jepsen histories with many crashed
// operations: the same verdict, every ok exact, every violation at the
// first violating prefix. Made unsound (keeping fewer), it reports a
// violation on a linearizable history, or one return early.
func TestFrontierHiddenOnlyAgainstPorcupine(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(38, 38))
	n := scale(2000)
	var tl frontierTally
	for i := range n {
		obj := registerObjects[i%2]
		hist, cfg := writeHeavyHistory(t, rng, obj)
		what := fmt.Sprintf("history %d (%+v)", i, cfg)
		tl.agree(t, what, hist, 0)
	}
	tl.bothWays(t)
	t.Logf("%d histories: %d violations, %d linearizable", n, tl.viol, tl.ok)
}
