package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/explain"
	"github.com/satmon/satmon/internal/multi"

	"github.com/spf13/pflag"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
)

// multiFlags are check's flags for logs of many objects and foreign
// formats.
type multiFlags struct {
	inputFormat string
	workers     int
	xf          *explainFlags // --explain gives each violation its core
}

func defineMultiFlags(fs *pflag.FlagSet) *multiFlags {
	f := &multiFlags{}
	fs.StringVar(&f.inputFormat, "input-format", "auto", "format of the logs read: auto (recognised from the content), native, jepsen (Jepsen/etcd log lines), edn or json (event maps, one per line)")
	fs.IntVar(&f.workers, "workers", 0, "logs of many objects: goroutines checking objects (0: one per core)")
	return f
}

// validate checks the flags once, before any file is read.
func (f *multiFlags) validate() error {
	if _, err := logfmt.ParseFormat(f.inputFormat); err != nil {
		return err
	}
	if f.workers < 0 {
		return fmt.Errorf("--workers must not be negative")
	}
	return nil
}

// check handles the logs that are not a native log of one object — a
// native log declaring named objects, a Jepsen log, EDN or JSON event maps
// — printing a verdict per object and one for the log. It reports
// whether it handled the log; when it did not, br is untouched and the
// caller checks it as a log of one object.
func (f *multiFlags) check(ctx context.Context, br *bufio.Reader, prog *byteProgress, name string, obj history.Object, param string, opt engine.Options, finite bool, out *bufio.Writer, stderr io.Writer, asJSON, verbose bool) (handled bool, res engine.Result, err error) {
	if f == nil { // no multi-object flags: the defaults
		f = &multiFlags{inputFormat: "auto"}
	}
	format, _ := logfmt.ParseFormat(f.inputFormat)
	if format == logfmt.Auto {
		format = logfmt.Detect(br)
	}
	if format == logfmt.Native && !logfmt.NamedObjects(br) {
		return false, res, nil
	}
	explain := f.xf != nil && f.xf.explain
	p := multiPrinter{printer: printer{w: out, json: asJSON, verbose: verbose}, explain: explain, single: new(bool), prog: prog}
	prog.start(br.Buffered())
	lr, err := multi.CheckMulti(ctx, br, format,
		logfmt.Options{Name: name, Object: obj, Param: param},
		multi.MultiOptions{Options: opt, Workers: f.workers, Explain: explain || f.xf.pictures(), Finite: finite}, p.object)
	prog.Done()
	if ctx.Err() != nil {
		// An interrupt (Ctrl-C) cut the check short: what was proven
		// stands, the rest is undecided. A read it cut short is no
		// input error.
		p.interrupted = true
		err = interruptedLog(&lr, err)
	}
	if err != nil {
		// An input error reads as a native log's does (docs/format.md,
		// "Errors"): on stderr, and in JSON as the log's record.
		out.Flush()
		fmt.Fprintf(stderr, "satmon check: %v\n", err)
	}
	if lr.Skipped > 0 {
		out.Flush()
		tail := "; -v lists them"
		if verbose {
			tail = ":"
		}
		fmt.Fprintf(stderr, "satmon check: %s: skipped %d %s that hold no Jepsen event (other log lines, stack traces)%s\n",
			name, lr.Skipped, plural(lr.Skipped, "line"), tail)
		if verbose {
			for _, l := range lr.SkippedLines {
				fmt.Fprintf(stderr, "    %s:%d: %s\n", name, l.Line, l.Text)
			}
			if more := lr.Skipped - len(lr.SkippedLines); more > 0 {
				fmt.Fprintf(stderr, "    and %d more\n", more)
			}
		}
	}
	p.log(lr)
	if f.xf.pictures() && len(lr.Objects) > 0 {
		f.xf.drawLog(stderr, lr, opt)
	}
	return true, lr.Result, err
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// multiPrinter prints the verdicts of a log read as events of objects. A
// log whose only object is unnamed (a Jepsen history without keys) is a
// log of one object, and prints as a native one does: one record, the
// violation's as soon as it is proven, or the verdict at the end.
type multiPrinter struct {
	printer
	explain     bool  // print each violation's core
	single      *bool // the unnamed object's violation was printed as the log's record
	interrupted bool  // an interrupt stopped the check: the log was not read to its end
	prog        *byteProgress
}

// interruptedLog gives the verdict "interrupted" to lr and to every object
// of lr that the check did not decide (whose verdict the cancel made a
// timeout, or left ok though the rest of its log was not read), and
// returns what remains of err: nil when the interrupt alone ended the read.
func interruptedLog(lr *multi.LogResult, err error) error {
	if err != nil && lr.Verdict == engine.Error && lr.Steps == 0 && len(lr.Objects) == 0 {
		err = nil // the interrupt came while the log's header was awaited
		lr.Error = ""
	}
	undecided := func(v engine.Verdict) bool {
		return v == engine.Timeout || v == engine.OK
	}
	for i := range lr.Objects {
		if undecided(lr.Objects[i].Verdict) {
			lr.Objects[i].Verdict = interrupted
		}
	}
	if undecided(lr.Verdict) || lr.Verdict == engine.Error && err == nil {
		lr.Verdict = interrupted
	}
	return err
}

// object prints one object's verdict; it is called as soon as a
// violation is proven, and at the end for the others.
func (p multiPrinter) object(r multi.ObjectResult) {
	p.prog.Clear() // the progress shares the terminal; it is drawn again
	defer p.w.Flush()
	if r.Name == "" && r.Verdict == engine.Violation {
		*p.single = true
		p.print(r.Result)
		p.explainText(r)
		return
	}
	if !p.verbose {
		r.Stats = nil
	}
	if p.json {
		r.Exact = exactVerdict(r.Verdict, r.Exact)
		p.encode(struct {
			Record string `json:"record"`
			multi.ObjectResult
		}{"object", r})
		return
	}
	who := "object " + r.Name + " (" + r.Object + ")"
	if r.Name == "" {
		who = r.Object
	}
	switch r.Verdict {
	case engine.Violation:
		fmt.Fprintf(p.w, "%s: %s: violation at step %d of the object (line %d, return of [%s]); %s, %d operations\n",
			r.File, who, *r.ViolationStep, r.ViolationLine, r.ViolationOp, r.Algorithm, r.Operations)
		p.explainText(r)
	case engine.Timeout:
		fmt.Fprintf(p.w, "%s: %s: timeout after %d steps\n", r.File, who, r.Steps)
	case interrupted:
		fmt.Fprintf(p.w, "%s: %s: interrupted, no violation in its first %d steps, %d %s\n", r.File, who, r.Steps, r.Operations, plural(r.Operations, "operation"))
	case engine.Error:
		fmt.Fprintf(p.w, "%s: %s: error: %s\n", r.File, who, r.Error)
	default:
		fmt.Fprintf(p.w, "%s: %s: %s in %d steps, %d operations\n", r.File, who, okWords(r.Exact), r.Steps, r.Operations)
	}
	if p.verbose && r.Stats != nil {
		s := r.Stats
		fmt.Fprintf(p.w, "    checks %d, propagations %d, window max %d mean %.1f, removed %d, restarts %d\n",
			s.Checks, s.Propagations, s.MaxWindow, s.MeanWindow, s.Removed, r.Restarts)
	}
}

func (p multiPrinter) explainText(r multi.ObjectResult) {
	if p.explain && !p.json && r.Explanation != nil {
		var deriv []string // as for a log of one object (explainFlags.derivation)
		if x := r.Explanation; r.Verdict == engine.Violation && len(x.Core) > 0 {
			var err error
			if deriv, err = explain.Derive(x.History, x.Core); err != nil {
				deriv = []string{"no derivation: " + err.Error()}
			}
		}
		for _, l := range explainText(r.Result, r.Explanation, deriv) {
			fmt.Fprintf(p.w, "    %s\n", l)
		}
	}
}

// oneObject reports whether a log's objects are its one unnamed object,
// or whether it failed before any object was known: its record is then
// a log of one object's.
func oneObject(lr multi.LogResult) bool {
	return len(lr.Objects) == 0 && lr.Verdict == engine.Error || len(lr.Objects) == 1 && lr.Objects[0].Name == ""
}

// log prints the verdicts not yet printed (all but the violations) and
// the log's.
func (p multiPrinter) log(lr multi.LogResult) {
	defer p.w.Flush()
	if oneObject(lr) {
		if *p.single {
			return // the violation, printed as it was proven, is the record
		}
		r := lr.Result
		if len(lr.Objects) == 1 {
			r = lr.Objects[0].Result
			r.Seconds = lr.Seconds
			if lr.Verdict == engine.Timeout || lr.Verdict == interrupted {
				r.Verdict = lr.Verdict
			}
		}
		if lr.Verdict == engine.Error {
			r.Verdict, r.Error = engine.Error, lr.Error
		}
		p.printSkipped(r, lr.Skipped)
		return
	}
	if p.json {
		if !p.verbose {
			for i := range lr.Objects {
				lr.Objects[i].Stats = nil
			}
		}
		lr.Exact = exactVerdict(lr.Verdict, lr.Exact)
		for i := range lr.Objects {
			lr.Objects[i].Exact = exactVerdict(lr.Objects[i].Verdict, lr.Objects[i].Exact)
		}
		if lr.Objects == nil {
			lr.Objects = []multi.ObjectResult{} // "objects": [], not null
		}
		p.encode(struct {
			Record string `json:"record"`
			multi.LogResult
		}{"log", lr})
		return
	}
	var bad []string
	undecided := 0
	for _, o := range lr.Objects {
		if o.Verdict == interrupted || o.Verdict == engine.Timeout {
			undecided++
		}
		if o.Verdict == engine.Violation {
			bad = append(bad, o.Name)
			continue
		}
		if lr.Error == "" {
			p.object(o) // after an input error, only the violations stand
		}
	}
	dur := time.Duration(lr.Seconds * float64(time.Second)).Round(time.Microsecond)
	tail := fmt.Sprintf("%s, %d workers, %d objects, %d steps, %d operations, %v", lr.Algorithm, lr.Workers, len(lr.Objects), lr.Steps, lr.Operations, dur)
	switch lr.Verdict {
	case engine.Violation:
		names := strings.Join(bad, ", ")
		if len(bad) > 10 {
			names = strings.Join(bad[:10], ", ") + ", ..."
		}
		first := lr.ViolationObject
		if first == "" {
			first = lr.Object
		}
		stopped := ""
		if p.interrupted {
			stopped = fmt.Sprintf("; interrupted after %d steps, the rest of the log not read, %d %s undecided", lr.Steps, undecided, plural(undecided, "object"))
		}
		fmt.Fprintf(p.w, "%s: violation: %d of %d objects (%s); first proven at step %d of the log (line %d, object %s)%s; %s\n",
			lr.File, len(bad), len(lr.Objects), names, *lr.ViolationStep, lr.ViolationLine, first, stopped, tail)
	case engine.Timeout:
		fmt.Fprintf(p.w, "%s: timeout after %d steps; %s\n", lr.File, lr.Steps, tail)
	case interrupted:
		fmt.Fprintf(p.w, "%s: interrupted, no violation in the first %d steps (the rest of the log not read, %d of %d objects undecided); %s\n",
			lr.File, lr.Steps, undecided, len(lr.Objects), tail)
	case engine.Error:
		// Said on stderr (multiFlags.check), as for every format.
	default:
		how := ""
		if !lr.Exact {
			how = "; " + lr.Algorithm + " can miss violations, " + decider(lr.Algorithm)
		}
		fmt.Fprintf(p.w, "%s: %s (%d steps%s); %s\n", lr.File, okWords(lr.Exact), lr.Steps, how, tail)
	}
	if p.verbose {
		fmt.Fprintf(p.w, "    monitors dropped when idle %d, parked %d, most alive at once %d\n", lr.Dropped, lr.Parked, lr.MaxLive)
	}
}

// okWords says what an ok proves: linearizable from an exact variant, no
// violation found otherwise.
func okWords(exact bool) string {
	if exact {
		return "ok, linearizable"
	}
	return "ok, no violation found"
}
