//go:build linux

package multi

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/satmon/satmon/internal/engine"

	"github.com/satmon/satmon/internal/testhist"

	"github.com/anishathalye/porcupine"

	"github.com/satmon/satmon/internal/gen"
	"github.com/satmon/satmon/internal/logfmt"
)

// BenchmarkRegisterTable prints satmon (the default variant, and -a
// symbolic) beside Porcupine (the etcd and key-value models of its own
// test suite, porcupine_real_test.go) on register histories: generated
// compare-and-set register logs (Jepsen log lines, gen.Jepsen) of 1,000,
// 4,000 and 20,000 operations with 8, 16 and 20 clients, linearizable and
// with one stale read; and the totals over ../shared/data/jepsen-etcd and
// porcupine-kv. Each cell is one run in a child process (this test binary
// again, TestRegisterBenchChild): its CPU time (user + system) and peak
// resident memory (the child's whole process, the test binary included),
// and its verdict, flagged "WRONG" when it is not the history's and
// "(not exact)" when an ok is no proof. A run that
// passes the time limit is killed and shown as "timeout", one whose
// resident memory passes the memory limit as "out of memory", so that
// the table always finishes. The checkers run one after another, row by
// row, in the same run.
//
//	SATMON_BENCH_REGISTER=1 go test ./internal/multi -run '^$' -bench RegisterTable -benchtime 1x -timeout 0
//
// (make bench-register). The time limit is on the wall clock. Without SATMON_BENCH_REGISTER it is skipped, so
// that make bench stays short.
// SATMON_BENCH_LIMIT (a duration, default 60s) and SATMON_BENCH_MEM (MB,
// default 4096) set the limits; SATMON_BENCH_OPS (a list such as
// "1000,4000") and SATMON_BENCH_CLIENTS choose the rows.
func BenchmarkRegisterTable(b *testing.B) {
	if os.Getenv("SATMON_BENCH_REGISTER") == "" {
		b.Skip("set SATMON_BENCH_REGISTER=1 (make bench-register): it runs for up to an hour")
	}
	limit := 60 * time.Second
	if d, err := time.ParseDuration(os.Getenv("SATMON_BENCH_LIMIT")); err == nil && d > 0 {
		limit = d
	}
	memMB := 4096
	if v, err := strconv.Atoi(os.Getenv("SATMON_BENCH_MEM")); err == nil && v > 0 {
		memMB = v
	}
	ints := func(env string, def []int) []int {
		s := os.Getenv(env)
		if s == "" {
			return def
		}
		var out []int
		for _, f := range strings.Split(s, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("%s: %v", env, err)
			}
			out = append(out, v)
		}
		return out
	}
	opsList := ints("SATMON_BENCH_OPS", []int{1000, 4000, 20000})
	clientList := ints("SATMON_BENCH_CLIENTS", []int{8, 16, 20})
	dir := b.TempDir()
	checkers := []string{"satmon", "symbolic", "porcupine"}
	var out strings.Builder
	fmt.Fprintf(&out, "\nRegister histories: satmon beside Porcupine (CPU time, peak RSS of the child process, verdict); limits %v and %d MB per run\n", limit, memMB)
	fmt.Fprintf(&out, "generated: cas-register, values 0-99, 50%% reads, 25%% cas, 1%% :info (gen.Jepsen)\n\n")
	fmt.Fprintf(&out, "| history | satmon (default) | satmon -a symbolic | Porcupine 1.3.1 |\n|---|---|---|---|\n")
	for _, ops := range opsList {
		for _, clients := range clientList {
			for _, stale := range []bool{false, true} {
				cfg := gen.JepsenConfig{Ops: ops, Clients: clients, Values: 100, Reads: 0.5, CAS: 0.25, Info: 0.01, Stale: stale, Seed: int64(ops + clients)}
				var buf bytes.Buffer
				if err := gen.Jepsen(cfg, &buf); err != nil {
					b.Fatal(err)
				}
				path := filepath.Join(dir, fmt.Sprintf("g-%d-%d-%v.log", ops, clients, stale))
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					b.Fatal(err)
				}
				want := "ok"
				name := fmt.Sprintf("%d ops, %d clients", ops, clients)
				if stale {
					want, name = "violation", name+", stale read"
				}
				fmt.Fprintf(&out, "| %s |", name)
				for _, c := range checkers {
					fmt.Fprintf(&out, " %s |", runChild(b, c, path, want, limit, memMB))
				}
				out.WriteString("\n")
				b.Logf("%s done", name) // progress, for long runs
			}
		}
	}
	fmt.Fprintf(&out, "| jepsen-etcd + porcupine-kv (totals) |")
	for _, c := range checkers {
		fmt.Fprintf(&out, " %s |", runChild(b, c, "real", "", limit, memMB))
	}
	out.WriteString("\n")
	fmt.Print(out.String())
}

// runChild runs one checker on one history in a child process and gives
// the table cell.
func runChild(b *testing.B, checker, path, want string, limit time.Duration, memMB int) string {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRegisterBenchChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SATMON_REGBENCH="+checker+":"+path)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	killed := make(chan string, 1)
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(limit)
		for {
			select {
			case <-done:
				return
			case <-deadline:
				killed <- "timeout"
				cmd.Process.Kill()
				return
			case <-tick.C:
				if rss := rssKB(cmd.Process.Pid); rss > memMB*1024 {
					killed <- "out of memory"
					cmd.Process.Kill()
					return
				}
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var cpu time.Duration
	var peak int64
	if ru != nil {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		peak = ru.Maxrss // KB on Linux
	}
	select {
	case why := <-killed:
		return fmt.Sprintf("%s (%.1f s, %d MB)", why, cpu.Seconds(), peak/1024)
	default:
	}
	verdict := ""
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "REGBENCH "); ok {
			verdict = v
		}
	}
	if err != nil || verdict == "" {
		return fmt.Sprintf("error: %v %q", err, lastLine(stdout.String()))
	}
	if want != "" && strings.TrimSuffix(verdict, " (not exact)") != want {
		verdict = "WRONG: " + verdict
	}
	return fmt.Sprintf("%.2f s, %d MB, %s", cpu.Seconds(), peak/1024, verdict)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// rssKB reads a process's resident memory from /proc, 0 if it cannot.
func rssKB(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return kb
		}
	}
	return 0
}

// TestRegisterBenchChild is BenchmarkRegisterTable's child: it checks
// one history (or, for "real", every history of jepsen-etcd and
// porcupine-kv, failing on a verdict other than verdicts.tsv's) with one
// checker and prints the verdict. It does nothing unless run as the child.
func TestRegisterBenchChild(t *testing.T) {
	job := os.Getenv("SATMON_REGBENCH")
	if job == "" {
		t.Skip("BenchmarkRegisterTable's child process")
	}
	checker, path, _ := strings.Cut(job, ":")
	// An ok that is not a proof says so: "ok (not exact)".
	run := func(data []byte, kv bool) string {
		switch checker {
		case "porcupine":
			model, parse := etcdModel, parseJepsenLog
			if kv {
				model, parse = kvModel, parseKvLog
			}
			if porcupine.CheckEvents(model, parse(data)) {
				return string(engine.OK)
			}
			return string(engine.Violation)
		case "satmon", "symbolic":
			opt := engine.DefaultOptions()
			if checker == "symbolic" {
				opt = engine.Options{Algorithm: engine.Symbolic}
			}
			res, err := CheckMulti(context.Background(), bytes.NewReader(data), logfmt.Auto, logfmt.Options{Name: path},
				MultiOptions{Options: opt, Workers: 1, Finite: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict == engine.OK && !res.Exact {
				return "ok (not exact)"
			}
			return string(res.Verdict)
		}
		t.Fatalf("unknown checker %q", checker)
		return ""
	}
	if path != "real" {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("REGBENCH %s\n", run(data, false))
		return
	}
	agree, inexact, n := 0, 0, 0
	for _, set := range realSets {
		for _, f := range testhist.RealFiles(t, set.name) {
			n++
			got := run(f.Data, set.name == "porcupine-kv")
			if got == "ok (not exact)" {
				inexact++
				got = string(engine.OK)
			}
			if got == f.Verdict {
				agree++
			}
		}
	}
	fmt.Printf("REGBENCH %d of %d verdicts agree, %d ok not exact\n", agree, n, inexact)
}
