package logfmt

import (
	"bufio"
	"bytes"
	"io"
)

// lineScanner is bufio.Scanner with bufio.ScanLines, written out for the
// reader: the same lines, the same errors at the same points (ErrTooLong
// once a line fills a buffer of max bytes, ErrBadReadCount, ErrNoProgress
// after 100 empty reads, a read error after the lines read before it),
// for the same sequence of reads. Every line of a log goes through it,
// and the general Scanner costs a call through its split function and
// its bookkeeping for other split functions at each.
// TestLineScannerAgrees compares the two.
type lineScanner struct {
	r          io.Reader
	max        int
	buf        []byte
	start, end int // buf[start:end] is read and not yet scanned
	err        error
	line       []byte
}

// maxEmptyReads is how many reads without data and without error the
// scanner tolerates in a row, as bufio.Scanner.
const maxEmptyReads = 100

func newLineScanner(r io.Reader, buf []byte, max int) *lineScanner {
	return &lineScanner{r: r, max: max, buf: buf[:cap(buf)]}
}

// Bytes is the line Scan found, without its "\n" or "\r\n"; it is valid
// until the next Scan.
func (s *lineScanner) Bytes() []byte { return s.line }

// Err is the error that stopped Scan, nil at the end of the input.
func (s *lineScanner) Err() error {
	if s.err == io.EOF {
		return nil
	}
	return s.err
}

func (s *lineScanner) setErr(err error) {
	if s.err == nil || s.err == io.EOF {
		s.err = err
	}
}

// Scan finds the next line; false at the end of the input or on error.
func (s *lineScanner) Scan() bool {
	for {
		if s.end > s.start || s.err != nil {
			data := s.buf[s.start:s.end]
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				s.start += i + 1
				s.line = dropCR(data[:i])
				return true
			}
			if s.err != nil && len(data) > 0 {
				// The last line, without a newline.
				s.start = s.end
				s.line = dropCR(data)
				return true
			}
		}
		if s.err != nil {
			s.start, s.end = 0, 0
			return false
		}
		if s.start > 0 && (s.end == len(s.buf) || s.start > len(s.buf)/2) {
			copy(s.buf, s.buf[s.start:s.end])
			s.end -= s.start
			s.start = 0
		}
		if s.end == len(s.buf) {
			const maxInt = int(^uint(0) >> 1)
			if len(s.buf) >= s.max || len(s.buf) > maxInt/2 {
				s.setErr(bufio.ErrTooLong)
				return false
			}
			n := len(s.buf) * 2
			if n == 0 {
				n = 4096
			}
			nb := make([]byte, min(n, s.max))
			copy(nb, s.buf[s.start:s.end])
			s.buf = nb
			s.end -= s.start
			s.start = 0
		}
		for empty := 0; ; {
			n, err := s.r.Read(s.buf[s.end:])
			if n < 0 || len(s.buf)-s.end < n {
				s.setErr(bufio.ErrBadReadCount)
				break
			}
			s.end += n
			if err != nil {
				s.setErr(err)
				break
			}
			if n > 0 {
				break
			}
			if empty++; empty > maxEmptyReads {
				s.setErr(io.ErrNoProgress)
				break
			}
		}
	}
}

// dropCR drops a terminal '\r', as bufio.ScanLines.
func dropCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}
