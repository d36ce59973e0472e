package kafka

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/monitor"
	"github.com/satmon/satmon/monitor/record"
)

// Recorder records the operations of one object of a running Go program
// to a Kafka topic, for `satmon consume` to check live: the sibling of
// monitor.NewRecorder for a system whose checker runs elsewhere. It is a
// record.Recorder (wrap each operation with Call and Return, as
// docs/recording.md shows), so the order it records never claims an
// order that did not happen; each action becomes one record, keyed by the
// object's name, in the native format of a log of named objects: the
// first record declares the object ('# @object NAME KIND PARAM'), and the
// others are '[NAME/ID] call NAME.method(ARGS)' and '[NAME/ID] return
// VALUE' — ids carry the name, so that objects sharing a partition never
// share an id.
//
// Records are produced asynchronously through cl, in order (one key, one
// partition); the program never waits for the broker except at Flush
// and Close. Use one Recorder per object, all sharing one client.
type Recorder struct {
	*record.Recorder
	w *producerWriter
}

// NewRecorder starts recording object name, of kind obj with parameter
// param, to topic through cl. The name must be a valid object name of
// the native format: a value token without '.', not a kind's name.
func NewRecorder(cl *kgo.Client, topic, name string, obj monitor.Object, param string) *Recorder {
	w := &producerWriter{cl: cl, topic: topic, name: name}
	w.produce(logfmt.AppendDecl(nil, name, history.Object(obj), param))
	return &Recorder{Recorder: record.New(w, obj, param), w: w}
}

// Flush writes out the actions recorded so far and waits until the
// broker has them.
func (r *Recorder) Flush(ctx context.Context) error {
	err := r.Recorder.Flush()
	return errors.Join(err, r.w.flush(ctx))
}

// Close closes the recorder (record.Recorder.Close) and waits until the
// broker has every record. It does not close the client.
func (r *Recorder) Close(ctx context.Context) error {
	err := r.Recorder.Close()
	return errors.Join(err, r.w.flush(ctx))
}

// producerWriter turns the lines record writes into records: it drops the
// header of a log of one object (the declaration replaces it) and names
// the object in each action.
type producerWriter struct {
	cl    *kgo.Client
	topic string
	name  string
	part  []byte // a line not finished yet
	mu    sync.Mutex
	err   error
}

func (w *producerWriter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			w.part = append(w.part, b...)
			break
		}
		line := b[:i]
		if len(w.part) > 0 {
			line = append(w.part, line...)
			w.part = w.part[:0]
		}
		b = b[i+1:]
		w.line(line)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return n, w.err
}

// line produces one line of a log of one object, rewritten for the
// object's name: "[ID] call m(A)" becomes "[NAME/ID] call NAME.m(A)".
func (w *producerWriter) line(l []byte) {
	if len(l) == 0 || l[0] != '[' {
		return // the header
	}
	end := bytes.IndexByte(l, ']')
	if end < 0 {
		return // record never writes such a line
	}
	out := make([]byte, 0, len(l)+2*len(w.name)+2)
	out = append(out, '[')
	out = append(out, w.name...)
	out = append(out, '/')
	out = append(out, l[1:end+1]...)
	rest := l[end+1:]
	if c := []byte(" call "); bytes.HasPrefix(rest, c) {
		out = append(out, c...)
		out = append(out, w.name...)
		out = append(out, '.')
		out = append(out, rest[len(c):]...)
	} else {
		out = append(out, rest...)
	}
	w.produce(out)
}

func (w *producerWriter) produce(v []byte) {
	r := &kgo.Record{Topic: w.topic, Key: []byte(w.name), Value: v}
	w.cl.Produce(context.Background(), r, func(_ *kgo.Record, err error) {
		if err != nil {
			w.mu.Lock()
			if w.err == nil {
				w.err = err
			}
			w.mu.Unlock()
		}
	})
}

func (w *producerWriter) flush(ctx context.Context) error {
	err := w.cl.Flush(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	return errors.Join(err, w.err)
}
