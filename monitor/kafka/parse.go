package kafka

import (
	"io"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
)

// parser turns record values, one line each, into events with the log
// reader of internal/logfmt, so that the records mean exactly what the
// same lines mean in a file. The reader pulls from an io.Reader on a
// goroutine of its own; feed hands it one line and collects the events
// that line made. The reader asks for more input only once it has
// returned every event of what it was given, so the moment it asks again
// is the moment the line is done with: feeding is synchronous, and each
// event belongs to the record just fed.
type parser struct {
	in   chan []byte   // a line for the reader; nil: end of input
	idle chan struct{} // the reader wants more
	out  chan parsed
	cur  []byte
	dead bool // the reader returned an error; it is sticky
}

type parsed struct {
	ev  logfmt.Event
	err error
}

func newParser(format logfmt.Format, name string, obj history.Object) (*parser, error) {
	p := &parser{in: make(chan []byte), idle: make(chan struct{}), out: make(chan parsed)}
	src, err := logfmt.NewSource(p, format, logfmt.Options{Name: name, Object: obj})
	if err != nil {
		return nil, err
	}
	go func() {
		for {
			ev, err := src.NextEvent()
			if err == io.EOF {
				close(p.out)
				return
			}
			p.out <- parsed{ev, err}
			if err != nil {
				close(p.out)
				return
			}
		}
	}()
	<-p.idle
	return p, nil
}

// Read implements io.Reader for the log reader.
func (p *parser) Read(b []byte) (int, error) {
	if len(p.cur) == 0 {
		p.idle <- struct{}{}
		p.cur = <-p.in
		if p.cur == nil {
			return 0, io.EOF
		}
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// feed parses one line (which must end in a newline) and returns its
// events, appended to evs, or the reader's error.
func (p *parser) feed(line []byte, evs []logfmt.Event) ([]logfmt.Event, error) {
	p.in <- line
	for {
		select {
		case r, ok := <-p.out:
			if !ok {
				p.dead = true
				return evs, io.ErrUnexpectedEOF
			}
			if r.err != nil {
				p.dead = true
				return evs, r.err
			}
			evs = append(evs, r.ev)
		case <-p.idle:
			return evs, nil
		}
	}
}

// close ends the reader's goroutine.
func (p *parser) close() {
	if p.dead {
		return
	}
	p.dead = true
	p.in <- nil
	for range p.out {
	}
}
