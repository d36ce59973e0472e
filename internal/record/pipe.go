package record

import (
	"bytes"
	"io"
	"sync"
)

// Pipe is an in-memory pipe whose writes never block: what the reader
// has not taken yet is buffered without bound, so a slow check of a
// recorded log costs memory, not the recorded program's time.
type Pipe struct {
	mu     sync.Mutex
	more   sync.Cond
	buf    bytes.Buffer
	closed bool
}

// NewPipe returns an empty open pipe.
func NewPipe() *Pipe {
	p := &Pipe{}
	p.more.L = &p.mu
	return p
}

func (p *Pipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, io.ErrClosedPipe
	}
	p.buf.Write(b)
	p.more.Signal()
	return len(b), nil
}

func (p *Pipe) Read(b []byte) (int, error) {
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

// Close ends the pipe: reads return what is buffered, then io.EOF.
func (p *Pipe) Close() {
	p.mu.Lock()
	p.closed = true
	p.more.Broadcast()
	p.mu.Unlock()
}
