package logfmt

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// scriptReader serves data in the chunks a script draws: short reads,
// empty reads, data together with io.EOF or an error, a bad count.
type scriptReader struct {
	data []byte
	rng  *rand.Rand
	// badAt: the read that reports a count larger than its buffer (0:
	// none); failAt: the offset from which reads fail.
	reads, badAt, failAt int
	empties              int // empty reads in a row still to serve
}

var errScript = errors.New("script error")

func (r *scriptReader) Read(p []byte) (int, error) {
	r.reads++
	if r.reads == r.badAt {
		return len(p) + 1, nil
	}
	if r.empties > 0 {
		r.empties--
		return 0, nil
	}
	if r.rng.IntN(8) == 0 {
		r.empties = r.rng.IntN(3)
		if r.rng.IntN(40) == 0 {
			r.empties = 99 + r.rng.IntN(3) // 100 to 102 empty reads in a row: ErrNoProgress from 101
		}
		return 0, nil
	}
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	if r.failAt == 0 {
		return 0, errScript
	}
	n := min(len(p), 1+r.rng.IntN(len(r.data)), len(r.data))
	if r.failAt > 0 {
		n = min(n, r.failAt)
		r.failAt -= n
	}
	copy(p, r.data[:n])
	r.data = r.data[n:]
	switch {
	case len(r.data) == 0 && r.rng.IntN(2) == 0:
		return n, io.EOF
	case r.failAt == 0 && r.rng.IntN(2) == 0:
		return n, errScript
	}
	return n, nil
}

// scanAll lists what a scanner yields: its lines and its error.
func scanAll(scan func() bool, bytes func() []byte, err func() error) string {
	var b strings.Builder
	for i := 0; scan(); i++ {
		if i > 1000 {
			return "runaway"
		}
		fmt.Fprintf(&b, "%q\n", bytes())
	}
	fmt.Fprintf(&b, "err %v", err())
	return b.String()
}

// The reader's line scanner must yield what bufio.Scanner with ScanLines
// yields, for every input, every sequence of reads and every size limit.
func TestLineScannerAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte("ab\n\n\r#")
	for iter := range 20000 {
		data := make([]byte, rng.IntN(40))
		for i := range data {
			data[i] = alphabet[rng.IntN(len(alphabet))]
		}
		max := 1 + rng.IntN(24)
		initCap := rng.IntN(8)
		seed := rng.Uint64()
		badAt, failAt := 0, -1
		if rng.IntN(10) == 0 {
			badAt = 1 + rng.IntN(6)
		}
		if rng.IntN(5) == 0 {
			failAt = rng.IntN(len(data) + 1)
		}
		mk := func() *scriptReader {
			return &scriptReader{data: data, rng: rand.New(rand.NewPCG(seed, 7)), badAt: badAt, failAt: failAt}
		}
		sc := bufio.NewScanner(mk())
		sc.Buffer(make([]byte, 0, initCap), max)
		want := scanAll(sc.Scan, sc.Bytes, sc.Err)
		ls := newLineScanner(mk(), make([]byte, 0, initCap), max)
		got := scanAll(ls.Scan, ls.Bytes, ls.Err)
		if got != want {
			t.Fatalf("iteration %d: input %q, max %d, cap %d, bad read %d, fail at %d:\nlineScanner:\n%s\nbufio.Scanner:\n%s", iter, data, max, initCap, badAt, failAt, got, want)
		}
	}
}
