// Command satmon monitors call/return logs of concurrent objects and reports
// linearizability (observational-refinement) violations as soon as they are
// proven.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
)

// Exit codes shared by every sub-command. Over several inputs the worst
// wins, in the order violation, usage or input error, undecided: a
// violation is never hidden by a bad file or a timeout.
const (
	exitOK        = 0 // no violation
	exitViolation = 1 // a violation was found
	exitUsage     = 2 // bad usage or bad input
	exitUndecided = 3 // no violation found, but some history is undecided (timeout, interrupt)
)

// command is one sub-command; each lives in its own file and registers
// itself from init, so sub-commands can be added without touching main.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "version") {
		fmt.Fprintf(stdout, "satmon %s\n", version())
		return exitOK
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return c.run([]string{"--help"}, stdin, stdout, stdout)
			}
		}
		if len(args) == 0 {
			usage(stderr) // no command: a usage error
			return exitUsage
		}
		usage(stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "satmon: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	if wantsHelp(args[1:]) {
		// Help asked for is output, not an error: it goes to stdout.
		stderr = stdout
	}
	return c.run(args[1:], stdin, stdout, stderr)
}

// wantsHelp reports whether a sub-command's arguments ask for its help
// (before any "--", which ends the flags).
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "--help", "-help":
			return true
		}
	}
	return false
}

// version is the module version and VCS revision the binary was built
// from, as the Go toolchain recorded them.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown version: built without module information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, when, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += fmt.Sprintf(" (%s %s%s)", rev, when, dirty)
	}
	return v + " " + bi.GoVersion
}

func usage(w io.Writer) {
	fmt.Fprint(w, `satmon watches the call/return log of a concurrent object and reports,
as soon as it can be proven, that the log is impossible for the atomic
(linearizable) version of that object.

Usage:
  satmon <command> [flags] [arguments]

Commands:
`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, `
Run 'satmon <command> --help' for a command's flags and examples;
'satmon --version' prints the version.
Exit codes: 0 no violation, 1 violation found, 2 usage or input error,
3 undecided (timeout). Over several files: 1 beats 2, which beats 3.
`)
}
