package engine

import (
	"errors"

	h "github.com/satmon/satmon/internal/history"

	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/record"
)

// Recorder is a record.Recorder whose log a monitor checks while the
// program runs, in a goroutine of its own: wrap your object's operations
// with Call and Return as record's package documentation shows.
//
// The program under test never waits for the monitor: the log goes into a
// buffer that grows as needed, so a slow check costs memory, not time, and
// the monitor reads every action to the end, also after a violation. The
// monitor sees actions as the recorder writes them out, in blocks; Flush
// pushes out what is recorded so far.
type Recorder struct {
	*record.Recorder
	pipe *record.Pipe
	done chan struct{}
	res  Result
	err  error
}

// NewRecorder starts recording a log of object obj with parameter param
// and checking it with opt (the zero Options: SATURATE -r). onViolation,
// when not nil, is called from the monitor's goroutine as soon as a
// violation is proven, while the program goes on.
func NewRecorder(obj h.Object, param string, opt Options, onViolation func(Result)) *Recorder {
	p := record.NewPipe()
	c := &Recorder{Recorder: record.New(p, obj, param), pipe: p, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.res, c.err = CheckLogFunc(p, logfmt.Options{Name: "<recorded>"}, opt, onViolation)
	}()
	return c
}

// Close closes the recorder (see record.Recorder.Close), waits until the monitor
// has read the whole log, and returns its result. The error is the
// recorder's or, failing that, the monitor's.
func (c *Recorder) Close() (Result, error) {
	rerr := c.Recorder.Close()
	c.pipe.Close()
	<-c.done
	return c.res, errors.Join(rerr, c.err)
}
