package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/satmon/satmon/internal/gen"
	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
)

// genMultiFlags are gen's flags for logs of many objects.
type genMultiFlags struct {
	objects int
	active  int
	drain   bool
}

func defineGenMultiFlags(fs *pflag.FlagSet) *genMultiFlags {
	f := &genMultiFlags{}
	fs.IntVar(&f.objects, "objects", 0, "write a log of this many named objects (o1, o2, ...), interleaved; --object may then list kinds (queue,stack,...) or say all; --ops is per object")
	fs.IntVar(&f.active, "active", 64, "with --objects: most objects under way at once; when one ends the next starts")
	fs.BoolVar(&f.drain, "drain", false, "end each object's history in a state a fresh monitor starts from (empty, free, last write known), so that a checker may forget it")
	return f
}

// write writes a log of many objects; it is gen's path for --objects.
func (m *genMultiFlags) write(f *genFlags, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "satmon gen: %v\n", err)
		return exitUsage
	}
	if f.impl != "" {
		return fail(fmt.Errorf("--objects does not go with --impl"))
	}
	var kinds []history.Object
	switch strings.ToLower(f.object) {
	case "":
		return fail(fmt.Errorf("--object is required: a kind, a list of kinds, or all"))
	case "all":
		kinds = history.Objects
	default:
		for _, s := range strings.Split(f.object, ",") {
			k, ok := history.ParseObject(s)
			if !ok {
				return fail(fmt.Errorf("unknown object %q", s))
			}
			kinds = append(kinds, k)
		}
	}
	specs := make([]gen.ObjectSpec, m.objects)
	for i := range specs {
		specs[i] = gen.ObjectSpec{Name: fmt.Sprintf("o%d", i+1), Config: gen.Config{
			Object: kinds[i%len(kinds)], Ops: f.ops, Concurrency: f.concurrency, Capacity: f.capacity,
			Pending: f.pending, Seed: f.seed*1_000_003 + int64(i), Mutate: f.mutate, Values: f.values, Drain: m.drain}}
	}
	out := stdout
	if f.output != "" && f.output != "-" {
		fh, err := os.Create(f.output)
		if err != nil {
			return fail(err)
		}
		defer fh.Close()
		out = fh
	}
	w := bufio.NewWriterSize(out, 64<<10)
	var buf []byte
	err := gen.Interleave(specs, m.active, f.seed, func(e gen.MultiEvent) error {
		s := &specs[e.Object]
		if e.Declare {
			buf = logfmt.AppendDecl(buf[:0], s.Name, s.Config.Object, s.Config.Param())
		} else {
			buf = logfmt.AppendNamedAction(buf[:0], s.Name, s.Config.Object, e.Action)
		}
		buf = append(buf, '\n')
		_, err := w.Write(buf)
		return err
	})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return fail(err)
	}
	return exitOK
}
