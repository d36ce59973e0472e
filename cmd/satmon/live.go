package main

import (
	"fmt"
	"io"
	"os"

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
