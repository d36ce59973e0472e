package record

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
)

func read(t *testing.T, log []byte) *history.History {
	t.Helper()
	h, err := logfmt.ReadHistory(bytes.NewReader(log), logfmt.Options{Name: "x"})
	if err != nil {
		t.Fatalf("recorded log does not parse: %v\n%s", err, log)
	}
	return h
}

func TestSequential(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf, history.PQueue, "")
	op := r.Call(history.Label{Method: history.Add, Arg: "a", Prio: 5})
	op.Return(history.Void)
	op = r.Call(history.Label{Method: history.Rem, Ret: "ignored", Pending: true})
	op.Return("a")
	r.Call(history.Label{Method: history.Rem}) // stays pending
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	want := "# @object atomic-priority-queue\n" +
		"[1] call add(a, 5)\n[1] return\n" +
		"[2] call rem\n[2] return a\n" +
		"[3] call rem\n"
	if got := buf.String(); got != want {
		t.Fatalf("log:\n%s\nwant:\n%s", got, want)
	}
	h := read(t, buf.Bytes())
	if len(h.Ops) != 3 || !h.Ops[2].Pending() || h.Ops[0].Label.Prio != 5 {
		t.Fatalf("history %v", h)
	}
}

func TestParam(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf, history.Semaphore, "3")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	h := read(t, buf.Bytes())
	if h.Object != history.Semaphore || h.Capacity() != 3 {
		t.Fatalf("header read back as %v %q", h.Object, h.Param)
	}
}

// TestConcurrent records many overlapping operations through a small ring,
// so that goroutines also wait for room and write for each other, and checks
// that nothing is lost, ids count up in call order, and each operation's
// return follows its call.
func TestConcurrent(t *testing.T) {
	for _, size := range []int{2, 7, DefaultBuffer} {
		var buf bytes.Buffer
		r := newSize(&buf, history.Queue, "", size)
		const workers, per = 8, 300
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := range per {
					v := history.Value(strconv.Itoa(w) + "." + strconv.Itoa(i))
					op := r.Call(history.Label{Method: history.Add, Arg: v})
					op.Return(history.Void)
				}
			})
		}
		wg.Wait()
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		h := read(t, buf.Bytes())
		if len(h.Ops) != workers*per {
			t.Fatalf("ring %d: %d ops recorded, want %d", size, len(h.Ops), workers*per)
		}
		seen := map[history.Value]bool{}
		for i, o := range h.Ops {
			if o.ID != strconv.Itoa(i+1) {
				t.Fatalf("ring %d: op %d has id %s; ids must count calls", size, i, o.ID)
			}
			if o.Pending() || o.Return <= o.Call {
				t.Fatalf("ring %d: op %s: call %d, return %d", size, o.ID, o.Call, o.Return)
			}
			if seen[o.Label.Arg] {
				t.Fatalf("ring %d: %s recorded twice", size, o.Label.Arg)
			}
			seen[o.Label.Arg] = true
		}
		// Each worker's operations are sequential, so they must not overlap.
		last := map[string]int{}
		for _, o := range h.Ops {
			w, _, _ := strings.Cut(string(o.Label.Arg), ".")
			if prev, ok := last[w]; ok && prev > o.Call {
				t.Fatalf("ring %d: worker %s's op %s called before its previous op returned", size, w, o.ID)
			}
			last[w] = o.Return
		}
	}
}

// TestRealTime hands a token between goroutines: each operation starts only
// after the previous one, on another goroutine, has returned and signalled.
// The log must order every such pair.
func TestRealTime(t *testing.T) {
	var buf bytes.Buffer
	r := newSize(&buf, history.Register, "0", 16)
	const workers, rounds = 4, 200
	chans := make([]chan int, workers)
	for i := range chans {
		chans[i] = make(chan int, 1)
	}
	// Unrelated noise: operations that overlap everything.
	stop := make(chan struct{})
	var noise sync.WaitGroup
	for range 2 {
		noise.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				r.Call(history.Label{Method: history.Read}).Return("0")
			}
		})
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				k, ok := <-chans[w]
				if !ok || k == workers*rounds {
					if ok {
						for _, c := range chans {
							close(c)
						}
					}
					return
				}
				op := r.Call(history.Label{Method: history.Write, Arg: history.Value("w" + strconv.Itoa(k))})
				op.Return(history.Void)
				chans[(w+1)%workers] <- k + 1
			}
		})
	}
	chans[0] <- 0
	wg.Wait()
	close(stop)
	noise.Wait()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	h := read(t, buf.Bytes())
	byArg := map[history.Value]*history.Op{}
	for i := range h.Ops {
		byArg[h.Ops[i].Label.Arg] = &h.Ops[i]
	}
	for k := 0; k+1 < workers*rounds; k++ {
		a, b := byArg[history.Value("w"+strconv.Itoa(k))], byArg[history.Value("w"+strconv.Itoa(k+1))]
		if a == nil || b == nil {
			t.Fatalf("write w%d or w%d missing", k, k+1)
		}
		if !history.Before(a, b) {
			t.Fatalf("w%d returned (action %d) before w%d was called (action %d), but the log does not say so", k, a.Return, k+1, b.Call)
		}
	}
}

type failWriter struct{ after int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("disk full")
	}
	f.after--
	return len(p), nil
}

func TestWriteError(t *testing.T) {
	r := New(&failWriter{}, history.Stack, "")
	for range 10 {
		r.Call(history.Label{Method: history.Rem}).Return(history.Empty)
	}
	if err := r.Close(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Close = %v, want the writer's error", err)
	}
	if err := r.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Close = %v, want ErrClosed", err)
	}
}

func TestDoubleReturn(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf, history.Stack, "")
	op := r.Call(history.Label{Method: history.Rem})
	op.Return(history.Empty)
	op.Return(history.Empty)
	if err := r.Close(); err == nil {
		t.Fatal("Close accepted a second Return")
	}
}

func TestFlush(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf, history.Lock, "")
	r.Call(history.Label{Method: history.LockM, Arg: "a"}).Return(history.Void)
	op := r.Call(history.Label{Method: history.Unlock})
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "# @object atomic-lock\n[1] call lock(a)\n[1] return\n[2] call unlock\n"
	if buf.String() != want {
		t.Fatalf("after Flush:\n%s\nwant:\n%s", buf.String(), want)
	}
	op.Return("a")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(buf.String(), "[2] return a\n") {
		t.Fatalf("after Close:\n%s", buf.String())
	}
}

func TestCallAfterClose(t *testing.T) {
	r := New(&bytes.Buffer{}, history.Queue, "")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Call after Close did not panic")
		}
	}()
	r.Call(history.Label{Method: history.Rem})
}

func BenchmarkCallReturn(b *testing.B) {
	r := New(discard{}, history.Queue, "")
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.Call(history.Label{Method: history.Add, Arg: "x"}).Return(history.Void)
		}
	})
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
