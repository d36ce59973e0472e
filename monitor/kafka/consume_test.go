package kafka

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/satmon/satmon/monitor"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// cluster starts an in-process Kafka with the topics of a test.
func cluster(t *testing.T, partitions int32, topics ...string) []string {
	t.Helper()
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.GroupMinSessionTimeout(100 * time.Millisecond)}
	for _, tp := range topics {
		opts = append(opts, kfake.SeedTopics(partitions, tp))
	}
	opts = append(opts, kfake.SeedTopics(1, "actions.satmon-state"))
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

var testClientOpts = []kgo.Opt{kgo.FetchMaxWait(50 * time.Millisecond), kgo.HeartbeatInterval(100 * time.Millisecond), kgo.SessionTimeout(2 * time.Second)}

// consumeUntil runs one consumer until stop says its verdicts suffice
// (or 20s pass), and returns them.
func consumeUntil(t *testing.T, cfg Config, stop func([]Verdict) bool) []Verdict {
	t.Helper()
	var mu sync.Mutex
	var got []Verdict
	enough := make(chan struct{})
	var once sync.Once
	cfg.OnVerdict = func(v Verdict) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, v)
		if stop(got) {
			once.Do(func() { close(enough) })
		}
	}
	cfg.ClientOpts = testClientOpts
	cfg.Logf = t.Logf
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- Consume(ctx, cfg) }()
	select {
	case <-enough:
	case <-time.After(20 * time.Second):
		t.Error("timed out waiting for the verdicts")
	}
	cancel()
	if err := <-errc; err != nil && ctx.Err() == nil {
		t.Error(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return got
}

func violations(vs []Verdict) map[string]Verdict {
	m := map[string]Verdict{}
	for _, v := range vs {
		if v.Record == "violation" {
			m[v.Key] = v
		}
	}
	return m
}

// TestRecorderToConsume: a Go program records two objects through
// Recorder; the consumer finds the violation of the broken one, with its
// partition, offset and key, and none for the sound one.
func TestRecorderToConsume(t *testing.T) {
	t.Parallel()
	brokers := cluster(t, 4, "actions")
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic("actions"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()

	// A sound queue, used by two goroutines.
	q := NewRecorder(cl, "actions", "q", monitor.Queue, "")
	var qmu sync.Mutex
	var items []string
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				v := strconv.Itoa(g*100 + i)
				op := q.Call(monitor.Label{Method: monitor.Add, Arg: monitor.Value(v)})
				qmu.Lock()
				items = append(items, v)
				qmu.Unlock()
				op.Return(monitor.Void)
				op = q.Call(monitor.Label{Method: monitor.Rem})
				qmu.Lock()
				x := items[0]
				items = items[1:]
				qmu.Unlock()
				op.Return(monitor.Value(x))
			}
		}()
	}
	wg.Wait()
	// A register that forgets its writes: its read returns the initial
	// value after a write of 7 returned.
	r := NewRecorder(cl, "actions", "r", monitor.Register, "0")
	r.Call(monitor.Label{Method: monitor.Write, Arg: "7"}).Return(monitor.Void)
	r.Call(monitor.Label{Method: monitor.Read}).Return("0")
	for _, rec := range []*Recorder{q, r} {
		if err := rec.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}

	got := consumeUntil(t, Config{Brokers: brokers, Topic: "actions", Group: "g",
		SummaryEvery: 100 * time.Millisecond}, func(vs []Verdict) bool {
		sums := map[int32]bool{}
		for _, v := range vs {
			if v.Record == "summary" && v.Summary.Next > 0 && v.Summary.Lag == 0 {
				sums[v.Partition] = true
			}
		}
		return len(violations(vs)) > 0 && len(sums) >= 2
	})
	vs := violations(got)
	v, ok := vs["r"]
	if b, err := json.Marshal(v); err == nil {
		t.Logf("the violation record: %s", b)
	}
	if !ok || len(vs) != 1 {
		t.Fatalf("violations %v; want one, of r", vs)
	}
	// r's records: its declaration, the write's call and return, the
	// read's call and return, the last at offset 4 unless q shares the
	// partition.
	if v.Offset == nil || *v.Offset < 4 || v.Name != "r" || *v.ViolationStep != 4 || v.ViolationLine != int(*v.Offset) || v.Duplicate {
		t.Errorf("violation record %+v %+v: want step 4, at the read's return", v, *v.Result)
	}
	for _, x := range got {
		if x.Record == "error" {
			t.Errorf("error record: %s", x.Error)
		}
		if x.Record == "summary" && x.Summary.Windows != 0 && x.Summary.Lag == 0 && x.Summary.Committed == x.Summary.Next {
			t.Errorf("summary %+v: objects under way, yet committed up to the end", *x.Summary)
		}
	}
}

// TestConsumeJSON: records that are JSON event maps (Jepsen's fields, the
// key naming the object) are checked as check reads them.
func TestConsumeJSON(t *testing.T) {
	t.Parallel()
	brokers := cluster(t, 2, "actions")
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic("actions"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	events := [][2]string{
		{"a", `{"process": 0, "type": "invoke", "f": "write", "key": "a", "value": 1}`},
		{"b", `{"process": 1, "type": "invoke", "f": "write", "key": "b", "value": 5}`},
		{"a", `{"process": 0, "type": "ok", "f": "write", "key": "a", "value": 1}`},
		{"b", `{"process": 1, "type": "ok", "f": "write", "key": "b", "value": 5}`},
		{"a", `{"process": 2, "type": "invoke", "f": "cas", "key": "a", "value": [1, 2]}`},
		{"a", `{"process": 2, "type": "ok", "f": "cas", "key": "a", "value": [1, 2]}`},
		{"b", `{"process": 3, "type": "invoke", "f": "read", "key": "b"}`},
		{"b", `{"process": 3, "type": "ok", "f": "read", "key": "b", "value": 5}`},
		{"a", `{"process": 0, "type": "invoke", "f": "read", "key": "a"}`},
		{"a", `{"process": 0, "type": "ok", "f": "read", "key": "a", "value": 1}`},
		{"c", `{"process": 4, "type": "invoke", "f": "frobnicate", "key": "c"}`},
	}
	for _, e := range events {
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Key: []byte(e[0]), Value: []byte(e[1])}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	got := consumeUntil(t, Config{Brokers: brokers, Topic: "actions", Group: "g"},
		func(vs []Verdict) bool {
			errs := 0
			for _, v := range vs {
				if v.Record == "error" {
					errs++
				}
			}
			return len(violations(vs)) > 0 && errs > 0
		})
	vs := violations(got)
	if _, ok := vs["a"]; !ok || len(vs) != 1 {
		t.Fatalf("violations %v; want one, of a (read 1 after cas 1→2)", vs)
	}
	for _, v := range got {
		if v.Record == "error" && (v.Key != "c" || v.Offset == nil) {
			t.Errorf("error record %+v: want the frobnicate of c", v)
		}
	}
}

// TestVerdictTopic: with a verdict topic, the records go there, keyed by
// the object.
func TestVerdictTopic(t *testing.T) {
	t.Parallel()
	brokers := cluster(t, 2, "actions", "verdicts")
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic("actions"),
		kgo.ConsumeTopics("verdicts"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, l := range []string{"# @object s stack", "[1] call s.push(1)", "[1] return", "[2] call s.pop", "[2] return 2"} {
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Key: []byte("s"), Value: []byte(l)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	consumeUntil(t, Config{Brokers: brokers, Topic: "actions", Group: "g", VerdictTopic: "verdicts"},
		func(vs []Verdict) bool { return len(violations(vs)) > 0 })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatal("no violation record in the verdict topic")
		}
		for it := fs.RecordIter(); !it.Done(); {
			r := it.Next()
			var v Verdict
			if err := json.Unmarshal(r.Value, &v); err != nil {
				t.Fatal(err)
			}
			if v.Record == "violation" {
				if string(r.Key) != "s" || v.Key != "s" || *v.Offset != 4 || *v.ViolationStep != 4 {
					t.Errorf("record key %q, verdict %+v: want s's violation at offset 4, step 4", r.Key, v)
				}
				return
			}
		}
	}
}

// TestDuplicateMarked: a member reports a violation and crashes before
// any checkpoint; its successor replays the partition, proves the
// violation again and marks it a duplicate — and only that one.
func TestDuplicateMarked(t *testing.T) {
	t.Parallel()
	brokers := cluster(t, 1, "actions")
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic("actions"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	produce := func(lines ...[2]string) {
		for _, l := range lines {
			if err := cl.ProduceSync(context.Background(), &kgo.Record{Key: []byte(l[0]), Value: []byte(l[1])}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	produce([2]string{"s", "# @object s stack"}, [2]string{"s", "[1] call s.push(1)"}, [2]string{"s", "[1] return"},
		[2]string{"s", "[2] call s.pop"}, [2]string{"s", "[2] return 2"})
	cfg := Config{Brokers: brokers, Topic: "actions", Group: "g", CheckpointEvery: time.Hour}
	crash := make(chan struct{})
	first := cfg
	CrashOn(&first, crash)
	got := consumeUntil(t, first, func(vs []Verdict) bool {
		if len(violations(vs)) > 0 {
			close(crash) // before any checkpoint: the successor replays it all
			return true
		}
		return false
	})
	if v := violations(got)["s"]; v.Duplicate {
		t.Fatalf("first report marked duplicate: %+v", v)
	}
	// A violation the first member never saw: not a duplicate.
	produce([2]string{"u", "# @object u queue"}, [2]string{"u", "[3] call u.enqueue(1)"}, [2]string{"u", "[3] return"},
		[2]string{"u", "[4] call u.dequeue"}, [2]string{"u", "[4] return 2"})
	got = consumeUntil(t, cfg, func(vs []Verdict) bool { return len(violations(vs)) >= 2 })
	vs := violations(got)
	if v, ok := vs["s"]; !ok || !v.Duplicate || *v.Offset != 4 {
		t.Errorf("s again: %+v; want it marked duplicate, at offset 4", v)
	}
	if v, ok := vs["u"]; !ok || v.Duplicate {
		t.Errorf("u: %+v; want a violation not marked duplicate", v)
	}
}
