package explain

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/testutil"
)

// A stack that pops an element out of order, its push hundreds of
// operations back (satmon gen --object stack --ops 10000 --concurrency 4
// --mutate 1 --seed S, S = 2, 4, 6: no point to cut the history at near
// the violation, and the last 512 operations do not reach the push), gets
// a core of at most 10 operations, 1-minimal by ENUMERATE -c, and a
// derivation in the words of docs/explain.md. The fast tier checks seed 6;
// the long tier others, stacks and queues.
func TestCoreFarElement(t *testing.T) {
	t.Parallel()
	type tc struct {
		obj  h.Object
		seed int64
	}
	cases := []tc{{h.Stack, 6}, {h.Stack, 2}, {h.Stack, 4}, {h.Stack, 8}, {h.Stack, 9}, {h.Queue, 7}, {h.Queue, 9}, {h.Stack, 7}, {h.Stack, 10}, {h.Queue, 3}}
	cases = cases[:min(len(cases), testutil.Scale(10))]
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%d", c.obj, c.seed), func(t *testing.T) {
			t.Parallel()
			cfg := gen.Config{Object: c.obj, Ops: 10000, Concurrency: 4, Mutate: 1, Seed: c.seed}
			res, x, err := CheckLogExplain(bytes.NewReader(genLog(t, cfg)), logfmt.Options{Name: "gen.log"}, engine.DefaultOptions(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != engine.Violation {
				t.Fatalf("verdict %s, want a violation", res.Verdict)
			}
			if len(x.Core) == 0 || len(x.Core) > 10 {
				t.Fatalf("core of %d operations, want 1 to 10 (%s)", len(x.Core), x.Note)
			}
			verifyCore(t, fmt.Sprintf("%s seed %d", c.obj, c.seed), x, nil)
			deriv, err := Derive(x.History, x.Core)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range deriv {
				if strings.Contains(l, "ladder") || strings.Contains(l, "helper") {
					t.Errorf("derivation step in internal words: %s", l)
				}
			}
			if len(deriv) > 20 {
				t.Errorf("derivation of %d steps for a core of %d", len(deriv), len(x.Core))
			}
		})
	}
}

// The starts FindCore takes for a long queue or stack (the span back to
// the add of a value named near the operation given as the violation's)
// must not make it claim a core of a linearizable history: for every
// operation of long linearizable logs taken as the violation's, it finds
// none.
func TestCoreFarElementSound(t *testing.T) {
	t.Parallel()
	for _, obj := range []h.Object{h.Stack, h.Queue} {
		for seed := range int64(testutil.Scale(3)) {
			hist, err := gen.History(gen.Config{Object: obj, Ops: 2000, Concurrency: 4, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			for _, viol := range []int{len(hist.Ops) - 1, len(hist.Ops) / 2, 700} {
				if core, _, _ := FindCore(hist, viol, 0); core != nil {
					t.Fatalf("%s seed %d: a core %v of a linearizable history", obj, seed, core)
				}
			}
		}
	}
}
