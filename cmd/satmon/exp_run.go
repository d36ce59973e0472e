package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/progress"
)

// expHistory is one input of an experiment: its name (a path relative to
// the data directory, or a generated name), the parsed history and the
// log's bytes, kept so that --save-histories writes exactly what was
// measured.
type expHistory struct {
	Name  string
	Hist  *history.History
	Raw   []byte
	Steps int // call and return actions
}

func newExpHistory(name string, raw []byte) (*expHistory, error) {
	h, err := logfmt.ReadHistory(bytes.NewReader(raw), logfmt.Options{Name: name})
	if err != nil {
		return nil, err
	}
	return &expHistory{Name: name, Hist: h, Raw: raw, Steps: h.Steps()}, nil
}

func readExpHistory(dir, rel string) (*expHistory, error) {
	raw, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		return nil, err
	}
	return newExpHistory(rel, raw)
}

// job is one measurement: a history checked by one variant, once, up to
// the largest of its limits.
type job struct {
	H      *expHistory
	V      engine.Options
	Limits []time.Duration // increasing
}

func secondsOf(ls []time.Duration) []float64 {
	out := make([]float64, len(ls))
	for i, l := range ls {
		out[i] = l.Seconds()
	}
	return out
}

// runRecord is the outcome of one job. Within[k] is the number of steps
// that had completed by Limits[k]: the time of every step is taken in the
// one run, so each limit is read off the same execution.
type runRecord struct {
	Experiment       string    `json:"experiment"`
	History          string    `json:"history"`
	Variant          string    `json:"variant"`
	TotalSteps       int       `json:"total_steps"`
	Limits           []float64 `json:"limits_s"`
	Within           []int     `json:"steps_within"`
	Verdict          string    `json:"verdict"` // at the largest limit: ok, violation, timeout or error
	Steps            int       `json:"steps"`
	ViolationStep    int       `json:"violation_step,omitempty"`
	ViolationSeconds float64   `json:"violation_s,omitempty"`
	Seconds          float64   `json:"seconds"`
	Error            string    `json:"error,omitempty"`
}

// verdictAt is the verdict a run limited to Limits[k] would have given.
func (r *runRecord) verdictAt(k int) string {
	switch {
	case r.Verdict == string(engine.Error):
		return r.Verdict
	case r.Verdict == string(engine.Violation) && r.ViolationSeconds <= r.Limits[k]:
		return string(engine.Violation)
	case r.Within[k] >= r.TotalSteps:
		return string(engine.OK)
	}
	return string(engine.Timeout)
}

// measureJob checks j.H with j.V once, up to the largest limit, timing every
// step. A variant that finishes the history (or proves a violation) stops
// there.
func measureJob(exp string, j job) runRecord {
	maxL := j.Limits[len(j.Limits)-1]
	rec := runRecord{Experiment: exp, History: j.H.Name, Variant: j.V.Name(), TotalSteps: j.H.Steps, Limits: secondsOf(j.Limits)}
	opt := j.V
	opt.Timeout = maxL
	acts := engine.Actions(j.H.Hist)
	at := make([]time.Duration, 0, len(acts))
	m, err := engine.New(j.H.Hist.Object, j.H.Hist.Param, opt)
	if err != nil {
		rec.Verdict, rec.Error, rec.Within = string(engine.Error), err.Error(), make([]int, len(j.Limits))
		return rec
	}
	start := time.Now()
	for _, a := range acts {
		viol, err := m.Step(a)
		if err != nil {
			rec.Verdict, rec.Error = string(engine.Error), err.Error()
			break
		}
		if !viol && m.Done() {
			break // the limit expired during this step: it does not count
		}
		at = append(at, time.Since(start))
		if viol {
			break
		}
	}
	res := m.Result()
	rec.Seconds = time.Since(start).Seconds()
	rec.Steps = len(at)
	if rec.Verdict == "" {
		rec.Verdict = string(res.Verdict)
		if res.Verdict == engine.OK && len(at) < len(acts) {
			rec.Verdict = string(engine.Timeout)
		}
	}
	if res.Verdict == engine.Violation && res.ViolationStep != nil {
		rec.ViolationStep = *res.ViolationStep
		rec.ViolationSeconds = at[len(at)-1].Seconds()
	}
	rec.Within = make([]int, len(j.Limits))
	for k, l := range j.Limits {
		rec.Within[k] = sort.Search(len(at), func(i int) bool { return at[i] > l })
	}
	return rec
}

// runner runs jobs on a pool of workers, shows a progress bar on a
// terminal, appends every record to DIR/runs.jsonl as it completes (so an
// interrupted run keeps what it measured) and, with resume, reuses the
// records already there (see reuse).
type runner struct {
	exp     string
	workers int
	bar     io.Writer // where the progress bar goes (stderr)
	outDir  string
	resume  bool
	done    map[string][]runRecord // by history and variant
}

func (r *runner) loadDone() error {
	r.done = map[string][]runRecord{}
	if !r.resume || r.outDir == "" {
		return nil
	}
	f, err := os.Open(filepath.Join(r.outDir, "runs.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	line := 0
	for sc.Scan() {
		line++
		var rec runRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("%s:%d: %v", f.Name(), line, err)
		}
		if rec.Error != "" || len(rec.Within) != len(rec.Limits) {
			continue
		}
		k := rec.History + "|" + rec.Variant
		r.done[k] = append(r.done[k], rec)
	}
	return sc.Err()
}

// reuse answers j from a run already measured, by any experiment, on the
// same history with the same variant up to limits that include all of j's:
// the steps within each limit are read off that run as off a new one.
func (r *runner) reuse(j job) (runRecord, bool) {
	want := secondsOf(j.Limits)
	for _, rec := range r.done[j.H.Name+"|"+j.V.Name()] {
		idx := make([]int, len(want))
		ok := true
		for i, l := range want {
			if idx[i] = indexF(rec.Limits, l); idx[i] < 0 {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		out := rec
		out.Experiment = r.exp
		out.Limits = want
		out.Within = make([]int, len(want))
		for i, k := range idx {
			out.Within[i] = rec.Within[k]
		}
		last := idx[len(idx)-1]
		out.Verdict = rec.verdictAt(last)
		out.Steps = out.Within[len(want)-1]
		out.Seconds = min(rec.Seconds, want[len(want)-1])
		if out.Verdict != string(engine.Violation) {
			out.ViolationStep, out.ViolationSeconds = 0, 0
		}
		return out, true
	}
	return runRecord{}, false
}

// run measures every job and returns the records in job order.
func (r *runner) run(jobs []job) ([]runRecord, error) {
	if err := r.loadDone(); err != nil {
		return nil, err
	}
	var log *os.File
	if r.outDir != "" {
		if err := os.MkdirAll(r.outDir, 0o755); err != nil {
			return nil, err
		}
		flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
		if r.resume {
			flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
		}
		var err error
		if log, err = os.OpenFile(filepath.Join(r.outDir, "runs.jsonl"), flags, 0o644); err != nil {
			return nil, err
		}
		defer log.Close()
	}
	out := make([]runRecord, len(jobs))
	var todo []int
	for i, j := range jobs {
		if rec, ok := r.reuse(j); ok {
			out[i] = rec
		} else {
			todo = append(todo, i)
		}
	}
	bar := progress.New(r.bar, len(todo), r.exp)
	defer bar.Done()
	var mu sync.Mutex
	var werr error
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(r.workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rec := measureJob(r.exp, jobs[i])
				mu.Lock()
				out[i] = rec
				if log != nil && werr == nil {
					b, _ := json.Marshal(rec)
					if _, err := log.Write(append(b, '\n')); err != nil {
						werr = err
					}
				}
				bar.Describe(fmt.Sprintf("%s: %s %s", r.exp, shortName(rec.History), rec.Variant))
				bar.Add(1)
				mu.Unlock()
			}
		}()
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, werr
}

func shortName(s string) string { return filepath.Base(s) }

// saveHistories writes every history's log under dir, keeping its name
// (relative paths keep their folders), so that --from DIR can rerun the
// experiment on the same inputs.
func saveHistories(dir string, hs []*expHistory) error {
	for _, h := range hs {
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, h.Raw, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// loadHistoryDir reads every *.log under dir (recursively, in name order).
func loadHistoryDir(dir string) ([]*expHistory, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".log") {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no .log files", dir)
	}
	sort.Strings(names)
	var out []*expHistory
	for _, n := range names {
		h, err := readExpHistory(dir, n)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}
