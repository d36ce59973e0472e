package multi

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/explain"

	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
)

// Linearizability is local (Herlihy and Wing): a history is linearizable
// iff each object's sub-history is. CheckSource uses this to check a log
// of many objects: each object gets its own Monitor, objects are sharded
// by name across worker goroutines, and a violation of one object is
// reported at once while the others go on being checked.

// MultiOptions configure the check of a log of many objects.
type MultiOptions struct {
	engine.Options // per object; Timeout limits the whole log
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
	// dropAfter, for tests: overrides defaultDropAfter when positive (1:
	// every monitor is dropped at once where it may be).
	dropAfter int
}

// ObjectResult is the verdict on one object of a log. ViolationStep
// counts the actions of this object only (as if its sub-history were
// checked alone); ViolationLine is the line in the log.
type ObjectResult struct {
	Name string `json:"name"`
	engine.Result
	// Restarts counts the times the object went idle, its monitor was
	// dropped, and a fresh one took over from the state it had reached.
	Restarts int `json:"restarts,omitempty"`
	// Explanation, with MultiOptions.Explain, is a violation's: the
	// object's history up to it, its core, and the cut, if any; for an
	// object with no violation, its whole history (no core, no witness).
	Explanation *explain.Explanation `json:"-"`

	first   int // Seq of the object's first action: the order of results
	violSeq int // Seq of the action that proved the violation
}

// LogResult is the verdict on a whole log: a violation if some object's
// is, otherwise an error, a timeout or ok. ViolationStep counts the
// actions of the whole log, and ViolationObject names the object of the
// earliest violation in the log.
type LogResult struct {
	engine.Result
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
	// The hook goes under the buffer the source reads through: every read
	// of r may block. A caller's *bufio.Reader may hold bytes already
	// (what it peeked at), and stays the first buffer; any other reader
	// gets one buffer, no larger than what it holds when it says (Len: a
	// history in memory).
	var in io.Reader
	hr := &hookReader{r: r}
	if br, ok := r.(*bufio.Reader); ok {
		hr.br = br
		in = hr
	} else {
		size := 64 << 10
		if l, ok := r.(interface{ Len() int }); ok && l.Len() < size {
			size = l.Len() + 1
		}
		in = bufio.NewReaderSize(hr, size)
	}
	lo.Abandons = true // the exact register check forgets crashed operations
	src, err := logfmt.NewSource(in, f, lo)
	if err != nil {
		return LogResult{Result: engine.Result{File: lo.Name, Algorithm: opt.Name(), Verdict: engine.Error, Error: err.Error()}}, err
	}
	return checkSource(ctx, src, lo.Name, opt, onViolation, hr)
}

// CheckSource checks the events of src, as CheckMulti does.
func CheckSource(ctx context.Context, src logfmt.Source, name string, opt MultiOptions, onViolation func(ObjectResult)) (LogResult, error) {
	return checkSource(ctx, src, name, opt, onViolation, nil)
}

// hookReader calls before ahead of every read of r that may block: the
// dispatcher flushes its partial batches there, so that on a live pipe no
// event waits for more input, while a file is handed out in large
// batches. When r is a *bufio.Reader (br), a read it serves from its
// buffer does not block.
type hookReader struct {
	r      io.Reader
	br     *bufio.Reader
	before func()
}

func (hr *hookReader) Read(p []byte) (int, error) {
	if hr.before != nil && (hr.br == nil || hr.br.Buffered() == 0) {
		hr.before()
	}
	return hr.r.Read(p)
}

func checkSource(ctx context.Context, src logfmt.Source, name string, opt MultiOptions, onViolation func(ObjectResult), hook *hookReader) (LogResult, error) {
	start := time.Now()
	opt.Options = opt.Options.WithDefaults()
	// Exact is the conjunction over the objects (below); an empty log's
	// ok proves nothing less under an exact variant.
	res := LogResult{Result: engine.Result{File: name, Algorithm: opt.Name(), Verdict: engine.OK, Exact: opt.Exact()}}
	if err := opt.Validate(); err != nil {
		res.Verdict, res.Error = engine.Error, err.Error()
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
	// One worker checks on the reader's goroutine, each event as it is
	// read: handing batches to a goroutine of its own costs more CPU (the
	// channel, the scheduler waking one side for the other) than it
	// saves by reading while checking, and a violation is still
	// reported at the event that proves it.
	inline := n == 1
	free := make(chan []logfmt.Event, 4*n)
	shards := make([]*shard, n)
	var wg sync.WaitGroup
	for i := range shards {
		s := &shard{ctx: ctx, opt: per, keep: opt.KeepIdle, explain: opt.Explain, finite: opt.Finite && !opt.Explain, parkAfter: defaultParkAfter, file: name, in: make(chan []logfmt.Event, 4),
			free: free, objs: map[string]*objState{}, report: report, live: &live, maxLive: &maxLive}
		if opt.parkAfter > 0 {
			s.parkAfter = opt.parkAfter
		}
		s.dropAfter = cmp.Or(opt.dropAfter, defaultDropAfter)
		shards[i] = s
		if inline {
			continue
		}
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
			if ctx.Err() != nil {
				// The read was cut short by the context (an interrupt
				// ends a wait for input on a pipe): what was read stands,
				// the rest is undecided, as at a deadline.
				stopped = true
				break
			}
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
		if inline {
			shards[0].step(&ev)
			continue
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
	if inline {
		shards[0].run() // its input is closed: the end of the log
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
			if st.tee != nil && st.tee.B != nil && st.res.Explanation == nil {
				// No violation: the history kept is still what a
				// picture of the object draws.
				st.res.Explanation = &explain.Explanation{History: &st.tee.B.H, ReturnLines: st.tee.RetLines, Violation: -1}
			}
			if stopped && st.res.Verdict == engine.OK {
				st.res.Verdict = engine.Timeout // the rest of its log was not read
			}
			kinds[st.decl.Kind] = true
			if len(res.Objects) == 0 {
				res.Exact = st.res.Exact
			}
			res.Exact = res.Exact && st.res.Exact
			res.Objects = append(res.Objects, st.res)
			switch st.res.Verdict {
			case engine.Timeout:
				timedOut = true
			case engine.Error:
				if stepErr == nil {
					stepErr = st.err
				}
			}
		}
	}
	slices.SortFunc(res.Objects, func(a, b ObjectResult) int { return a.first - b.first })
	if len(res.Objects) > 0 && !slices.ContainsFunc(res.Objects, func(o ObjectResult) bool { return o.Algorithm != engine.FrontierAlgorithm }) {
		res.Algorithm = engine.FrontierAlgorithm
	}
	var first *ObjectResult // the violation proven earliest in the log
	for i := range res.Objects {
		if o := &res.Objects[i]; o.Verdict == engine.Violation && (first == nil || o.violSeq < first.violSeq) {
			first = o
		}
	}
	if first != nil {
		step := first.violSeq + 1
		res.Verdict = engine.Violation
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
		if res.Verdict != engine.Violation {
			res.Verdict = engine.Error
		}
		res.Error = err.Error()
		return res, err
	}
	if res.Verdict == engine.OK && timedOut {
		res.Verdict = engine.Timeout
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
	opt     engine.Options
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
	// dropAfter is how many steps a monitor takes before it is dropped
	// where it may be (defaultDropAfter).
	dropAfter int
}

// objState is what a worker holds for one object. Once the object is idle
// (below), only the result so far and the state a fresh monitor starts
// from remain.
type objState struct {
	decl  *logfmt.ObjectDecl
	param string // the initial state of the next monitor
	// init, when hasInit, is the state the next monitor of a
	// compare-and-set or string register starts from, reached by the
	// drop rule (engine.IdleState): such a register starts as its kind says
	// (absent, empty) and is handed a completed write of init first.
	// synth counts the steps of that write in the live monitor, which
	// its results leave out.
	init    h.Value
	hasInit bool
	synth   int
	mon     *engine.Monitor
	idle    engine.IdleState
	res     ObjectResult
	stats   engine.Stats
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
	tee       *engine.ActionTee
	parked    bool
	parkedRes engine.Result
	noPark    bool  // acts outgrew parkMax: the monitor stays until dropped
	seqs      []int // MultiOptions.Finite: the log's event of each step of mon
	touched   int   // the shard's tick of the object's last event
	// since counts the steps of the monitor since it started from a
	// known state; canDrop says that after the object's last event its
	// state is known, dropTo (IdleState.Droppable), and the monitor was
	// kept (defaultDropAfter).
	since   int
	canDrop bool
	dropTo  string
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
		st.idle.Reset(ev.Object.Kind, ev.Object.Param)
		st.res = ObjectResult{Name: ev.Object.Name, first: ev.Seq,
			Result: engine.Result{File: s.file, Object: ev.Object.Kind.String(), Algorithm: s.opt.Name(), Verdict: engine.OK, Exact: s.opt.ExactOn(ev.Object.Kind)}}
		s.objs[ev.Object.Name] = st
	}
	st.touched = s.tick
	st.canDrop = false
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
	st.since++
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
			st.tee = &engine.ActionTee{}
		}
		a := ev.Action
		a.Seq = st.tee.N // the object's own positions
		st.tee.N++
		st.tee.Add(st.decl.Kind, st.decl.Param, a)
	}
	st.idle.Step(st.decl.Kind, ev.Action)
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
		if p, ok := st.idle.Droppable(st.decl.Kind, st.param); ok {
			if st.since >= s.dropAfter {
				s.drop(st, p)
				break
			}
			// A young monitor is kept: restarting it would cost more
			// than what it remembers. Dropped if it stays idle.
			st.dropTo, st.canDrop = p, true
			s.idleQ = append(s.idleQ, idleEntry{st, s.tick})
		} else if st.idle.Open == 0 && !st.noPark && !s.finite {
			s.idleQ = append(s.idleQ, idleEntry{st, s.tick})
		}
	}
	s.parkOld()
}

// drop releases st's monitor at a point where the object is in the
// known state p (engine.IdleState): the next monitor starts from p.
func (s *shard) drop(st *objState, p string) {
	if s.finite && s.settle(st) {
		return
	}
	s.release(st)
	if k := st.decl.Kind; k == h.CASRegister || k == h.StringRegister {
		st.init, st.hasInit = h.Value(p), true
	} else {
		st.param = p
	}
	st.idle.Reset(st.decl.Kind, p)
	st.acts, st.nacts, st.noPark = nil, 0, false
	st.since, st.canDrop = 0, false
	st.res.Restarts++
	s.dropped++
}

// idleEntry is an object that went idle at tick at.
type idleEntry struct {
	st *objState
	at int
}

// defaultDropAfter is how many steps a monitor takes before it is dropped
// at the first point where its object's state is known (IdleState): a
// younger one is kept, since restarting a monitor (a new one, its first
// write) costs more than stepping on, and dropped only if its object then
// stays idle for parkAfter events. A monitor whose window grows with its
// history is still restarted every few dozen steps.
const defaultDropAfter = 64

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
		if st := e.st; st.touched == e.at && st.mon != nil && !st.done && st.canDrop {
			s.drop(st, st.dropTo) // idle in a known state: cheaper than parked
			continue
		}
		if st := e.st; st.touched == e.at && st.mon != nil && !st.done && !s.finite {
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
func (s *shard) core(st *objState) ([]engine.CoreOp, *explain.Explanation) {
	x := &explain.Explanation{History: &st.tee.B.H, ReturnLines: st.tee.RetLines}
	x.Violation = explain.OpIndex(x.History, st.res.ViolationOp)
	limit := s.opt.Timeout
	if limit <= 0 {
		limit = explain.ExplainLimit
	}
	x.FindCore(limit)
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
func (s *shard) newMonitor(st *objState) (*engine.Monitor, error) {
	param := st.param
	var write h.Value
	st.synth = 0
	if st.hasInit {
		param = ""
		if v := st.init; v != h.Void && (st.decl.Kind != h.CASRegister || v != h.Nil) {
			write = v // nil is the compare-and-set register's initial state
		}
	}
	m, err := engine.NewContext(s.ctx, st.decl.Kind, param, s.opt)
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
	if seq, ok := st.mon.ViolationSeq(); ok {
		st.res.violSeq = seq
	}
}

// fold adds the result of one of the object's monitors to its result,
// leaving out the steps of its synthetic initial write.
func (st *objState) fold(r engine.Result) {
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
	st.res.Verdict = engine.Error
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
