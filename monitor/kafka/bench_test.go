package kafka

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/multi"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/satmon/satmon/internal/logfmt"
)

// BenchmarkConsumers runs groups of 1, 2 and 4 consumer processes (this
// test binary, re-executed) against an in-process Kafka holding one log
// of many objects, and prints a table: actions checked per second by
// each consumer and by the group, and each consumer's peak memory. Every
// process shares the machine's cores with the broker and the producer.
//
//	go test ./kafka -run '^$' -bench Consumers -benchtime 1x
func BenchmarkConsumers(b *testing.B) {
	s := faultSetup{partitions: 16, objects: 3000, ops: 12, seed: 7}
	recs, file := workload(b, s)
	keys, lines := make([]string, len(recs)), make([]string, len(recs))
	for i, r := range recs {
		keys[i], lines[i] = r.key, r.text
	}
	fmt.Printf("workload: %d objects of 9 kinds, %d records (actions and declarations), %d partitions; GOMAXPROCS %d, %d CPUs\n",
		s.objects, len(lines), s.partitions, runtime.GOMAXPROCS(0), runtime.NumCPU())
	// For scale: satmon check's reading and checking of the same actions
	// as one file, in this process, with as many workers.
	t0 := time.Now()
	lr, err := multi.CheckMulti(context.Background(), bytes.NewReader(file), logfmt.Native, logfmt.Options{Name: "all.log"},
		multi.MultiOptions{Options: engine.Options{RemoveObsolete: true}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Printf("satmon check on the same log as one file: %d actions in %v, %.0f actions/s\n", lr.Steps, time.Since(t0).Round(time.Millisecond), float64(lr.Steps)/time.Since(t0).Seconds())
	fmt.Printf("%-10s %-9s %12s %12s %10s %10s\n", "consumers", "consumer", "actions", "actions/s", "peak RSS", "peak heap")
	for range b.N {
		for _, n := range []int{1, 2, 4} {
			benchGroup(b, s, keys, lines, n)
		}
	}
}

func benchGroup(b *testing.B, s faultSetup, keys, lines []string, n int) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.GroupMinSessionTimeout(100*time.Millisecond),
		kfake.SeedTopics(int32(s.partitions), "actions"), kfake.SeedTopics(1, "actions.satmon-state"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	brokers := c.ListenAddrs()
	pr, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ProducerLinger(0))
	if err != nil {
		b.Fatal(err)
	}
	end := map[int32]int64{}
	for i := 0; i < len(lines); i += 2000 {
		var recs []*kgo.Record
		for j := i; j < min(i+2000, len(lines)); j++ {
			recs = append(recs, &kgo.Record{Topic: "actions", Key: []byte(keys[j]), Value: []byte(lines[j])})
		}
		res := pr.ProduceSync(context.Background(), recs...)
		if err := res.FirstErr(); err != nil {
			b.Fatal(err)
		}
		for _, r := range res {
			end[r.Record.Partition] = max(end[r.Record.Partition], r.Record.Offset+1)
		}
	}
	pr.Close()

	var mu sync.Mutex
	next := map[int32]int64{}
	done := make(chan struct{})
	var once sync.Once
	type child struct {
		cmd   *exec.Cmd
		stats string
	}
	children := make([]*child, n)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range children {
		cmd := exec.Command(os.Args[0], "-test.run=^TestConsumerProcess$", "-test.v")
		cmd.Env = append(os.Environ(), "SATMON_KAFKA_CHILD="+strings.Join(brokers, ","))
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		ch := &child{cmd: cmd}
		children[i] = ch
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				switch {
				case len(f) == 3 && f[0] == "next":
					p, _ := strconv.Atoi(f[1])
					o, _ := strconv.ParseInt(f[2], 10, 64)
					mu.Lock()
					next[int32(p)] = max(next[int32(p)], o)
					all := true
					for q, e := range end {
						if next[q] < e {
							all = false
						}
					}
					mu.Unlock()
					if all {
						once.Do(func() { close(done) })
					}
				case len(f) > 0 && f[0] == "stats":
					ch.stats = sc.Text()
				}
			}
		}()
	}
	select {
	case <-done:
	case <-time.After(5 * time.Minute):
		b.Error("the group did not read every partition to its end")
	}
	wall := time.Since(start)
	for _, ch := range children {
		ch.cmd.Process.Signal(os.Interrupt)
	}
	wg.Wait()
	var total int64
	for i, ch := range children {
		ch.cmd.Wait()
		var steps, rss, heap int64
		var secs float64
		fmt.Sscanf(ch.stats, "stats %d %f %d %d", &steps, &secs, &rss, &heap)
		total += steps
		rate := 0.0
		if secs > 0 {
			rate = float64(steps) / secs
		}
		fmt.Printf("%-10d %-9d %12d %12.0f %9.1fM %9.1fM\n", n, i, steps, rate, float64(rss)/1024, float64(heap)/(1<<20))
	}
	fmt.Printf("%-10d %-9s %12d %12.0f   (wall %v from start, group joins included; actions checked twice after a rebalance count twice)\n",
		n, "group", total, float64(total)/wall.Seconds(), wall.Round(time.Millisecond))
}

// TestConsumerProcess is one consumer of BenchmarkConsumers, in a process
// of its own; it does nothing unless the benchmark started it.
func TestConsumerProcess(t *testing.T) {
	brokers := os.Getenv("SATMON_KAFKA_CHILD")
	if brokers == "" {
		t.Skip("a child of BenchmarkConsumers")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var mu sync.Mutex
	steps := map[int32]int64{}
	var first, last time.Time
	var peakHeap uint64
	out := bufio.NewWriter(os.Stdout)
	cfg := Config{Brokers: strings.Split(brokers, ","), Topic: "actions", Group: "bench",
		SummaryEvery: 100 * time.Millisecond, CheckpointEvery: time.Second,
		ClientOpts: testClientOpts,
		OnVerdict: func(v Verdict) {
			if v.Record != "summary" {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if v.Summary.Steps > steps[v.Partition] {
				if first.IsZero() {
					first = time.Now()
				}
				last = time.Now()
			}
			steps[v.Partition] = max(steps[v.Partition], v.Summary.Steps)
			fmt.Fprintf(out, "next %d %d\n", v.Partition, v.Summary.Next)
			out.Flush()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapInuse)
		}}
	cfg.Out = nil
	Consume(ctx, cfg)
	mu.Lock()
	defer mu.Unlock()
	var total int64
	for _, s := range steps {
		total += s
	}
	fmt.Fprintf(out, "stats %d %f %d %d\n", total, last.Sub(first).Seconds(), vmHWM(), peakHeap)
	out.Flush()
}

// vmHWM is the process's peak resident set in kB (Linux), 0 elsewhere.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}
