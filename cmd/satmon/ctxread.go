package main

import (
	"context"
	"errors"
	"io"
)

// errInterrupted is what a read of a live input returns once an interrupt
// (Ctrl-C) has cancelled the check.
var errInterrupted = errors.New("interrupted")

// ctxReader reads r until ctx is done, then returns errInterrupted at once,
// even while r waits for input. An interrupt thus ends the check of a log
// of many objects, whose reader is not the interrupt handler's to print
// from (checker.interrupt): it returns what it has, which is then
// printed. A goroutine reads r, one chunk at each Read that finds none
// left, so that r is not read ahead of its consumer (who may stop, as
// --exit-on-violation does, and leave the rest unread); after an
// interrupt it is left waiting on r, when satmon is about to exit.
type ctxReader struct {
	ctx     context.Context
	r       io.Reader
	req     chan struct{}
	chunks  chan chunk
	started bool
	rest    []byte
	err     error
}

type chunk struct {
	b   []byte
	err error
}

// readChunk is the size of the chunks read.
const readChunk = 32 << 10

func newCtxReader(ctx context.Context, r io.Reader) *ctxReader {
	return &ctxReader{ctx: ctx, r: r, req: make(chan struct{}), chunks: make(chan chunk)}
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if len(c.rest) == 0 && c.err == nil {
		if !c.started {
			c.started = true
			go c.pump()
		}
		select {
		case c.req <- struct{}{}:
		case <-c.ctx.Done():
			return 0, errInterrupted
		}
		select {
		case ch := <-c.chunks:
			c.rest, c.err = ch.b, ch.err
		case <-c.ctx.Done():
			return 0, errInterrupted
		}
	}
	if len(c.rest) > 0 {
		n := copy(p, c.rest)
		c.rest = c.rest[n:]
		return n, nil
	}
	return 0, c.err
}

// pump reads a chunk of r at each request. Its buffer is reused: the
// next request comes once the last chunk is consumed.
func (c *ctxReader) pump() {
	buf := make([]byte, readChunk)
	for {
		select {
		case <-c.req:
		case <-c.ctx.Done():
			return
		}
		n, err := c.r.Read(buf)
		select {
		case c.chunks <- chunk{buf[:n], err}:
		case <-c.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}
