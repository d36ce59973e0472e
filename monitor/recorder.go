package monitor

import (
	"context"
	"errors"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/multi"
	"github.com/satmon/satmon/internal/record"
)

// recorder is internal/record's recorder writing into a pipe that never
// blocks, read by the checker of logs (internal/multi, which honours
// ctx) in a goroutine of its own: the log's order is the recorder's, which
// never claims an order that did not happen (docs/recording.md).
type recorder struct {
	r    *record.Recorder
	pipe *record.Pipe
	done chan struct{}
	res  Result
	err  error
}

func newRecorder(ctx context.Context, obj Object, onViolation func(Result), c config) *recorder {
	p := record.NewPipe()
	rec := &recorder{r: record.New(p, h.Object(obj), c.Param), pipe: p, done: make(chan struct{})}
	var f func(multi.ObjectResult)
	if onViolation != nil {
		f = func(o multi.ObjectResult) { onViolation(fromObject(ctx, obj, &o, c, recordedOp)) }
	}
	go func() {
		defer close(rec.done)
		lr, err := multi.CheckMulti(ctx, p, logfmt.Native, logfmt.Options{Name: "<recorded>"}, multi.MultiOptions{Options: c.Opt, Workers: 1, Explain: c.Explain}, f)
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
