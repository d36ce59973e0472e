package multi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/engine"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
)

// registerHistory draws a register history with repeated values, starting
// at "0", linearizable or not.
func registerHistory(rng *rand.Rand) *h.History {
	cfg := gen.Config{Object: h.Register, Ops: 1 + rng.IntN(7), Concurrency: 1 + rng.IntN(4),
		Seed: rng.Int64(), Mutate: rng.IntN(2), Values: 1 + rng.IntN(3)}
	cfg.Pending = rng.IntN(min(cfg.Concurrency, cfg.Ops) + 1)
	hist, err := gen.History(cfg)
	if err != nil {
		panic(err)
	}
	return hist
}

// The readers of foreign formats feed the driver histories it checks as
// it checks the same history written natively. Register histories of
// reads and writes (initial value 0, repeated values, pending operations)
// are written as Jepsen lines — the initial 0 as Jepsen's absent nil, a
// pending operation as :info, or for a read as a :fail :timed-out — and
// as EDN and JSON key-value maps, one key per history, the initial 0 as
// the empty string of a key never written. Each object's verdict equals
// ENUMERATE -c on the native history.
func TestForeignPipeline(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 16))
	n := scale(300)
	seen := map[engine.Verdict]int{}
	for i := 0; i < n; i++ {
		k := 1 + rng.IntN(3)
		hists := make([]*h.History, k)
		want := map[string]engine.Result{}
		for j := range hists {
			hists[j] = registerHistory(rng)
			want[fmt.Sprint(j)] = check(hists[j], enumC)
			seen[want[fmt.Sprint(j)].Verdict]++
		}
		etcd := jepsenText(hists[0], rng)
		got, err := CheckMulti(context.Background(), strings.NewReader(etcd), logfmt.Auto, logfmt.Options{Name: "etcd"}, MultiOptions{Options: enumC, Workers: 1}, nil)
		if err != nil || len(got.Objects) != 1 || got.Objects[0].Verdict != want["0"].Verdict {
			t.Fatalf("history %d as Jepsen lines: %v %+v, want %s\n%v\n%s", i, err, got.Objects, want["0"].Verdict, hists[0], etcd)
		}
		for _, asJSON := range []bool{false, true} {
			text := kvText(hists, rng, asJSON)
			got, err := CheckMulti(context.Background(), strings.NewReader(text), logfmt.Auto, logfmt.Options{Name: "kv"}, MultiOptions{Options: enumC, Workers: 2}, nil)
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			for _, o := range got.Objects {
				if w := want[o.Name]; o.Verdict != w.Verdict {
					t.Fatalf("log %d, key %s (json %v): %s, want %s\n%v\n%s", i, o.Name, asJSON, o.Verdict, w.Verdict, hists, text)
				}
			}
		}
	}
	if seen[engine.OK] == 0 || seen[engine.Violation] == 0 {
		t.Fatalf("verdicts %v: the test needs both", seen)
	}
	t.Logf("%d logs, %v", n, seen)
}

// jepsenValue writes a register value of a generated history in Jepsen's
// terms: the initial "0" is absent.
func jepsenValue(v h.Value) string {
	if v == "0" {
		return "nil"
	}
	return string(v)
}

func jepsenText(hist *h.History, rng *rand.Rand) string {
	var b strings.Builder
	for _, a := range engine.Actions(hist) {
		f, v := ":read", "nil"
		if a.Label.Method == h.Write {
			f, v = ":write", string(a.Label.Arg)
		}
		typ := ":invoke"
		if a.Kind == h.Return {
			typ = ":ok"
			if a.Label.Method == h.Read {
				v = jepsenValue(a.Label.Ret)
			}
		}
		fmt.Fprintf(&b, "INFO  jepsen.util - %s\t%s\t%s\t%s\n", a.ID, typ, f, v)
	}
	// Pending operations end as Jepsen ends them: :info, or a read's
	// :fail :timed-out.
	for _, o := range hist.Ops {
		if o.Pending() {
			if o.Label.Method == h.Read && rng.IntN(2) == 0 {
				fmt.Fprintf(&b, "INFO  jepsen.util - %s\t:fail\t:read\t:timed-out\n", o.ID)
			} else {
				fmt.Fprintf(&b, "INFO  jepsen.util - %s\t:info\t:%s\t:timed-out\n", o.ID, o.Label.Method)
			}
		}
	}
	return b.String()
}

// kvText interleaves the histories as key-value events, key j for
// history j; the initial "0" is the empty string.
func kvText(hists []*h.History, rng *rand.Rand, asJSON bool) string {
	queues := make([][]h.Action, len(hists))
	var left []int
	for j, hist := range hists {
		queues[j] = engine.Actions(hist)
		if len(queues[j]) > 0 {
			left = append(left, j)
		}
	}
	str := func(v h.Value) string {
		if v == "0" {
			return `""`
		}
		return `"v` + string(v) + `"`
	}
	var b strings.Builder
	for len(left) > 0 {
		k := rng.IntN(len(left))
		j := left[k]
		a := queues[j][0]
		queues[j] = queues[j][1:]
		if len(queues[j]) == 0 {
			left[k] = left[len(left)-1]
			left = left[:len(left)-1]
		}
		f, v, typ := "get", "nil", "invoke"
		if a.Label.Method == h.Write {
			f, v = "put", str(a.Label.Arg)
		}
		if a.Kind == h.Return {
			typ = "ok"
			if f == "get" {
				v = str(a.Label.Ret)
			}
		}
		id, _ := strconv.Atoi(a.ID)
		proc := strconv.Itoa(j*10000 + id)
		if asJSON {
			if v == "nil" {
				v = "null"
			}
			fmt.Fprintf(&b, `{"process": %s, "type": "%s", "f": "%s", "key": "%d", "value": %s}`+"\n", proc, typ, f, j, v)
		} else {
			fmt.Fprintf(&b, "{:process %s, :type :%s, :f :%s, :key \"%d\", :value %s}\n", proc, typ, f, j, v)
		}
	}
	return b.String()
}
