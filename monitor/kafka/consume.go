// Package kafka runs satmon as a Kafka consumer group, and records a Go
// program's actions to a Kafka topic.
//
// Linearizability is local: a history is linearizable iff each object's
// sub-history is. A topic whose records are the actions of many objects,
// keyed by object, is therefore checked partition by partition, and Kafka
// does the distribution, the rebalancing and the failover: Consume is one
// member of a consumer group, holding one monitor per object of the
// partitions it is assigned. docs/distributed.md describes the topics,
// the verdict records, the offsets it commits and what happens on a
// rebalance or a crash.
package kafka

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/satmon/satmon/internal/apiconf"
	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/multi"
	"github.com/satmon/satmon/monitor"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
)

// Config configures Consume.
type Config struct {
	Brokers []string // seed brokers, host:port
	Topic   string   // the actions
	Group   string   // the consumer group
	// StateTopic holds the checkpoints the offsets commit to and the
	// marks of violations reported (default Topic + ".satmon-state"). It
	// should be compacted and have one partition.
	StateTopic string
	// VerdictTopic receives the verdict records; when empty they are
	// written to Out, one JSON object a line.
	VerdictTopic string
	Out          io.Writer
	// Format of the record values (default Auto).
	Format Format
	// Object forces the kind of the objects of JSON event maps, as
	// check's --object does.
	Object monitor.Object
	// Options choose the algorithm each object is checked with (default:
	// monitor's, SATURATE -r with the registers decided by their exact
	// frontier). Each object's parameter is its declaration's, and
	// nothing is explained: WithParam and WithExplanation are errors.
	Options []monitor.Option
	// Workers is the number of goroutines checking partitions (0: one per
	// core).
	Workers int
	// CheckpointEvery is how often owned partitions are checkpointed and
	// their offsets committed (default 2s).
	CheckpointEvery time.Duration
	// SummaryEvery is how often each owned partition's summary record is
	// written (default 10s; negative: never).
	SummaryEvery time.Duration
	// OnVerdict, when not nil, is called with each verdict record once it
	// is written (from one goroutine at a time).
	OnVerdict func(Verdict)
	// Logf, when not nil, receives messages about rebalances and
	// restarts.
	Logf func(format string, args ...any)
	// ClientOpts are passed to every kgo client, after satmon's own.
	ClientOpts []kgo.Opt

	opt engine.Options // what Options choose (defaults)

	// hooks, for tests (export_test.go).
	wrongOffsets bool                                              // commit the next offset read, ignoring open windows
	crash        <-chan struct{}                                   // closed: stop at once, as a crash would
	onCheckpoint func(p int32, committed, read int64, windows int) // after a partition's checkpoint
	onAssigned   func(p int32, from, read int64)                   // after a partition is restored
}

// Format is how Consume reads record values (docs/format.md).
type Format uint8

// The formats.
const (
	Auto   Format = iota // each record by its first byte: '{' a JSON event map, otherwise a native line
	Native               // lines of satmon's own format
	JSON                 // JSON event maps, as Jepsen's and Porcupine's logs hold them
)

// Verdict is one record Consume writes: a violation or an error as soon as
// it is found ("record": "violation" or "error"), or a partition's summary
// ("record": "summary").
type Verdict struct {
	Record    string `json:"record"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// Offset is the offset of the record that proved the violation (or
	// was malformed); Key is its key, the object's name.
	Offset *int64 `json:"offset,omitempty"`
	Key    string `json:"key,omitempty"`
	// Duplicate marks a violation a previous owner of the partition
	// already reported (docs/distributed.md).
	Duplicate bool `json:"duplicate,omitempty"`
	// The object's result, for a violation or an error.
	*Result
	// A summary's fields.
	Summary *Summary `json:"summary,omitempty"`
}

// Result is an object's result in a verdict record: the fields of
// docs/output.md's results (Name the object's, File the partition,
// ViolationLine the offset, ViolationStep counting the object's actions).
type Result struct {
	Name          string          `json:"name"`
	File          string          `json:"file"`
	Object        string          `json:"object"`
	Algorithm     string          `json:"algorithm"`
	Verdict       monitor.Verdict `json:"verdict"`
	Exact         bool            `json:"exact"`
	Steps         int             `json:"steps"`
	Operations    int             `json:"operations"`
	ViolationStep *int            `json:"violation_step"`
	ViolationLine int             `json:"violation_line,omitempty"`
	ViolationOp   string          `json:"violation_op,omitempty"`
	Seconds       float64         `json:"seconds"`
	Error         string          `json:"error,omitempty"`
	Restarts      int             `json:"restarts,omitempty"`
}

// resultOf is r as a verdict record shows it. Stream explains nothing and
// reports a violation before it sums the statistics, so r has no core,
// witness or stats to lose.
func resultOf(r *multi.ObjectResult) *Result {
	return &Result{Name: r.Name, File: r.File, Object: r.Object, Algorithm: r.Algorithm, Verdict: monitor.Verdict(r.Verdict),
		Exact: r.Exact, Steps: r.Steps, Operations: r.Operations, ViolationStep: r.ViolationStep, ViolationLine: r.ViolationLine,
		ViolationOp: r.ViolationOp, Seconds: r.Seconds, Error: r.Error, Restarts: r.Restarts}
}

// Summary is a partition's periodic summary.
type Summary struct {
	Objects    int   `json:"objects"`    // objects seen (or restored) by this owner
	Live       int   `json:"live"`       // monitors alive
	Windows    int   `json:"windows"`    // objects under way: not at a point a checkpoint can restart from
	Steps      int64 `json:"steps"`      // actions checked by this owner
	Operations int64 `json:"operations"` // operations called in them
	Violations int   `json:"violations"` // violations found by this owner
	Next       int64 `json:"next"`       // the next offset to read
	Committed  int64 `json:"committed"`  // the offset last committed
	Lag        int64 `json:"lag"`        // records in the partition not read yet
}

func (c *Config) defaults() error {
	if len(c.Brokers) == 0 || c.Topic == "" || c.Group == "" {
		return errors.New("brokers, topic and group are needed")
	}
	if c.StateTopic == "" {
		c.StateTopic = c.Topic + ".satmon-state"
	}
	if c.VerdictTopic == "" && c.Out == nil {
		c.Out = io.Discard
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.CheckpointEvery <= 0 {
		c.CheckpointEvery = 2 * time.Second
	}
	if c.SummaryEvery == 0 {
		c.SummaryEvery = 10 * time.Second
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	if c.Format > JSON {
		return fmt.Errorf("no format %d (want Auto, Native or JSON)", c.Format)
	}
	ac := apiconf.Configure(c.Options)
	if ac.Param != "" || ac.Explain {
		return errors.New("options: each object's parameter is its declaration's, and Consume does not explain")
	}
	c.opt = ac.Opt
	return c.opt.Validate()
}

// consumer is one member of the group.
type consumer struct {
	cfg  Config
	cl   *kgo.Client
	ctx  context.Context
	mu   sync.Mutex // parts and the rebalance callbacks
	part map[int32]*partition
	out  sync.Mutex // the verdict writer
	dead bool       // crashed (test hook): callbacks do nothing
	// fatal is the first verdict that could not be written: the member
	// then stops without checkpointing past it, so that its successor
	// finds that violation again rather than lose it.
	fatal atomic.Pointer[error]
	// ready is closed once cl is set: the group's callbacks may start
	// before NewClient returns it.
	ready chan struct{}
}

// Consume joins the group and checks the partitions it is assigned until
// ctx is done; it then checkpoints and commits what it owns, and leaves
// the group. It returns ctx's error, or the first error that stops it.
func Consume(ctx context.Context, cfg Config) error {
	if err := cfg.defaults(); err != nil {
		return err
	}
	// Verdicts and marks are written even once ctx is done: the batch
	// being checked is finished, and its verdicts must not be lost.
	c := &consumer{cfg: cfg, ctx: context.WithoutCancel(ctx), part: map[int32]*partition{}, ready: make(chan struct{})}
	opts := []kgo.Opt{
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(cfg.Topic),
		kgo.Balancers(kgo.CooperativeStickyBalancer()),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsRevoked(c.revoked),
		kgo.OnPartitionsLost(c.lost),
		kgo.AdjustFetchOffsetsFn(c.assigned),
	}
	cl, err := kgo.NewClient(append(opts, cfg.ClientOpts...)...)
	if err != nil {
		return err
	}
	c.cl = cl
	close(c.ready)
	runErr := c.loop(ctx)
	if f := c.fatal.Load(); f != nil {
		runErr = *f
	}
	if c.crashed() || c.fatal.Load() != nil {
		c.mu.Lock()
		c.dead = true
		c.mu.Unlock()
		cl.Close()
		return runErr
	}
	// A clean stop: checkpoint and commit everything owned.
	stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c.mu.Lock()
	err = c.checkpoint(stopCtx, c.owned())
	for _, p := range c.part {
		p.close()
	}
	c.part = map[int32]*partition{}
	c.dead = true
	c.mu.Unlock()
	cl.AllowRebalance()
	cl.Close()
	return errors.Join(runErr, err)
}

func (c *consumer) crashed() bool {
	if c.fatal.Load() != nil {
		return true
	}
	if c.cfg.crash == nil {
		return false
	}
	select {
	case <-c.cfg.crash:
		return true
	default:
		return false
	}
}

func (c *consumer) owned() []int32 {
	ps := make([]int32, 0, len(c.part))
	for p := range c.part {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	return ps
}

// loop polls, checks and checkpoints. Rebalances wait while a batch is
// being checked (BlockRebalanceOnPoll), so the callbacks see partitions
// between records.
func (c *consumer) loop(ctx context.Context) error {
	lastCP, lastSum := time.Now(), time.Now()
	for {
		if ctx.Err() != nil || c.crashed() {
			return ctx.Err()
		}
		pctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		fs := c.cl.PollRecords(pctx, 4096)
		cancel()
		if fs.IsClientClosed() {
			return nil
		}
		for _, e := range fs.Errors() {
			if e.Err != nil && !errors.Is(e.Err, context.DeadlineExceeded) && !errors.Is(e.Err, context.Canceled) {
				c.cfg.Logf("satmon consume: fetch %s/%d: %v", e.Topic, e.Partition, e.Err)
			}
		}
		c.mu.Lock()
		byPart := map[int32][]*kgo.Record{}
		fs.EachPartition(func(fp kgo.FetchTopicPartition) {
			p := c.part[fp.Partition]
			if p == nil || fp.Topic != c.cfg.Topic {
				return // not ours any more, or not yet restored
			}
			p.hwm = max(p.hwm, fp.HighWatermark)
			byPart[fp.Partition] = append(byPart[fp.Partition], fp.Records...)
		})
		c.check(byPart)
		var err error
		if !c.crashed() {
			if time.Since(lastCP) >= c.cfg.CheckpointEvery {
				err = c.checkpoint(ctx, c.owned())
				lastCP = time.Now()
			}
			if c.cfg.SummaryEvery > 0 && time.Since(lastSum) >= c.cfg.SummaryEvery {
				c.summaries()
				lastSum = time.Now()
			}
		}
		c.mu.Unlock()
		c.cl.AllowRebalance()
		if err != nil && ctx.Err() == nil {
			c.cfg.Logf("satmon consume: checkpoint: %v", err)
		}
	}
}

// check hands each partition's records to a worker: partitions are
// independent, so they are checked in parallel, at most Workers at once.
func (c *consumer) check(byPart map[int32][]*kgo.Record) {
	sem := make(chan struct{}, c.cfg.Workers)
	var wg sync.WaitGroup
	for pn, recs := range byPart {
		p := c.part[pn]
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			for _, r := range recs {
				if c.crashed() {
					return
				}
				if r.Offset < p.next {
					continue // already checked (a refetch)
				}
				p.record(r)
			}
		}()
	}
	wg.Wait()
}

// emit writes one verdict record: to the verdict topic, synchronously for
// violations and errors so that a checkpoint taken later never precedes
// them, or to Out.
func (c *consumer) emit(v Verdict) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as check's JSON: "<stdin>", not "\u003cstdin\u003e"
	if err := enc.Encode(v); err != nil {
		return err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	var err error
	c.out.Lock()
	defer c.out.Unlock()
	if c.cfg.VerdictTopic == "" {
		_, err = c.cfg.Out.Write(append(b, '\n'))
	} else {
		key := v.Key
		if v.Record == "summary" {
			key = strconv.Itoa(int(v.Partition))
		}
		r := &kgo.Record{Topic: c.cfg.VerdictTopic, Key: []byte(key), Value: b}
		err = c.cl.ProduceSync(c.ctx, r).FirstErr()
	}
	if err != nil && v.Record != "summary" {
		err = fmt.Errorf("writing a verdict: %w", err)
		c.fatal.CompareAndSwap(nil, &err)
	}
	if err == nil && c.cfg.OnVerdict != nil {
		c.cfg.OnVerdict(v)
	}
	return err
}

// mark records in the state topic that partition p's violation of object
// key at offset off has been reported, so that a later owner that finds
// it again marks it a duplicate.
func (c *consumer) mark(p int32, key string, off int64) error {
	b, _ := json.Marshal(stateRecord{Mark: &markRec{Partition: p, Key: key, Offset: off}})
	r := &kgo.Record{Topic: c.cfg.StateTopic, Key: []byte("mark/" + strconv.Itoa(int(p)) + "/" + key), Value: b}
	return c.cl.ProduceSync(c.ctx, r).FirstErr()
}

// stateRecord is a record of the state topic: a checkpoint of one
// partition, or the mark of a reported violation.
type stateRecord struct {
	Checkpoint *checkpoint `json:"checkpoint,omitempty"`
	Mark       *markRec    `json:"mark,omitempty"`
}

type markRec struct {
	Partition int32  `json:"partition"`
	Key       string `json:"key"`
	Offset    int64  `json:"offset"`
}

// checkpoint is what a new owner of a partition restarts from: the offset
// to read from and, for every object seen, the state its monitor takes
// over from there.
type checkpoint struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// Offset is where reading resumes: no object has an action before it
	// that a restart needs (the committed offset).
	Offset int64 `json:"offset"`
	// Read is the next offset the owner would have read.
	Read    int64      `json:"read"`
	Objects []objectCP `json:"objects"`
}

// objectCP is one object of a checkpoint.
type objectCP struct {
	Format     string `json:"format"` // native or json
	DeclOffset int64  `json:"decl_offset"`
	// Fresh: the object had not reached a drop point yet; it restarts as
	// new, with its declaration only.
	Fresh bool `json:"fresh,omitempty"`
	// Through is the offset of the object's last action the checkpoint
	// includes: its records up to it are skipped when read again.
	Through int64 `json:"through"`
	multi.Checkpoint
}

// checkpoint writes the checkpoints of partitions ps to the state topic,
// then commits their offsets. The order matters: the committed offset is
// never ahead of a stored checkpoint, and a checkpoint is only written
// once every verdict before it is out (emit is synchronous).
func (c *consumer) checkpoint(ctx context.Context, ps []int32) error {
	if len(ps) == 0 {
		return nil
	}
	var recs []*kgo.Record
	offs := map[int32]kgo.EpochOffset{}
	for _, pn := range ps {
		p := c.part[pn]
		cp := p.checkpoint(c.cfg.wrongOffsets)
		if cp.Offset == p.committed && cp.Read == p.cpRead {
			continue // nothing new
		}
		b, err := json.Marshal(stateRecord{Checkpoint: &cp})
		if err != nil {
			return err
		}
		recs = append(recs, &kgo.Record{Topic: c.cfg.StateTopic, Key: []byte("cp/" + strconv.Itoa(int(pn))), Value: b})
		offs[pn] = kgo.EpochOffset{Epoch: -1, Offset: cp.Offset}
		p.pending = cp
	}
	if len(recs) == 0 {
		return nil
	}
	if err := c.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return err
	}
	var cerr error
	c.cl.CommitOffsetsSync(ctx, map[string]map[int32]kgo.EpochOffset{c.cfg.Topic: offs},
		func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
			if err != nil {
				cerr = err
				return
			}
			for _, t := range resp.Topics {
				for _, pr := range t.Partitions {
					if pr.ErrorCode != 0 && cerr == nil {
						cerr = fmt.Errorf("commit %s/%d: error code %d", t.Topic, pr.Partition, pr.ErrorCode)
					}
				}
			}
		})
	for pn := range offs {
		p := c.part[pn]
		// The checkpoint is stored, whatever became of the commit; a
		// failed commit (a rebalance under way) is retried next time.
		p.cpRead = p.pending.Read
		if cerr == nil {
			p.committed = p.pending.Offset
		}
		if c.cfg.onCheckpoint != nil {
			c.cfg.onCheckpoint(pn, p.committed, p.cpRead, p.summary().Windows)
		}
	}
	return cerr
}

func (c *consumer) summaries() {
	for _, pn := range c.owned() {
		p := c.part[pn]
		s := p.summary()
		c.emit(Verdict{Record: "summary", Topic: c.cfg.Topic, Partition: pn, Summary: &s})
	}
}

// revoked checkpoints and drops the partitions taken away.
func (c *consumer) revoked(ctx context.Context, _ *kgo.Client, lost map[string][]int32) {
	<-c.ready // checkpoint writes with c.cl
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead || c.crashed() {
		return // a crashed member writes nothing more
	}
	ps := lost[c.cfg.Topic]
	var mine []int32
	for _, pn := range ps {
		if c.part[pn] != nil {
			mine = append(mine, pn)
		}
	}
	if err := c.checkpoint(ctx, mine); err != nil {
		c.cfg.Logf("satmon consume: checkpoint on revoke: %v", err)
	}
	for _, pn := range mine {
		c.part[pn].close()
		delete(c.part, pn)
	}
	c.cfg.Logf("satmon consume: %s: revoked %v", c.cfg.Group, mine)
}

// lost drops partitions without checkpointing: another member may own
// them already.
func (c *consumer) lost(_ context.Context, _ *kgo.Client, lost map[string][]int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, pn := range lost[c.cfg.Topic] {
		if p := c.part[pn]; p != nil {
			p.close()
			delete(c.part, pn)
		}
	}
}

// assigned restores the partitions given to this member from their last
// checkpoints, and starts reading each at its checkpoint's offset — not
// at the committed offset, which may lag it after a crash between the
// two writes. A partition without a checkpoint is read from its start.
func (c *consumer) assigned(ctx context.Context, offs map[string]map[int32]kgo.Offset) (map[string]map[int32]kgo.Offset, error) {
	ps := offs[c.cfg.Topic]
	if len(ps) == 0 {
		return offs, nil
	}
	st, err := c.readState(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for pn, committed := range ps {
		if eo := committed.EpochOffset(); st.cps[pn] == nil && eo.Offset > 0 {
			c.cfg.Logf("satmon consume: %s/%d: committed offset %d but no checkpoint in %s: reading the partition from its start",
				c.cfg.Topic, pn, eo.Offset, c.cfg.StateTopic)
		}
		p, err := c.newPartition(pn, st.cps[pn], st.marks[pn])
		if err != nil {
			return nil, err
		}
		if old := c.part[pn]; old != nil {
			old.close()
		}
		c.part[pn] = p
		ps[pn] = kgo.NewOffset().At(p.next).WithEpoch(-1)
		c.cfg.Logf("satmon consume: %s: assigned %s/%d from offset %d (%d objects restored)", c.cfg.Group, c.cfg.Topic, pn, p.next, p.stream.Objects())
		if c.cfg.onAssigned != nil {
			c.cfg.onAssigned(pn, p.next, p.cpRead)
		}
	}
	return offs, nil
}

// stateView is the state topic read to its end: the last checkpoint of
// each partition and the violations marked as reported.
type stateView struct {
	cps   map[int32]*checkpoint
	marks map[int32]map[string]int64
}

// readState reads the state topic from its start to its current end.
func (c *consumer) readState(ctx context.Context) (stateView, error) {
	v := stateView{cps: map[int32]*checkpoint{}, marks: map[int32]map[string]int64{}}
	// A client of its own, also for the end offset: the group's client
	// calls this (assigned) from its first assignment on, which may come
	// before NewClient has returned it to Consume.
	opts := []kgo.Opt{kgo.SeedBrokers(c.cfg.Brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{c.cfg.StateTopic: {0: kgo.NewOffset().AtStart()}})}
	rd, err := kgo.NewClient(append(opts, c.cfg.ClientOpts...)...)
	if err != nil {
		return v, err
	}
	defer rd.Close()
	end, err := endOffset(ctx, rd, c.cfg.StateTopic)
	if err != nil || end == 0 {
		return v, err
	}
	for next := int64(0); next < end; {
		fs := rd.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return v, err
		}
		for _, e := range fs.Errors() {
			return v, fmt.Errorf("reading %s: %w", c.cfg.StateTopic, e.Err)
		}
		for it := fs.RecordIter(); !it.Done(); {
			r := it.Next()
			next = r.Offset + 1
			var sr stateRecord
			if err := json.Unmarshal(r.Value, &sr); err != nil {
				return v, fmt.Errorf("%s:%d: %v", c.cfg.StateTopic, r.Offset, err)
			}
			switch {
			case sr.Checkpoint != nil && sr.Checkpoint.Topic == c.cfg.Topic:
				v.cps[sr.Checkpoint.Partition] = sr.Checkpoint
			case sr.Mark != nil:
				m := v.marks[sr.Mark.Partition]
				if m == nil {
					m = map[string]int64{}
					v.marks[sr.Mark.Partition] = m
				}
				m[sr.Mark.Key] = sr.Mark.Offset
			}
		}
	}
	return v, nil
}

// partition is what a member holds for one partition it owns.
type partition struct {
	c       *consumer
	pn      int32
	stream  *multi.Stream
	objs    map[string]*object
	decls   map[string]logfmt.ObjectDecl // native declarations known; Line is the record's offset
	parsers [2]*parser                   // native, JSON
	marks   map[string]int64             // violations a previous owner reported
	next    int64                        // the next offset to read
	replay  int64                        // offsets before it were read by a previous owner
	hwm     int64                        // the partition's high watermark, last seen

	committed, cpRead int64
	pending           checkpoint

	steps, ops int64
	violations int
	evs        []logfmt.Event
	cur        *kgo.Record // the record being checked, for onViolation
}

// object is what a partition keeps of one object besides its monitor.
type object struct {
	format     int // native or jsonFm
	decl       logfmt.ObjectDecl
	declOffset int64
	last       int64 // offset of its last action checked
	// since is the offset of the object's first action after its last
	// drop point, -1 when it is at one; cp is its checkpoint there (nil:
	// it has not reached one, and restarts as new).
	since int64
	cp    *multi.Checkpoint
	// skipTo: its records up to this offset are in its restored
	// checkpoint already, and are skipped when read again.
	skipTo int64
}

const (
	native = 0
	jsonFm = 1
)

var formatNames = [2]string{"native", "json"}

func (c *consumer) newPartition(pn int32, cp *checkpoint, marks map[string]int64) (*partition, error) {
	p := &partition{c: c, pn: pn, objs: map[string]*object{}, decls: map[string]logfmt.ObjectDecl{}, marks: marks}
	s, err := multi.NewStream(c.ctx, fmt.Sprintf("%s/%d", c.cfg.Topic, pn), multi.MultiOptions{Options: c.cfg.opt}, p.onViolation)
	if err != nil {
		return nil, err
	}
	p.stream = s
	if cp == nil {
		return p, nil
	}
	p.next, p.committed, p.cpRead, p.replay = cp.Offset, cp.Offset, cp.Read, cp.Read
	for _, o := range cp.Objects {
		f := native
		if o.Format == formatNames[jsonFm] {
			f = jsonFm
		}
		kind, ok := history.ParseObject(o.Kind)
		if !ok {
			return nil, fmt.Errorf("checkpoint of %s/%d: object %s of unknown kind %q", c.cfg.Topic, pn, o.Name, o.Kind)
		}
		decl := logfmt.ObjectDecl{Name: o.Name, Kind: kind, Param: o.Param, Line: int(o.DeclOffset)}
		if f == native && (!o.Fresh || o.DeclOffset < cp.Offset) {
			// Declared to the native parser when it starts; a fresh
			// object declared later has its declaration read again.
			p.decls[o.Name] = decl
		}
		if o.Fresh {
			continue // all its actions are read again
		}
		if err := s.Restore(&decl, o.Checkpoint); err != nil {
			return nil, err
		}
		cpc := o.Checkpoint
		p.objs[o.Name] = &object{format: f, decl: decl, declOffset: o.DeclOffset, since: -1, cp: &cpc, skipTo: o.Through, last: o.Through}
	}
	return p, nil
}

// declLines are the declarations a new native parser is given.
func (p *partition) declLines() []byte {
	names := make([]string, 0, len(p.decls))
	for n := range p.decls {
		names = append(names, n)
	}
	sort.Strings(names)
	var b []byte
	for _, n := range names {
		d := p.decls[n]
		b = logfmt.AppendDecl(b, n, d.Kind, d.Param)
		b = append(b, '\n')
	}
	return b
}

func (p *partition) close() {
	for i, ps := range p.parsers {
		if ps != nil {
			ps.close()
			p.parsers[i] = nil
		}
	}
}

// parser returns the partition's parser of format f, starting one (with
// the declarations known so far) if needed: at the start, and after a
// malformed record, whose error is sticky in the reader.
func (p *partition) parser(f int) (*parser, error) {
	if ps := p.parsers[f]; ps != nil && !ps.dead {
		return ps, nil
	}
	lf := logfmt.Native
	if f == jsonFm {
		lf = logfmt.JSON
	}
	ps, err := newParser(lf, fmt.Sprintf("%s/%d", p.c.cfg.Topic, p.pn), history.Object(p.c.cfg.Object))
	if err != nil {
		return nil, err
	}
	if ls := p.declLines(); f == native && len(ls) > 0 {
		if _, err := ps.feed(ls, nil); err != nil {
			ps.close()
			return nil, fmt.Errorf("declaring the objects of %s/%d: %w", p.c.cfg.Topic, p.pn, err)
		}
	}
	p.parsers[f] = ps
	return ps, nil
}

// record checks one record.
func (p *partition) record(r *kgo.Record) {
	p.next = r.Offset + 1
	key := string(r.Key)
	if p.stream.Done(key) {
		return // its verdict is final
	}
	if o := p.objs[key]; o != nil && r.Offset <= o.skipTo {
		return // in its checkpoint already
	}
	val := bytes.TrimRight(r.Value, "\r\n")
	f := native
	switch p.c.cfg.Format {
	case JSON:
		f = jsonFm
	case Auto:
		if t := bytes.TrimLeft(val, " \t"); len(t) > 0 && t[0] == '{' {
			f = jsonFm
		}
	}
	if bytes.ContainsAny(val, "\r\n") {
		p.fail(r, fmt.Errorf("%s/%d:%d:1: a record holds one action, found several lines", p.c.cfg.Topic, p.pn, r.Offset))
		return
	}
	var decl logfmt.ObjectDecl
	isDecl := false
	if f == native {
		decl, isDecl = parseDecl(val)
		if isDecl {
			if _, known := p.decls[decl.Name]; known && r.Offset < p.replay {
				return // declared to the parser from the checkpoint
			}
		}
	}
	ps, err := p.parser(f)
	if err != nil {
		p.fail(r, err)
		return
	}
	line := append(append(make([]byte, 0, len(val)+1), val...), '\n')
	evs, err := ps.feed(line, p.evs[:0])
	p.evs = evs
	if err != nil {
		p.fail(r, p.position(r, err))
		return
	}
	if isDecl {
		if decl.Name != key {
			p.fail(r, fmt.Errorf("%s/%d:%d:1: record key %q, but the declaration is of object %q (the key must name the object)", p.c.cfg.Topic, p.pn, r.Offset, key, decl.Name))
		}
		decl.Line = int(r.Offset)
		p.decls[decl.Name] = decl
	}
	for i := range evs {
		ev := evs[i]
		name := ev.Object.Name
		if name != key {
			p.fail(r, fmt.Errorf("%s/%d:%d:1: record key %q, but the action is of object %q (the key must name the object)", p.c.cfg.Topic, p.pn, r.Offset, key, name))
			continue
		}
		o := p.objs[name]
		if o == nil {
			o = &object{format: f, decl: *ev.Object, declOffset: r.Offset, since: -1}
			if d, ok := p.decls[name]; ok && f == native {
				o.declOffset = int64(d.Line)
			}
			o.decl.Line = int(o.declOffset)
			p.objs[name] = o
		}
		if o.since < 0 {
			o.cp = nil
			if cp, ok := p.stream.Resume(name); ok {
				o.cp = &cp
			}
			o.since = r.Offset
		}
		ev.Seq, ev.Line = int(r.Offset), int(r.Offset)
		p.cur = r
		p.stream.Step(ev)
		p.cur = nil
		o.last = r.Offset
		p.steps++
		if ev.Kind == history.Call {
			p.ops++
		}
		if p.stream.AtRest(name) {
			o.since = -1
		}
	}
}

// parseDecl reads a native declaration line, '# @object NAME KIND
// [PARAM]' (the parser checks it; this only keeps what it says).
func parseDecl(val []byte) (logfmt.ObjectDecl, bool) {
	f := strings.Fields(string(val))
	if len(f) < 4 || f[0] != "#" || f[1] != "@object" {
		return logfmt.ObjectDecl{}, false
	}
	if _, isKind := history.ParseObject(f[2]); isKind {
		return logfmt.ObjectDecl{}, false
	}
	k, ok := history.ParseObject(f[3])
	if !ok {
		return logfmt.ObjectDecl{}, false
	}
	return logfmt.ObjectDecl{Name: f[2], Kind: k, Param: strings.Join(f[4:], " ")}, true
}

// position rewrites a reader's error to name the record: the offset takes
// the place of the line.
func (p *partition) position(r *kgo.Record, err error) error {
	var le *logfmt.Error
	if errors.As(err, &le) {
		return fmt.Errorf("%s/%d:%d:%d: %s", p.c.cfg.Topic, p.pn, r.Offset, le.Col, le.Msg)
	}
	return fmt.Errorf("%s/%d:%d: %v", p.c.cfg.Topic, p.pn, r.Offset, err)
}

// fail reports a record that could not be checked.
func (p *partition) fail(r *kgo.Record, err error) {
	off := r.Offset
	res := multi.ObjectResult{Name: string(r.Key), Result: engine.Result{File: fmt.Sprintf("%s/%d", p.c.cfg.Topic, p.pn), Verdict: engine.Error, Error: err.Error(), Algorithm: p.c.cfg.opt.Name()}}
	p.c.emit(Verdict{Record: "error", Topic: p.c.cfg.Topic, Partition: p.pn, Offset: &off, Key: string(r.Key), Result: resultOf(&res)})
}

// onViolation reports a violation the moment the stream proves it, and
// marks it reported.
func (p *partition) onViolation(res multi.ObjectResult) {
	r := p.cur
	off := r.Offset
	v := Verdict{Record: "violation", Topic: p.c.cfg.Topic, Partition: p.pn, Offset: &off, Key: string(r.Key), Result: resultOf(&res)}
	if o, ok := p.marks[v.Key]; ok && o == off {
		v.Duplicate = true
	}
	p.violations++
	if err := p.c.emit(v); err != nil {
		p.c.cfg.Logf("satmon consume: writing a verdict: %v", err)
		return
	}
	if !v.Duplicate {
		if err := p.c.mark(p.pn, v.Key, off); err != nil {
			p.c.cfg.Logf("satmon consume: marking a verdict: %v", err)
		}
	}
}

// checkpoint is the partition's checkpoint now. Its offset is the
// earliest action of any object under way (since its last drop point),
// or of a declaration not followed by an action yet, and the next offset
// to read when there is none: before it, every object is at a drop point
// whose state the checkpoint holds, so nothing before it is needed.
func (p *partition) checkpoint(wrong bool) checkpoint {
	cp := checkpoint{Topic: p.c.cfg.Topic, Partition: p.pn, Offset: p.next, Read: p.next}
	for n, d := range p.decls {
		if _, ok := p.objs[n]; !ok {
			cp.Offset = min(cp.Offset, int64(d.Line))
		}
	}
	names := make([]string, 0, len(p.objs))
	for n := range p.objs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		o := p.objs[n]
		oc := objectCP{Format: formatNames[o.format], DeclOffset: o.declOffset}
		switch {
		case o.since < 0:
			c, ok := p.stream.Resume(n)
			if !ok {
				panic("satmon: object at rest without a checkpoint") // AtRest and Resume disagree
			}
			oc.Checkpoint, oc.Through = c, o.last
		case o.cp != nil:
			cp.Offset = min(cp.Offset, o.since)
			oc.Checkpoint, oc.Through = *o.cp, o.since-1
		default:
			cp.Offset = min(cp.Offset, o.since)
			oc.Fresh, oc.Through = true, -1
			oc.Checkpoint = multi.Checkpoint{Name: n, Kind: o.decl.Kind.String(), Param: o.decl.Param}
		}
		cp.Objects = append(cp.Objects, oc)
	}
	if wrong {
		cp.Offset = p.next
	}
	return cp
}

func (p *partition) summary() Summary {
	s := Summary{Objects: p.stream.Objects(), Live: p.stream.Live(), Steps: p.steps, Operations: p.ops,
		Violations: p.violations, Next: p.next, Committed: p.committed, Lag: max(0, p.hwm-p.next)}
	for _, o := range p.objs {
		if o.since >= 0 {
			s.Windows++
		}
	}
	return s
}
