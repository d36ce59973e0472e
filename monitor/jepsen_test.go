package monitor

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/testutil"
)

// readEtcd converts a Jepsen etcd log (../shared/data/jepsen-etcd, see its
// README) into a compare-and-set register history. It is a test's
// converter, not the reader users get: :info outcomes and :fail reads
// (timed out) stay pending to the end.
func readEtcd(t *testing.T, path string) *h.History {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := h.NewBuilder(h.CASRegister, "")
	open := map[string]string{} // process → open op id
	seq, n := 0, 0
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[1] != "jepsen.util" {
			continue
		}
		proc, typ, fn, val := fs[3], fs[4], fs[5], strings.Join(fs[6:], " ")
		var a h.Action
		switch typ {
		case ":invoke":
			n++
			id := strconv.Itoa(n)
			open[proc] = id
			a = h.Action{Kind: h.Call, ID: id}
			switch fn {
			case ":read":
				a.Label = h.Label{Method: h.Read}
			case ":write":
				a.Label = h.Label{Method: h.Write, Arg: h.Value(val)}
			case ":cas":
				ov := strings.Fields(strings.Trim(val, "[]"))
				if len(ov) != 2 {
					t.Fatalf("%s:%d: bad cas %q", path, line, val)
				}
				a.Label = h.CASLabel(h.Value(ov[0]), h.Value(ov[1]))
			default:
				t.Fatalf("%s:%d: unknown function %s", path, line, fn)
			}
		case ":ok", ":fail", ":info":
			id, ok := open[proc]
			if !ok {
				t.Fatalf("%s:%d: no open operation of process %s", path, line, proc)
			}
			delete(open, proc)
			if typ == ":info" || (typ == ":fail" && fn != ":cas") {
				continue // unknown outcome: pending to the end
			}
			a = h.Action{Kind: h.Return, ID: id}
			switch {
			case fn == ":read":
				a.Label.Ret = h.Value(val)
			case fn == ":cas" && typ == ":ok":
				a.Label.Ret = h.OK
			case fn == ":cas":
				a.Label.Ret = h.Fail
			}
		default:
			continue
		}
		a.Seq, a.Line = seq, line
		seq++
		if _, err := b.Add(a); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return &b.H
}

// On Jepsen's etcd histories SYMBOLIC gives the verdicts of Porcupine's
// test suite (verdicts.tsv), and SATURATE never reports a violation of a
// linearizable one. Both detection counts are logged.
func TestJepsenEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("SYMBOLIC on 61 real histories takes tens of seconds")
	}
	dir := filepath.Join(testutil.Root(t), "..", "shared", "data", "jepsen-etcd")
	tsv, err := os.ReadFile(filepath.Join(dir, "verdicts.tsv"))
	if err != nil {
		t.Skipf("Jepsen etcd histories not found at %s (they live in ../shared/data beside the repository)", dir)
	}
	var sat, sym, n int
	for _, row := range strings.Split(strings.TrimSpace(string(tsv)), "\n")[1:] {
		name, want, _ := strings.Cut(row, "\t")
		hist := readEtcd(t, filepath.Join(dir, name))
		r := CheckHistory(hist, Options{Algorithm: Saturate})
		if r.Verdict == Violation {
			sat++
			if want == "ok" {
				t.Errorf("%s: SATURATE reports a violation of a linearizable history at step %d", name, *r.ViolationStep)
			}
		}
		r = CheckHistory(hist, Options{Algorithm: Symbolic, Timeout: time.Minute})
		if string(r.Verdict) != want {
			t.Errorf("%s: SYMBOLIC says %s, verdicts.tsv says %s", name, r.Verdict, want)
		}
		if r.Verdict == Violation {
			sym++
		}
		if want == "violation" {
			n++
		}
	}
	t.Logf("%d violations: SATURATE finds %d, SYMBOLIC %d", n, sat, sym)
}
