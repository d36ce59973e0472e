package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/satmon/satmon/internal/engine"

	"github.com/spf13/pflag"

	"github.com/satmon/satmon/encode"
	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/theory"
)

func init() {
	register(&command{name: "encode", summary: "write a history's grounded CNF in DIMACS, for any SAT solver", run: runEncode})
}

func runEncode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("encode", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	objName := fs.String("object", "", "object of a log that names none with '# @object'")
	param := fs.String("param", "", "object parameter with --object: semaphore capacity or register initial value")
	out := fs.StringP("output", "o", "", "write to this file instead of stdout")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: satmon encode [flags] FILE

Grounds STRONGER(h) ∧ G(THEORY(H)) (the paper's §4) over the whole history
in FILE (- for stdin) and writes it in DIMACS CNF. Comment lines name every
variable ("c 17 b(o3,o7)": operation o3 is linearized before o7; used(o),
match(o1,o2), ret(o)=v for pending operations, aux for Tseitin helpers).
The CNF is satisfiable iff the history is linearizable.

Examples:
  satmon encode testdata/stack/figure11-h2.log > fig11.cnf
  satmon encode testdata/queue/fifo-pending.log | minisat /dev/stdin

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "satmon encode: %v\nRun 'satmon encode --help' for usage.\n", err)
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	var obj history.Object
	if *objName != "" {
		var ok bool
		if obj, ok = history.ParseObject(*objName); !ok {
			fmt.Fprintf(stderr, "satmon encode: unknown object %q\n", *objName)
			return exitUsage
		}
	}
	name := fs.Arg(0)
	var r io.Reader = stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "satmon encode: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		r = f
	} else {
		name = "<stdin>"
	}
	hist, err := logfmt.ReadHistory(r, logfmt.Options{Name: name, Object: obj, Param: *param})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	k, err := theory.KernelOf(hist.Object, hist.Param)
	if err != nil {
		fmt.Fprintf(stderr, "satmon encode: %v\n", err)
		return exitUsage
	}
	cnf := &encode.CNF{}
	enc := engine.EncodeHistoryNamed(k, hist, cnf)
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintf(stderr, "satmon encode: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		w = f
	}
	header := []string{
		fmt.Sprintf("satmon encode %s: %s, %d operations", name, hist.Object, len(hist.Ops)),
		"operation oN is the N-th call of the log (o0: the register's initial write)",
	}
	if err := cnf.WriteDIMACS(w, header, enc.VarName); err != nil {
		fmt.Fprintf(stderr, "satmon encode: %v\n", err)
		return exitUsage
	}
	return exitOK
}
