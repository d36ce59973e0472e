// Package progress shows a progress bar on a terminal and nothing anywhere else.
package progress

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar counts units of work done. The zero value and nil are valid, silent bars.
type Bar struct{ b *progressbar.ProgressBar }

// New returns a bar of total units described by what, drawn on w only when
// w is a terminal: piped output, files and CI logs never see it.
func New(w io.Writer, total int, what string) *Bar {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) || total <= 0 {
		return &Bar{}
	}
	return &Bar{b: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100_000_000), // redraw at most every 100 ms
	)}
}

// Add records n more units done.
func (p *Bar) Add(n int) {
	if p != nil && p.b != nil {
		_ = p.b.Add(n)
	}
}

// Describe changes the text shown beside the bar.
func (p *Bar) Describe(what string) {
	if p != nil && p.b != nil {
		p.b.Describe(what)
	}
}

// Done clears the bar so that what is printed next starts on a clean line.
func (p *Bar) Done() {
	if p != nil && p.b != nil {
		_ = p.b.Finish()
		_ = p.b.Clear()
	}
}

// NewCounter returns a bar for work of unknown size, counted in unit:
// a spinner with the count done and the rate, drawn on w only when w is a
// terminal.
func NewCounter(w io.Writer, what, unit string) *Bar {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return &Bar{}
	}
	return &Bar{b: progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(200_000_000), // redraw at most every 200 ms
	)}
}

// On reports whether the bar is drawn.
func (p *Bar) On() bool { return p != nil && p.b != nil }

// NewBytes returns a bar of the bytes of an input read, described by
// what: of total bytes, or of an unknown size (a pipe) when total is not
// positive; drawn on w only when w is a terminal.
func NewBytes(w io.Writer, total int64, what string) *Bar {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return &Bar{}
	}
	if total <= 0 {
		total = -1
	}
	return &Bar{b: progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(200_000_000), // redraw at most every 200 ms
	)}
}

// Clear erases the bar's line, before other output on the same
// terminal; the bar is drawn again at its next update.
func (p *Bar) Clear() {
	if p != nil && p.b != nil {
		_ = p.b.Clear()
	}
}
