package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/monitor"
	"github.com/satmon/satmon/monitor/logfmt"
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
func (f *multiFlags) check(ctx context.Context, br *bufio.Reader, name string, obj history.Object, param string, opt monitor.Options, out *bufio.Writer, stderr io.Writer, asJSON, verbose bool) (handled bool, res monitor.Result, err error) {
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
	p := multiPrinter{w: out, json: asJSON, verbose: verbose, explain: explain}
	lr, err := monitor.CheckMulti(ctx, br, format,
		logfmt.Options{Name: name, Object: obj, Param: param},
		monitor.MultiOptions{Options: opt, Workers: f.workers, Explain: explain || f.xf.pictures()}, p.object)
	if err != nil {
		out.Flush()
		fmt.Fprintf(stderr, "%v\n", err)
	}
	p.log(lr)
	if f.xf.pictures() && len(lr.Objects) > 0 {
		f.xf.drawLog(stderr, lr, opt)
	}
	return true, lr.Result, err
}

type multiPrinter struct {
	w       *bufio.Writer
	json    bool
	verbose bool
	explain bool // print each violation's core
}

// object prints one object's verdict; it is called as soon as a
// violation is proven, and at the end for the others.
func (p multiPrinter) object(r monitor.ObjectResult) {
	defer p.w.Flush()
	if !p.verbose {
		r.Stats = nil
	}
	if p.json {
		b, _ := json.Marshal(struct {
			Record string `json:"record"`
			monitor.ObjectResult
		}{"object", r})
		p.w.Write(b)
		p.w.WriteString("\n")
		return
	}
	who := "object " + r.Name + " (" + r.Object + ")"
	if r.Name == "" {
		who = r.Object
	}
	switch r.Verdict {
	case monitor.Violation:
		fmt.Fprintf(p.w, "%s: %s: violation at step %d of the object (line %d, return of [%s]); %s, %d operations\n",
			r.File, who, *r.ViolationStep, r.ViolationLine, r.ViolationOp, r.Algorithm, r.Operations)
		if p.explain && r.Explanation != nil {
			for _, l := range explainText(r.Result, r.Explanation, nil) {
				fmt.Fprintf(p.w, "    %s\n", l)
			}
		}
	case monitor.Timeout:
		fmt.Fprintf(p.w, "%s: %s: timeout after %d steps\n", r.File, who, r.Steps)
	case monitor.Error:
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

// log prints the verdicts not yet printed (all but the violations) and
// the log's.
func (p multiPrinter) log(lr monitor.LogResult) {
	defer p.w.Flush()
	if p.json {
		if !p.verbose {
			for i := range lr.Objects {
				lr.Objects[i].Stats = nil
			}
		}
		b, _ := json.Marshal(struct {
			Record string `json:"record"`
			monitor.LogResult
		}{"log", lr})
		p.w.Write(b)
		p.w.WriteString("\n")
		return
	}
	var bad []string
	for _, o := range lr.Objects {
		if o.Verdict == monitor.Violation {
			bad = append(bad, o.Name)
			continue
		}
		if lr.Verdict != monitor.Error {
			p.object(o) // after an input error, only the violations stand
		}
	}
	dur := time.Duration(lr.Seconds * float64(time.Second)).Round(time.Microsecond)
	tail := fmt.Sprintf("%s, %d workers, %d objects, %d steps, %d operations, %v", lr.Algorithm, lr.Workers, len(lr.Objects), lr.Steps, lr.Operations, dur)
	switch lr.Verdict {
	case monitor.Violation:
		names := strings.Join(bad, ", ")
		if len(bad) > 10 {
			names = strings.Join(bad[:10], ", ") + ", ..."
		}
		first := lr.ViolationObject
		if first == "" {
			first = lr.Object
		}
		fmt.Fprintf(p.w, "%s: violation: %d of %d objects (%s); first proven at step %d of the log (line %d, object %s); %s\n",
			lr.File, len(bad), len(lr.Objects), names, *lr.ViolationStep, lr.ViolationLine, first, tail)
	case monitor.Timeout:
		fmt.Fprintf(p.w, "%s: timeout after %d steps; %s\n", lr.File, lr.Steps, tail)
	case monitor.Error:
		fmt.Fprintf(p.w, "%s: error: %s\n", lr.File, lr.Error)
	default:
		how := ""
		if !lr.Exact {
			how = "; " + lr.Algorithm + " can miss violations, -a symbolic decides"
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
