package logfmt

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/history"
)

// roundTrip writes acts with a Writer and reads them back; it returns what
// differs, or "" when the reader gives back exactly the actions written.
func roundTrip(obj history.Object, param string, acts []history.Action) string {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, obj, param)
	if err != nil {
		return err.Error()
	}
	for _, a := range acts {
		if err := w.Write(a); err != nil {
			return err.Error()
		}
	}
	if err := w.Flush(); err != nil {
		return err.Error()
	}
	got, rd, err := readAll(buf.String(), Options{Name: "rt"})
	if err != nil {
		return fmt.Sprintf("reading the written log: %v\nlog:\n%s", err, buf.String())
	}
	if rd.Object() != obj || rd.Param() != param {
		return fmt.Sprintf("object %v param %q, want %v %q", rd.Object(), rd.Param(), obj, param)
	}
	if len(got) != len(acts) {
		return fmt.Sprintf("read %d actions, wrote %d\nlog:\n%s", len(got), len(acts), buf.String())
	}
	for i := range acts {
		if show(got[i]) != show(acts[i]) {
			return fmt.Sprintf("action %d: read %s, wrote %s\nlog:\n%s", i, show(got[i]), show(acts[i]), buf.String())
		}
		if got[i].Line != i+2 {
			return fmt.Sprintf("action %d on line %d, want %d", i, got[i].Line, i+2)
		}
	}
	return ""
}

func TestRoundTripValidLogs(t *testing.T) {
	for _, tc := range validLogs {
		acts, rd, err := readAll(tc.src, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d := roundTrip(rd.Object(), rd.Param(), acts); d != "" {
			t.Errorf("%s: %s", tc.name, d)
		}
	}
}

// randomActions makes a random well-formed history of obj: overlapping
// operations, reused ids, odd but legal tokens.
func randomActions(rng *rand.Rand, obj history.Object, n int) []history.Action {
	tokens := []string{"a", "1", "-7", "empty", "null", "true", "x.y", "é", "v:2", "a@b", "{}", "0x1f"}
	ids := []string{"1", "2", "3", "t4", "a#b", "[x", "é", "thread-1.op-2", "9"}
	sigs := history.Signatures(obj)
	open := map[string]history.Label{}
	var acts []history.Action
	tok := func() history.Value { return history.Value(tokens[rng.IntN(len(tokens))]) }
	for len(acts) < n {
		id := ids[rng.IntN(len(ids))]
		l, isOpen := open[id]
		if !isOpen {
			sig := sigs[rng.IntN(len(sigs))]
			l = history.Label{Method: sig.Method, Pending: true}
			if nargs := sig.MinArgs + rng.IntN(sig.MaxArgs-sig.MinArgs+1); nargs > 0 {
				l.Arg = tok()
			}
			if sig.Method == history.CAS {
				l.Old = tok()
			}
			if obj == history.PQueue && sig.Method == history.Add {
				l.Prio = rng.Int64() - rng.Int64()
			}
			open[id] = l
			acts = append(acts, history.Action{Kind: history.Call, ID: id, Label: l, Seq: len(acts)})
			continue
		}
		sig, _ := history.SignatureOf(obj, l.Method)
		l.Pending = false
		switch sig.Ret {
		case history.RetBool:
			l.Ret = []history.Value{history.True, history.False}[rng.IntN(2)]
		case history.RetStatus:
			l.Ret = []history.Value{history.OK, history.Fail}[rng.IntN(2)]
		case history.RetValue:
			l.Ret = tok()
		case history.RetOptional:
			if rng.IntN(2) == 0 {
				l.Ret = tok()
			}
		}
		delete(open, id)
		acts = append(acts, history.Action{Kind: history.Return, ID: id, Label: l, Seq: len(acts)})
	}
	return acts
}

func TestRoundTripRandom(t *testing.T) {
	params := map[history.Object][]string{
		history.Semaphore: {"", "1", "3"},
		history.Register:  {"", "0", "init"},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, obj := range history.Objects {
		ps := params[obj]
		if ps == nil {
			ps = []string{""}
		}
		for _, p := range ps {
			for range 20 {
				acts := randomActions(rng, obj, 1+rng.IntN(60))
				if d := roundTrip(obj, p, acts); d != "" {
					t.Fatalf("%v %q: %s", obj, p, d)
				}
			}
		}
	}
}

// The writer's output is the canonical form; pin it so that a change to
// either side shows up here.
func TestWriterOutput(t *testing.T) {
	acts, _, err := readAll(validLogs[2].src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, history.PQueue, "")
	for _, a := range acts[:2] {
		w.Write(a)
	}
	w.Flush()
	want := "# @object atomic-priority-queue\n[1] call add(a, 5)\n[2] call add(7, 7)\n"
	if buf.String() != want {
		t.Errorf("writer wrote %q, want %q", buf.String(), want)
	}
}

// BenchmarkReader measures the reader on a long queue log.
func BenchmarkReader(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("# @object queue\n")
	for i := range 10000 {
		fmt.Fprintf(&sb, "[%d] call enqueue(%d)\n[%d] return\n[d%d] call dequeue\n[d%d] return %d\n", i, i, i, i, i, i)
	}
	src := sb.String()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		rd := NewReader(strings.NewReader(src), Options{})
		for {
			if _, err := rd.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
}
