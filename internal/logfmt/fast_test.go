package logfmt

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/satmon/satmon/internal/gen"
	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/openset"
)

// readBoth reads src by the fast path and by the general path alone and
// returns what differs, or "".
func readBoth(src string) string {
	read := func(noFast bool) string {
		rd := NewReader(strings.NewReader(src), Options{Name: "f"})
		rd.setNoFast(noFast)
		var b strings.Builder
		for {
			// Into an action whose every field holds something else
			// first: each path must set them all (the fast one sets
			// them one by one), and clear them at the end.
			a := history.Action{Kind: 9, ID: "stale", Label: history.Label{Method: 99, Arg: "a", Old: "o", Prio: 7, Ret: "r", Pending: true}, Seq: -7, Line: -7}
			err := rd.NextInto(&a)
			fmt.Fprintf(&b, "%#v\n", a)
			if err != nil {
				fmt.Fprintf(&b, "end: %v\n", err)
				if _, err2 := rd.Next(); err2 != err {
					fmt.Fprintf(&b, "not sticky: %v\n", err2)
				}
				break
			}
			fmt.Fprintf(&b, "%s line %d obj %v\n", show(a), a.Line, rd.last)
		}
		fmt.Fprintf(&b, "object %v %q pending %q named %v\n", rd.Object(), rd.Param(), rd.Pending(), rd.Named())
		return b.String()
	}
	fast, general := read(false), read(true)
	if fast != general {
		return fmt.Sprintf("fast path:\n%s\ngeneral path:\n%s", fast, general)
	}
	return ""
}

// genLog writes a random history of obj as a log.
func genLog(t testing.TB, obj history.Object, seed int64, conc, pending int) string {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, obj, "")
	if err != nil {
		t.Fatal(err)
	}
	cfg := gen.Config{Object: obj, Ops: 60, Concurrency: conc, Pending: pending, Seed: seed, Values: int(seed % 5)}
	if obj == history.Semaphore {
		cfg.Capacity = 2
		w, _ = NewWriter(&buf, obj, "2")
	}
	if err := gen.Generate(cfg, w.Write); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// mutate damages one line of a log in one of the ways that sit at the
// fast path's edges: spacing, punctuation, case, non-ASCII, repeated or
// swapped lines.
func mutate(src string, rng *rand.Rand) string {
	lines := strings.Split(src, "\n")
	i := 1 + rng.IntN(len(lines)-1)
	l := lines[i]
	bits := []string{" ", "  ", ",", ", ", "(", ")", "()", "#", "# c", "\t", "é", "\u00a0", "\x01", "\x7f", "]", "[", "A", "x", "\r", "", "1", "true", "empty", "CALL", "Return", ".", "\xff", " 7", " empty", " ok", " true", "(3)", "(1, 2)", ", 4"}
	switch k := rng.IntN(10); {
	case k >= 8: // append
		l += bits[rng.IntN(len(bits))]
	case k == 0 && len(l) > 0: // delete a byte
		j := rng.IntN(len(l))
		l = l[:j] + l[j+1:]
	case k == 1: // repeat a line
		j := 1 + rng.IntN(len(lines)-1)
		lines = append(lines[:j+1], lines[j:]...)
	case k == 2: // swap two lines
		j := 1 + rng.IntN(len(lines)-1)
		lines[i], lines[j] = lines[j], lines[i]
		l = lines[i]
	case k == 3: // replace a byte
		if len(l) > 0 {
			j := rng.IntN(len(l))
			l = l[:j] + bits[rng.IntN(len(bits))] + l[j+1:]
		}
	default: // insert
		j := rng.IntN(len(l) + 1)
		l = l[:j] + bits[rng.IntN(len(bits))] + l[j:]
	}
	lines[i] = l
	return strings.Join(lines, "\n")
}

// The fast path must read exactly what the general path reads: the same
// actions, objects, pending operations and errors, on the logs writers
// produce and on logs damaged at the fast path's edges.
func TestFastPathAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range validLogs {
		if d := readBoth(tc.src); d != "" {
			t.Fatalf("%s:\n%s", tc.name, d)
		}
	}
	for _, obj := range history.Objects {
		for seed := range int64(12) {
			conc := 1 + int(seed)*4 // up to 45 open: the open set hashes
			src := genLog(t, obj, seed, conc, int(seed%3))
			if d := readBoth(src); d != "" {
				t.Fatalf("%v seed %d:\n%s\nlog:\n%s", obj, seed, d, src)
			}
			for range 40 {
				m := mutate(src, rng)
				if rng.IntN(3) == 0 {
					m = mutate(m, rng)
				}
				if d := readBoth(m); d != "" {
					t.Fatalf("%v seed %d, damaged:\n%s\nlog:\n%s", obj, seed, d, m)
				}
			}
		}
	}
}

// The fast path takes most lines: a writer's log must not fall back to
// the general path line after line (which would be correct but slow).
func TestFastPathTaken(t *testing.T) {
	for _, obj := range history.Objects {
		src := genLog(t, obj, 3, 4, 0)
		lines := strings.Split(strings.TrimSpace(src), "\n")[1:]
		rd := NewReader(strings.NewReader(src), Options{})
		// Feed the header and first action through Next, then try each
		// following line on the fast path directly.
		if _, err := rd.Next(); err != nil {
			t.Fatal(err)
		}
		for _, l := range lines[1:] {
			rd.line++
			var a history.Action
			if !rd.fast([]byte(l), &a) {
				if obj == history.PQueue || obj == history.CASRegister {
					break // two values: the general path's
				}
				t.Errorf("%v: fast path declined %q", obj, l)
				break
			}
			rd.seq++
		}
	}
}

// Nothing an action holds may change when the reader goes on: the fast
// path builds strings in a buffer it reuses.
func TestFastPathStringsStay(t *testing.T) {
	src := genLog(t, history.Queue, 5, 6, 0)
	rd := NewReader(strings.NewReader(src), Options{})
	var acts []history.Action
	var shown []string
	for {
		a, err := rd.Next()
		if err != nil {
			break
		}
		acts = append(acts, a)
		shown = append(shown, strings.Clone(show(a)))
	}
	if len(acts) < 100 {
		t.Fatalf("only %d actions", len(acts))
	}
	for i, a := range acts {
		if show(a) != shown[i] {
			t.Fatalf("action %d was %s, is now %s", i, shown[i], show(a))
		}
	}
}

// Many open operations: the open set hashes their ids beyond MaxScan
// and scans them again below half of it; duplicates, returns and Pending
// must not notice.
func TestManyOpen(t *testing.T) {
	var b strings.Builder
	b.WriteString("# @object queue\n")
	const n = 3 * openset.MaxScan
	for i := range n {
		fmt.Fprintf(&b, "[%d] call enqueue(%d)\n", i, i)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	order := rng.Perm(n)
	for _, i := range order[:n-3] {
		fmt.Fprintf(&b, "[%d] return\n", i)
	}
	src := b.String()
	for _, noFast := range []bool{false, true} {
		rd := NewReader(strings.NewReader(src), Options{Name: "m"})
		rd.setNoFast(noFast)
		for {
			if _, err := rd.Next(); err != nil {
				break
			}
		}
		left := order[n-3:]
		want := []string{}
		for i := range n {
			for _, j := range left {
				if i == j {
					want = append(want, fmt.Sprint(i))
				}
			}
		}
		if got := rd.Pending(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("noFast %v: pending %v, want %v", noFast, got, want)
		}
	}
	// A duplicate while hashed, a second return while hashed and after.
	dup := src[:strings.Index(src, "] return")-len(fmt.Sprint(order[0]))-1] + fmt.Sprintf("[%d] call dequeue\n", order[0])
	_, _, err := readAll(dup, Options{Name: "m"})
	if err == nil || !strings.Contains(err.Error(), "duplicate id") {
		t.Errorf("duplicate while hashed: %v", err)
	}
	_, _, err = readAll(src+fmt.Sprintf("[%d] return\n", order[0]), Options{Name: "m"})
	if err == nil || !strings.Contains(err.Error(), "second return") {
		t.Errorf("second return: %v", err)
	}
	_, _, err = readAll(src+fmt.Sprintf("[%d] call dequeue\n", order[n-1]), Options{Name: "m"})
	if err == nil || !strings.Contains(err.Error(), "duplicate id") {
		t.Errorf("duplicate after hashing: %v", err)
	}
}

// The fast path gathers an id's key while it scans the line; the general
// path computes it (openset.Key). Both must agree, or an operation opened by
// one would be missed by the other: a duplicate call let through, a
// return read by the slow path. Each id is opened by the general path
// (the first action) and by the fast path, then called again and
// returned by the fast path.
func TestFastKeysAgree(t *testing.T) {
	ids := []string{"1", "01", "10", "1234567", "2234567", "x1234567", "y1234567", "xy1234567",
		"op-00000001", "op-00000011", "a-b", strings.Repeat("z", 300), strings.Repeat("z", 299) + "y"}
	for _, id := range ids {
		for _, first := range []bool{true, false} {
			src := "# @object queue\n"
			if !first {
				src += "[start] call dequeue\n"
			}
			src += "[" + id + "] call dequeue\n"
			if _, _, err := readAll(src+"["+id+"] call dequeue\n", Options{Name: "m"}); err == nil || !strings.Contains(err.Error(), "duplicate id") {
				t.Errorf("id %q (first %v): second call: %v, want a duplicate id", id, first, err)
			}
			for _, noFast := range []bool{false, true} {
				rd := NewReader(strings.NewReader(src+"["+id+"] return 1\n"), Options{Name: "m"})
				rd.setNoFast(noFast)
				var last history.Action
				for {
					a, err := rd.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("id %q: %v", id, err)
					}
					last = a
				}
				if last.Kind != history.Return || last.ID != id || last.Label.Ret != "1" || len(rd.Pending()) != btoi(!first) {
					t.Errorf("id %q (first %v, noFast %v): last action %+v, pending %v", id, first, noFast, last, rd.Pending())
				}
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// value returns the common values themselves, not copies: value's filter
// by first byte lets each of them through.
func TestCommonValues(t *testing.T) {
	var r Reader
	for _, c := range commonValues {
		if v := r.value([]byte(c)); v != c || unsafe.StringData(string(v)) != unsafe.StringData(string(c)) {
			t.Errorf("value(%q) is a copy", c)
		}
	}
	if v := r.value([]byte("17")); v != "17" {
		t.Errorf("value(17) = %q", v)
	}
}

// seenAt compares 8 bytes at once, reading past the end of the line
// when its array holds them: a line that stops inside a name, or whose
// word goes on past it, must not match, whatever those bytes are.
func TestSeenAt(t *testing.T) {
	var r Reader
	decl := &ObjectDecl{Kind: history.Queue}
	for _, m := range []string{"dequeue", "enqueue"} {
		if sig, _ := r.method(decl, []byte(m)); sig == nil {
			t.Fatalf("%s is no method of a queue", m)
		}
	}
	buf := []byte("dequeue(1)xxxxxxxxxxxxxxxx")
	for _, c := range []struct {
		n, want int // b is buf[:n]
	}{{7, 7}, {10, 7}, {6, 0}, {3, 0}, {0, 0}} {
		if n, _, _ := r.seenAt(decl, buf[:c.n]); n != c.want {
			t.Errorf("seenAt(%q) = %d, want %d", buf[:c.n], n, c.want)
		}
	}
	for _, line := range []string{"dequeuex", "dequeue_1", "Dequeue", "enqueue", "enqueue(", "enqueue ", "enqueue\x00"} {
		b := append([]byte(line), "xxxxxxxx"...)[:len(line)]
		want := word(b)
		if m := string(b[:want]); m != "dequeue" && m != "enqueue" {
			want = 0
		}
		if n, _, _ := r.seenAt(decl, b); n != want {
			t.Errorf("seenAt(%q) = %d, want %d", line, n, want)
		}
	}
}
