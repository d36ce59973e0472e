package monitor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/monitor/logfmt"
)

// Linearizability is local (Herlihy and Wing): a history is linearizable
// iff each object's sub-history is. CheckSource uses this to check a log
// of many objects: each object gets its own Monitor, objects are sharded
// by name across worker goroutines, and a violation of one object is
// reported at once while the others go on being checked.

// MultiOptions configure the check of a log of many objects.
type MultiOptions struct {
	Options // per object; Timeout limits the whole log
	// Workers is the number of goroutines checking objects; 0 means one
	// per core (runtime.GOMAXPROCS).
	Workers int
	// KeepIdle keeps every object's monitor to the end instead of
	// dropping or parking the monitors of idle objects (for tests).
	KeepIdle bool
	// Explain keeps each object's history and gives each violation its
	// core (ObjectResult.Core, Explanation.findCore), found by the
	// object's worker before it goes on. The histories cost memory in
	// proportion to the log, as CheckLogExplain's does.
	Explain bool
	// Finite says that the log is finite and read to its end, a file and
	// not a live stream: each object's Monitor is then Finite, so that
	// exact SYMBOLIC decides an object once per stretch between the
	// points where its monitor is dropped and at the end of the log,
	// instead of at every return, and reports its violations (the same
	// steps and lines) when it decides. Explain ignores it.
	Finite bool

	// parkAfter, for tests: overrides defaultParkAfter when positive.
	parkAfter int
}

// ObjectResult is the verdict on one object of a log. ViolationStep
// counts the actions of this object only (as if its sub-history were
// checked alone); ViolationLine is the line in the log.
type ObjectResult struct {
	Name string `json:"name"`
	Result
	// Restarts counts the times the object went idle, its monitor was
	// dropped, and a fresh one took over from the state it had reached.
	Restarts int `json:"restarts,omitempty"`
	// Explanation, with MultiOptions.Explain, is a violation's: the
	// object's history up to it, its core, and the cut, if any; for an
	// object with no violation, its whole history (no core, no witness).
	Explanation *Explanation `json:"-"`

	first   int // Seq of the object's first action: the order of results
	violSeq int // Seq of the action that proved the violation
}

// LogResult is the verdict on a whole log: a violation if some object's
// is, otherwise an error, a timeout or ok. ViolationStep counts the
// actions of the whole log, and ViolationObject names the object of the
// earliest violation in the log.
type LogResult struct {
	Result
	ViolationObject string         `json:"violation_object,omitempty"`
	Objects         []ObjectResult `json:"objects"`
	Workers         int            `json:"workers"`
	// Dropped counts the monitors of idle objects dropped (and later
	// recreated if the object came back); MaxLive is the most monitors
	// alive at once.
	Dropped int `json:"dropped"`
	MaxLive int `json:"max_live"`
	// Parked counts the times an idle object's monitor was set aside, to
	// be rebuilt by replay if the object came back.
	Parked int `json:"parked"`
	// Skipped counts the lines of a Jepsen log that hold no event (its
	// logger's other lines, stack traces), which were skipped;
	// SkippedLines holds the first of them (logfmt.Skipper).
	Skipped      int                  `json:"skipped,omitempty"`
	SkippedLines []logfmt.SkippedLine `json:"-"`

	// seeded, for tests: monitors started from a state reached by the
	// drop rule of the compare-and-set and string registers, through a
	// synthetic initial write.
	seeded int
}

// batchSize is the most events handed to a worker at once. Batches also
// go out before the reader may block (CheckMulti), so a violation on a
// live pipe is found without waiting for more input.
const batchSize = 1024

// CheckMulti reads a log of format f (logfmt.Auto: recognised) from r and
// checks each of its objects; lo.Name names the file in messages. It
// calls onViolation (from one goroutine at a time) as soon as an
// object's violation is proven. A malformed log yields a positioned
// error and verdict Error; the results of what was read are kept.
func CheckMulti(ctx context.Context, r io.Reader, f logfmt.Format, lo logfmt.Options, opt MultiOptions, onViolation func(ObjectResult)) (LogResult, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	hr := &hookReader{r: br}
	lo.Abandons = true // the exact register check forgets crashed operations
	src, err := logfmt.NewSource(hr, f, lo)
	if err != nil {
		return LogResult{Result: Result{File: lo.Name, Algorithm: opt.Name(), Verdict: Error, Error: err.Error()}}, err
	}
	return checkSource(ctx, src, lo.Name, opt, onViolation, hr)
}

// CheckSource checks the events of src, as CheckMulti does.
func CheckSource(ctx context.Context, src logfmt.Source, name string, opt MultiOptions, onViolation func(ObjectResult)) (LogResult, error) {
	return checkSource(ctx, src, name, opt, onViolation, nil)
}

// hookReader calls before ahead of every read that may block, when its
// buffer is empty: the dispatcher flushes its partial batches there, so
// that on a live pipe no event waits for more input, while a file is
// handed out in large batches.
type hookReader struct {
	r      *bufio.Reader
	before func()
}

func (hr *hookReader) Read(p []byte) (int, error) {
	if hr.before != nil && hr.r.Buffered() == 0 {
		hr.before()
	}
	return hr.r.Read(p)
}

func checkSource(ctx context.Context, src logfmt.Source, name string, opt MultiOptions, onViolation func(ObjectResult), hook *hookReader) (LogResult, error) {
	start := time.Now()
	opt.Options = opt.Options.withDefaults()
	// Exact is the conjunction over the objects (below); an empty log's
	// ok proves nothing less under an exact variant.
	res := LogResult{Result: Result{File: name, Algorithm: opt.Name(), Verdict: OK, Exact: opt.Exact()}}
	if err := opt.Validate(); err != nil {
		res.Verdict, res.Error = Error, err.Error()
		return res, err
	}
	n := opt.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	res.Workers = n
	if opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Timeout)
		defer cancel()
	}
	per := opt.Options
	per.Timeout = 0 // the context carries the log's deadline

	var mu sync.Mutex
	report := func(r ObjectResult) {
		if onViolation != nil {
			mu.Lock()
			defer mu.Unlock()
			onViolation(r)
		}
	}
	var live, maxLive atomic.Int64
	free := make(chan []logfmt.Event, 4*n)
	shards := make([]*shard, n)
	var wg sync.WaitGroup
	for i := range shards {
		s := &shard{ctx: ctx, opt: per, keep: opt.KeepIdle, explain: opt.Explain, finite: opt.Finite && !opt.Explain, parkAfter: defaultParkAfter, file: name, in: make(chan []logfmt.Event, 4),
			free: free, objs: map[string]*objState{}, report: report, live: &live, maxLive: &maxLive}
		if opt.parkAfter > 0 {
			s.parkAfter = opt.parkAfter
		}
		shards[i] = s
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.run()
		}()
	}
	batches := make([][]logfmt.Event, n)
	flush := func(i int) {
		if len(batches[i]) > 0 {
			shards[i].in <- batches[i]
			select {
			case b := <-free:
				batches[i] = b[:0]
			default:
				batches[i] = make([]logfmt.Event, 0, batchSize)
			}
		}
	}
	flushAll := func() {
		for i := range batches {
			flush(i)
		}
	}
	if hook != nil {
		hook.before = flushAll
	}
	var readErr error
	stopped := false // the deadline passed before the end of the log
	for {
		ev, err := src.NextEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = err
			break
		}
		if ctx.Err() != nil {
			stopped = true
			break
		}
		if !ev.Abandon {
			res.Steps++ // a crash is no action of the log
		}
		if ev.Kind == h.Call {
			res.Operations++
		}
		i := shardOf(ev.Object.Name, n)
		batches[i] = append(batches[i], ev)
		if len(batches[i]) >= batchSize {
			flush(i)
		}
	}
	if hook != nil {
		hook.before = nil
	}
	flushAll()
	for _, s := range shards {
		close(s.in)
	}
	wg.Wait()

	kinds := map[h.Object]bool{}
	var stepErr error
	timedOut := stopped
	for _, s := range shards {
		res.Dropped += s.dropped
		res.Parked += s.parkedN
		res.seeded += s.seeded
		for _, st := range s.objs {
			st.finish()
			if st.tee != nil && st.tee.b != nil && st.res.Explanation == nil {
				// No violation: the history kept is still what a
				// picture of the object draws.
				st.res.Explanation = &Explanation{History: &st.tee.b.H, ReturnLines: st.tee.retLines, Violation: -1}
			}
			if stopped && st.res.Verdict == OK {
				st.res.Verdict = Timeout // the rest of its log was not read
			}
			kinds[st.decl.Kind] = true
			if len(res.Objects) == 0 {
				res.Exact = st.res.Exact
			}
			res.Exact = res.Exact && st.res.Exact
			res.Objects = append(res.Objects, st.res)
			switch st.res.Verdict {
			case Timeout:
				timedOut = true
			case Error:
				if stepErr == nil {
					stepErr = st.err
				}
			}
		}
	}
	slices.SortFunc(res.Objects, func(a, b ObjectResult) int { return a.first - b.first })
	if len(res.Objects) > 0 && !slices.ContainsFunc(res.Objects, func(o ObjectResult) bool { return o.Algorithm != FrontierAlgorithm }) {
		res.Algorithm = FrontierAlgorithm
	}
	var first *ObjectResult // the violation proven earliest in the log
	for i := range res.Objects {
		if o := &res.Objects[i]; o.Verdict == Violation && (first == nil || o.violSeq < first.violSeq) {
			first = o
		}
	}
	if first != nil {
		step := first.violSeq + 1
		res.Verdict = Violation
		res.ViolationStep = &step
		res.ViolationLine = first.ViolationLine
		res.ViolationOp = first.ViolationOp
		res.ViolationObject = first.Name
	}
	switch len(kinds) {
	case 0:
	case 1:
		for k := range kinds {
			res.Object = k.String()
		}
	default:
		res.Object = "many kinds"
	}
	res.MaxLive = int(maxLive.Load())
	if sk, ok := src.(logfmt.Skipper); ok {
		res.Skipped, res.SkippedLines = sk.Skipped()
	}
	res.Seconds = time.Since(start).Seconds()
	err := readErr
	if err == nil {
		err = stepErr
	}
	if err != nil {
		if res.Verdict != Violation {
			res.Verdict = Error
		}
		res.Error = err.Error()
		return res, err
	}
	if res.Verdict == OK && timedOut {
		res.Verdict = Timeout
	}
	return res, nil
}

// shardOf spreads objects over n workers by an FNV-1a hash of the name.
func shardOf(name string, n int) int {
	if n == 1 {
		return 0
	}
	x := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		x ^= uint32(name[i])
		x *= 16777619
	}
	return int(x % uint32(n))
}

// shard is one worker: the objects whose names hash to it.
type shard struct {
	ctx     context.Context
	opt     Options
	keep    bool
	explain bool
	finite  bool // MultiOptions.Finite
	file    string
	in      chan []logfmt.Event
	free    chan []logfmt.Event
	objs    map[string]*objState
	report  func(ObjectResult)
	live    *atomic.Int64
	maxLive *atomic.Int64
	dropped int
	parkedN int
	seeded  int
	tick    int         // events stepped
	idleQ   []idleEntry // objects gone idle, oldest first from head
	head    int
	// parkAfter is how many events an idle object waits to be parked.
	parkAfter int
}

// objState is what a worker holds for one object. Once the object is idle
// (below), only the result so far and the state a fresh monitor starts
// from remain.
type objState struct {
	decl  *logfmt.ObjectDecl
	param string // the initial state of the next monitor
	// init, when hasInit, is the state the next monitor of a
	// compare-and-set or string register starts from, reached by the
	// drop rule (idleState): such a register starts as its kind says
	// (absent, empty) and is handed a completed write of init first.
	// synth counts the steps of that write in the live monitor, which
	// its results leave out.
	init    h.Value
	hasInit bool
	synth   int
	mon     *Monitor
	idle    idleState
	res     ObjectResult
	stats   Stats
	wsum    float64 // window sizes summed over steps, for MeanWindow
	done    bool
	err     error

	// acts are the actions the current monitor was given, packed
	// (packAction), nacts of them. An object idle in a state only its
	// history tells (a queue still holding elements), and untouched for
	// defaultParkAfter events, is parked: its monitor is set aside, and
	// rebuilt from acts when the object comes back. Replaying the same
	// actions into a fresh monitor rebuilds the same state (the
	// algorithms are deterministic), so this trades the monitor's memory
	// for the time of a replay; packed, an action costs a dozen bytes or
	// so instead of an h.Action's hundred and more and its strings'
	// headers. parkedRes is the monitor's result when set aside.
	acts  []byte
	nacts int
	// tee keeps the object's whole history, with MultiOptions.Explain.
	tee       *actionTee
	parked    bool
	parkedRes Result
	noPark    bool  // acts outgrew parkMax: the monitor stays until dropped
	seqs      []int // MultiOptions.Finite: the log's event of each step of mon
	touched   int   // the shard's tick of the object's last event
}

// parkMax is the most actions a parked object keeps for its replay; an
// object with a longer history keeps its monitor.
const parkMax = 256

func (s *shard) run() {
	for b := range s.in {
		for i := range b {
			s.step(&b[i])
		}
		clear(b) // drop references to labels and ids
		select {
		case s.free <- b[:0]:
		default:
		}
	}
	if s.finite {
		for _, st := range s.objs {
			if st.mon != nil && !st.done {
				s.settle(st)
			}
		}
	}
}

// settle ends st's live monitor's deferred checks (MultiOptions.Finite)
// and handles what they find as step handles a step's; it reports
// whether st is done.
func (s *shard) settle(st *objState) bool {
	viol, err := st.mon.End()
	switch {
	case err != nil:
		s.release(st)
		st.fail(fmt.Errorf("%s: object %s: %w", s.file, st.decl.Label(), err))
	case viol:
		s.violated(st, st.seqs[*st.mon.Result().ViolationStep-1])
	case st.mon.Done(): // timeout
		s.release(st)
		st.done, st.acts, st.nacts = true, nil, 0
	default:
		return false
	}
	return true
}

// violated ends st on the violation its monitor proved at the log's
// event seq.
func (s *shard) violated(st *objState, seq int) {
	// release folds the monitor's result (fold places the step after the
	// object's earlier monitors'); a violation the exact register check
	// proved at an earlier action than the one that reported it keeps
	// that action's place (foldMon).
	st.res.violSeq = seq
	s.release(st)
	st.done, st.acts, st.nacts, st.seqs = true, nil, 0, nil
	if st.tee != nil {
		st.res.Core, st.res.Explanation = s.core(st)
		st.tee = nil
	}
	s.report(st.res)
}

func (s *shard) step(ev *logfmt.Event) {
	s.tick++
	st := s.objs[ev.Object.Name]
	if st == nil {
		st = &objState{decl: ev.Object, param: ev.Object.Param}
		st.idle.reset(ev.Object.Kind, ev.Object.Param)
		st.res = ObjectResult{Name: ev.Object.Name, first: ev.Seq,
			Result: Result{File: s.file, Object: ev.Object.Kind.String(), Algorithm: s.opt.Name(), Verdict: OK, Exact: s.opt.exactOn(ev.Object.Kind)}}
		s.objs[ev.Object.Name] = st
	}
	st.touched = s.tick
	if st.done {
		return
	}
	if ev.Abandon {
		// A live monitor is told; a dropped or parked one replays the
		// operation as pending, which means the same.
		if st.mon != nil {
			if err := st.mon.Abandon(ev.ID); err != nil {
				s.release(st)
				st.fail(fmt.Errorf("%s:%d: object %s: %w", s.file, ev.Line, st.decl.Label(), err))
			}
		}
		return
	}
	if st.mon == nil {
		m, err := s.newMonitor(st)
		if err != nil {
			st.fail(fmt.Errorf("%s:%d: object %s: %w", s.file, ev.Line, st.decl.Label(), err))
			return
		}
		st.mon = m
		if n := s.live.Add(1); n > s.maxLive.Load() {
			s.maxLive.Store(n) // a race between workers only loses a sample
		}
		if st.parked {
			st.parked = false
			for b := st.acts; len(b) > 0; {
				var a h.Action
				a, b = unpackAction(b)
				if _, err := m.Step(a); err != nil {
					s.release(st)
					st.fail(fmt.Errorf("%s:%d: object %s: replay: %w", s.file, a.Line, st.decl.Label(), err))
					return
				}
			}
		}
	}
	viol, err := st.mon.Step(ev.Action)
	if err != nil {
		s.release(st)
		st.fail(fmt.Errorf("%s:%d: object %s: %w", s.file, ev.Line, st.decl.Label(), err))
		return
	}
	if s.finite {
		st.seqs = append(st.seqs, ev.Seq)
	}
	if s.explain {
		if st.tee == nil {
			st.tee = &actionTee{}
		}
		a := ev.Action
		a.Seq = st.tee.n // the object's own positions
		st.tee.n++
		st.tee.add(st.decl.Kind, st.decl.Param, a)
	}
	st.idle.step(st.decl.Kind, ev.Action)
	if !s.keep && !st.noPark && !s.finite {
		st.acts = packAction(st.acts, &ev.Action)
		if st.nacts++; st.nacts > parkMax {
			st.acts, st.nacts, st.noPark = nil, 0, true
		}
	}
	switch {
	case viol:
		s.violated(st, ev.Seq)
	case st.mon.Done(): // timeout
		s.release(st)
		st.done, st.acts, st.nacts = true, nil, 0
	case !s.keep:
		if p, ok := st.idle.droppable(st.decl.Kind, st.param); ok {
			if s.finite && s.settle(st) {
				break
			}
			s.release(st)
			if k := st.decl.Kind; k == h.CASRegister || k == h.StringRegister {
				st.init, st.hasInit = h.Value(p), true
			} else {
				st.param = p
			}
			st.idle.reset(st.decl.Kind, p)
			st.acts, st.nacts, st.noPark = nil, 0, false
			st.res.Restarts++
			s.dropped++
		} else if st.idle.open == 0 && !st.noPark && !s.finite {
			s.idleQ = append(s.idleQ, idleEntry{st, s.tick})
		}
	}
	s.parkOld()
}

// idleEntry is an object that went idle at tick at.
type idleEntry struct {
	st *objState
	at int
}

// defaultParkAfter is how many of its shard's events an idle object
// waits before it is parked: an object under way, whose next action comes
// soon, keeps its monitor and is not replayed over and over.
const defaultParkAfter = 4096

// parkOld parks the objects idle and untouched for parkAfter events.
func (s *shard) parkOld() {
	for s.head < len(s.idleQ) && s.tick-s.idleQ[s.head].at > s.parkAfter {
		e := s.idleQ[s.head]
		s.idleQ[s.head] = idleEntry{}
		s.head++
		if st := e.st; st.touched == e.at && st.mon != nil && !st.done {
			st.parkedRes = st.mon.Result()
			st.mon = nil
			st.acts = bytes.Clone(st.acts) // without the slack of appends
			st.parked = true
			s.live.Add(-1)
			s.parkedN++
		}
	}
	if s.head > 1024 && s.head > len(s.idleQ)/2 {
		s.idleQ = append(s.idleQ[:0], s.idleQ[s.head:]...)
		s.head = 0
	}
}

// core finds the core of st's violation in the history its tee kept.
func (s *shard) core(st *objState) ([]CoreOp, *Explanation) {
	x := &Explanation{History: &st.tee.b.H, ReturnLines: st.tee.retLines}
	x.Violation = opIndex(x.History, st.res.ViolationOp)
	limit := s.opt.Timeout
	if limit <= 0 {
		limit = ExplainLimit
	}
	x.findCore(limit)
	return x.CoreOps(), x
}

// synthID is the id of the write a register's monitor is handed first to
// start from a state other than its kind's initial one: no log's id, as
// ids never contain a NUL byte.
const synthID = "\x00init"

// newMonitor makes the next monitor of st: from st.param, and for a
// compare-and-set or string register dropped in a known state, handed a
// completed write of that state first. The write precedes every operation
// of the monitor's log in real time, so every linearization starts with it,
// and the monitor checks exactly the log from that state.
func (s *shard) newMonitor(st *objState) (*Monitor, error) {
	param := st.param
	var write h.Value
	st.synth = 0
	if st.hasInit {
		param = ""
		if v := st.init; v != h.Void && (st.decl.Kind != h.CASRegister || v != h.Nil) {
			write = v // nil is the compare-and-set register's initial state
		}
	}
	m, err := NewContext(s.ctx, st.decl.Kind, param, s.opt)
	if err != nil {
		return m, err
	}
	if s.finite {
		// A finite monitor's steps, by the log's event that made them
		// (-1: the synthetic write's).
		m.Finite()
		st.seqs = st.seqs[:0]
	}
	if write == "" {
		return m, nil
	}
	for _, a := range []h.Action{
		{Kind: h.Call, ID: synthID, Label: h.Label{Method: h.Write, Arg: write}, Seq: 0},
		{Kind: h.Return, ID: synthID, Label: h.Label{Method: h.Write, Arg: write}, Seq: 1},
	} {
		if _, err := m.Step(a); err != nil {
			return nil, fmt.Errorf("initial write of %q: %w", write, err)
		}
	}
	st.synth = 2
	if s.finite {
		st.seqs = append(st.seqs, -1, -1)
	}
	s.seeded++
	return m, nil
}

// release folds the live monitor's result into the object's and drops it.
func (s *shard) release(st *objState) {
	if st.mon == nil {
		return
	}
	st.foldMon()
	st.mon = nil
	s.live.Add(-1)
}

// foldMon folds the live monitor's result. A violation the exact register
// check proved at an earlier action than the one that reported it (it
// looks ahead, frontmon.go), or at the end, is placed at that action.
func (st *objState) foldMon() {
	st.fold(st.mon.Result())
	if seq, ok := st.mon.violationSeq(); ok {
		st.res.violSeq = seq
	}
}

// fold adds the result of one of the object's monitors to its result,
// leaving out the steps of its synthetic initial write.
func (st *objState) fold(r Result) {
	if st.synth > 0 {
		r.Steps -= st.synth
		r.Operations--
		if r.ViolationStep != nil {
			v := *r.ViolationStep - st.synth
			r.ViolationStep = &v
		}
	}
	before := st.res.Steps
	st.res.Steps += r.Steps
	st.res.Operations += r.Operations
	st.res.Verdict = r.Verdict
	st.res.ViolationStep = nil
	if r.ViolationStep != nil {
		step := before + *r.ViolationStep // the synthetic steps left out above
		st.res.ViolationStep = &step
	}
	st.res.ViolationLine, st.res.ViolationOp = r.ViolationLine, r.ViolationOp
	st.res.Seconds += r.Seconds
	st.res.Exact = st.res.Exact && r.Exact
	st.res.Algorithm = r.Algorithm
	if x := r.Stats; x != nil {
		st.stats.Configurations = max(st.stats.Configurations, x.Configurations)
		st.stats.Checks += x.Checks
		st.stats.Clauses, st.stats.Vars = x.Clauses, x.Vars
		st.stats.Propagations += x.Propagations
		st.stats.MaxWindow = max(st.stats.MaxWindow, x.MaxWindow)
		st.wsum += x.MeanWindow * float64(r.Steps)
		st.stats.Removed += x.Removed
		st.stats.RepeatedTags += x.RepeatedTags
		st.stats.ForcedRemovals += x.ForcedRemovals
	}
}

func (st *objState) fail(err error) {
	st.done = true
	st.err = err
	st.res.Verdict = Error
	st.res.Error = err.Error()
}

// finish makes the object's final result, folding in the monitor still
// alive at the end of the log.
func (st *objState) finish() {
	if st.mon != nil {
		st.foldMon()
		st.mon = nil
	}
	if st.parked {
		st.fold(st.parkedRes)
		st.parked, st.acts, st.nacts = false, nil, 0
	}
	if st.res.Steps > 0 {
		st.stats.MeanWindow = st.wsum / float64(st.res.Steps)
	}
	stats := st.stats
	st.res.Stats = &stats
}

// idleState tracks one object between the points where its monitor may
// be dropped. A monitor may be dropped when the object is quiescent (no
// operation open, pending ones included) and every linearization of the
// sub-history so far ends in one and the same state S that a fresh
// monitor can start from. Then the history so far, H1, and what follows,
// H2, are separated in real time: every linearization of H1·H2 is one of
// H1 followed by one of H2, so H1·H2 is linearizable iff H1 is and H2 is
// from S. A fresh monitor from S checks exactly the latter, so a violation
// it proves is one of H1·H2 (if H1 is not linearizable, nor is H1·H2:
// any verdict of violation stays true), and an exact algorithm stays
// exact. S is found by counting, for each kind:
//
//   - queue, stack, priority queue: adds and non-empty removals balance;
//     each removal takes one element, so the collection is empty;
//   - set: successful adds and successful removals balance; per value they
//     alternate, so each value's difference is 0 or 1 and all are 0;
//   - lock, semaphore: acquisitions and releases balance: all free;
//   - exchanger: no state;
//   - register: some write was called after every other write returned:
//     it is the last write of every linearization, and a fresh register
//     starts with its value as the initial value;
//   - compare-and-set and string registers: the state is followed from
//     group to group of the operations that may change it (writes, puts,
//     appends, cas), a group being a stretch during which one of them is
//     open. Groups are ordered by real time, so every linearization takes
//     them in turn. After a group with one effective operation (a failed
//     cas changes nothing), the state is that operation applied to the
//     state before it (a write or successful cas sets its value whatever
//     came before; an append needs the state before known); after a group
//     whose effective operations all write one same value, that value; any
//     other group leaves the state unknown until a group sets it again.
//     (If the history so far is not linearizable, a successful cas whose
//     old value was not the state is possible, and the state then
//     claimed is wrong: as above, no verdict of violation depends on it.)
//
// Other kinds are never dropped.
type idleState struct {
	open    int
	balance int
	// The register's last write: the write called last, and the latest
	// return of the others.
	cand         bool
	candID       string
	candCall     int
	candVal      h.Value
	candOpen     bool
	candRet      int
	othersMaxRet int
	writes       int

	// The compare-and-set and string registers: the state after the last
	// group, when known, and the group under way (see above).
	known   bool
	val     h.Value
	wOpen   int     // operations of the group still open
	effs    int     // effective operations of the group returned so far
	first   h.Label // the first of them
	sameAbs bool    // all of them write first.Arg
}

// reset starts tracking from a fresh monitor whose initial state is init
// (the parameter, or the value of the drop rule).
func (t *idleState) reset(kind h.Object, init string) {
	*t = idleState{known: true, val: h.Value(init)}
	if kind == h.CASRegister && init == "" {
		t.val = h.Nil
	}
}

// changes reports whether an operation of method m may change the state
// of a compare-and-set or string register.
func changes(m h.Method) bool { return m == h.Write || m == h.Append || m == h.CAS }

func (t *idleState) step(kind h.Object, a h.Action) {
	rmw := kind == h.CASRegister || kind == h.StringRegister
	if a.Kind == h.Call {
		t.open++
		if kind == h.Register && a.Label.Method == h.Write {
			if t.cand && !t.candOpen {
				t.othersMaxRet = max(t.othersMaxRet, t.candRet)
			}
			t.cand, t.candID, t.candCall, t.candVal, t.candOpen = true, a.ID, a.Seq, a.Label.Arg, true
			t.writes++
		}
		if rmw && changes(a.Label.Method) {
			if t.wOpen == 0 {
				t.effs, t.sameAbs = 0, true
			}
			t.wOpen++
		}
		return
	}
	t.open--
	l := a.Label
	switch kind {
	case h.Queue, h.Stack, h.PQueue:
		switch {
		case l.Method == h.Add:
			t.balance++
		case l.Method == h.Rem && l.Ret != h.Empty:
			t.balance--
		}
	case h.Set:
		switch {
		case l.Method == h.Add && l.Ret == h.True:
			t.balance++
		case l.Method == h.Rem && l.Ret == h.True:
			t.balance--
		}
	case h.Lock, h.Semaphore:
		switch l.Method {
		case h.LockM, h.Acquire:
			t.balance++
		case h.Unlock, h.Release:
			t.balance--
		}
	case h.Register:
		if l.Method == h.Write {
			if t.candOpen && a.ID == t.candID {
				t.candOpen, t.candRet = false, a.Seq
			} else {
				t.othersMaxRet = max(t.othersMaxRet, a.Seq)
			}
		}
	case h.CASRegister, h.StringRegister:
		if !changes(l.Method) {
			return
		}
		if !(l.Method == h.CAS && l.Ret == h.Fail) {
			abs := l.Method != h.Append
			if t.effs == 0 {
				t.first = l
				t.sameAbs = abs
			} else if !abs || l.Arg != t.first.Arg {
				t.sameAbs = false
			}
			t.effs++
		}
		if t.wOpen--; t.wOpen > 0 {
			return
		}
		switch {
		case t.effs == 0:
		case t.effs == 1 && t.first.Method == h.Append:
			t.val = t.val + t.first.Arg // "" is the empty string
		case t.effs == 1 || t.sameAbs:
			t.val, t.known = t.first.Arg, true
		default:
			t.known = false
		}
	}
}

// droppable reports whether the monitor may be dropped now, and the
// parameter of the fresh monitor that takes over (for the compare-and-set
// and string registers, the state it starts from); param is the current
// one.
func (t *idleState) droppable(kind h.Object, param string) (string, bool) {
	if t.open != 0 {
		return "", false
	}
	switch kind {
	case h.Queue, h.Stack, h.PQueue, h.Set, h.Lock, h.Semaphore:
		return param, t.balance == 0
	case h.Exchanger:
		return param, true
	case h.Register:
		if !t.cand {
			return param, true
		}
		if t.writes > 1 && t.othersMaxRet >= t.candCall {
			return "", false
		}
		return string(t.candVal), true
	case h.CASRegister, h.StringRegister:
		return string(t.val), t.known
	}
	return "", false
}

// packAction appends a to b in a compact form: kind, method and pending
// flag, then ID, Arg, Old and Ret as length-prefixed bytes, Prio and Line
// as varints. Seq is left out: a monitor numbers actions itself.
func packAction(b []byte, a *h.Action) []byte {
	pending := byte(0)
	if a.Label.Pending {
		pending = 1
	}
	b = append(b, byte(a.Kind), byte(a.Label.Method), pending)
	for _, s := range [...]string{a.ID, string(a.Label.Arg), string(a.Label.Old), string(a.Label.Ret)} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendVarint(b, a.Label.Prio)
	return binary.AppendUvarint(b, uint64(a.Line))
}

// unpackAction reads the first action packAction wrote into b, and returns
// the rest of b.
func unpackAction(b []byte) (h.Action, []byte) {
	var a h.Action
	a.Kind, a.Label.Method, a.Label.Pending = h.Kind(b[0]), h.Method(b[1]), b[2] == 1
	b = b[3:]
	str := func() string {
		n, k := binary.Uvarint(b)
		s := string(b[k : k+int(n)])
		b = b[k+int(n):]
		return s
	}
	a.ID = str()
	a.Label.Arg, a.Label.Old, a.Label.Ret = h.Value(str()), h.Value(str()), h.Value(str())
	p, k := binary.Varint(b)
	b = b[k:]
	a.Label.Prio = p
	line, k := binary.Uvarint(b)
	a.Line = int(line)
	return a, b[k:]
}
