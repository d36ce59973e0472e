package monitor

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/multi"
	"github.com/satmon/satmon/internal/record"
	"github.com/satmon/satmon/monitor/logfmt"
)

// recorder is internal/record's recorder writing into a pipe that never
// blocks, read by the checker of logs (internal/multi, which honours
// ctx) in a goroutine of its own: the log's order is the recorder's, which
// never claims an order that did not happen (docs/recording.md).
type recorder struct {
	r    *record.Recorder
	pipe *pipe
	done chan struct{}
	res  Result
	err  error
}

func newRecorder(ctx context.Context, obj Object, onViolation func(Result), c config) *recorder {
	p := newPipe()
	rec := &recorder{r: record.New(p, h.Object(obj), c.param), pipe: p, done: make(chan struct{})}
	var f func(multi.ObjectResult)
	if onViolation != nil {
		f = func(o multi.ObjectResult) { onViolation(fromObject(ctx, obj, &o, c, recordedOp)) }
	}
	go func() {
		defer close(rec.done)
		lr, err := multi.CheckMulti(ctx, p, logfmt.Native, logfmt.Options{Name: "<recorded>"}, multi.MultiOptions{Options: c.opt, Workers: 1, Explain: c.explain}, f)
		rec.res, rec.err = fromLog(ctx, obj, lr, false, c, recordedOp), err
	}()
	return rec
}

func (rec *recorder) close() (Result, error) {
	err := rec.r.Close()
	rec.pipe.Close()
	<-rec.done
	return rec.res, errors.Join(err, rec.err)
}

// pipe is an in-memory pipe whose writes never block: what the reader has
// not taken yet is buffered without bound, so a slow check costs memory,
// not the program's time.
type pipe struct {
	mu     sync.Mutex
	more   sync.Cond
	buf    bytes.Buffer
	closed bool
}

func newPipe() *pipe {
	p := &pipe{}
	p.more.L = &p.mu
	return p
}

func (p *pipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, io.ErrClosedPipe
	}
	p.buf.Write(b)
	p.more.Signal()
	return len(b), nil
}

func (p *pipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.buf.Len() == 0 && !p.closed {
		p.more.Wait()
	}
	if p.buf.Len() == 0 {
		return 0, io.EOF
	}
	return p.buf.Read(b)
}

func (p *pipe) Close() {
	p.mu.Lock()
	p.closed = true
	p.more.Broadcast()
	p.mu.Unlock()
}
