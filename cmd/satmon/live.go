package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"golang.org/x/term"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/progress"
)

// liveEvery is how many steps pass between two updates of the count of
// one file's progress (the window is read 16 times less often): often
// enough for -a symbolic, whose steps are slow on long logs.
const liveEvery = 256

// live shows, on a terminal, the progress of the one file being checked:
// steps read, the rate, and the window (the operations the monitor holds,
// most at once so far). A batch shows its own bar instead, per file.
type live struct {
	bar  *progress.Bar
	name string
	n    int
}

// liveProgress returns the progress of file name, silent unless stderr
// is a terminal and no batch bar is shown.
func (c *checker) liveProgress(name string) *live {
	if c.bar.On() {
		return &live{}
	}
	return &live{bar: progress.NewCounter(c.stderr, name, "steps"), name: name}
}

// step counts one step of m.
func (l *live) step(m *engine.Monitor) {
	if !l.bar.On() {
		return
	}
	if l.n++; l.n%liveEvery != 0 {
		return
	}
	l.bar.Add(liveEvery)
	if l.n%(16*liveEvery) != 0 {
		return // the statistics cost more than a count
	}
	if st := m.Result().Stats; st != nil {
		l.bar.Describe(fmt.Sprintf("%s: window %d max", l.name, st.MaxWindow))
	}
}

// Done clears the progress, before the verdict is printed.
func (l *live) Done() { l.bar.Done() }

// sayReadingStdin tells a person at a terminal that check, given no FILE,
// waits for a log on standard input.
func sayReadingStdin(stdin io.Reader, stderr io.Writer) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintln(stderr, "satmon check: reading a log from standard input (end it with Ctrl-D; 'satmon check --help' for usage)")
	}
}

// byteProgress shows, on a terminal, how much of a log read as a log of
// many objects (or a Jepsen, EDN or JSON history) has been read: such a
// log is checked as it is read, a few batches behind, so the bytes read
// say how far the check is. A native log of one object shows its steps
// instead (live); the count starts when the log is known to be the former.
type byteProgress struct {
	r   io.Reader
	bar *progress.Bar
	on  atomic.Bool
}

// bytesProgress wraps r, the input of file name, in a byteProgress, silent
// unless stderr is a terminal and no batch bar is shown; size is the
// file's, or 0 for a pipe.
func (c *checker) bytesProgress(r io.Reader, name string, size int64) *byteProgress {
	p := &byteProgress{r: r, bar: &progress.Bar{}}
	if !c.bar.On() {
		p.bar = progress.NewBytes(c.stderr, size, name)
	}
	return p
}

func (p *byteProgress) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if p.on.Load() {
		p.bar.Add(n)
	}
	return n, err
}

// start begins counting, having read already bytes.
func (p *byteProgress) start(already int) {
	if p != nil && p.on.CompareAndSwap(false, true) {
		p.bar.Add(already)
	}
}

// Clear erases the bar before a verdict is printed.
func (p *byteProgress) Clear() {
	if p != nil && p.on.Load() {
		p.bar.Clear()
	}
}

// Done ends the bar.
func (p *byteProgress) Done() {
	if p != nil {
		p.bar.Done()
	}
}
