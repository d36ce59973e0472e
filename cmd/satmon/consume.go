package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/satmon/satmon/internal/apiconf"
	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/monitor"
	"github.com/satmon/satmon/monitor/kafka"
)

func init() {
	register(&command{name: "consume", summary: "check a Kafka topic of actions live, as a member of a consumer group", run: runConsume})
}

const consumeHelp = `Usage: satmon consume --brokers HOST:PORT[,...] --topic TOPIC --group GROUP [flags]

Joins consumer group GROUP and checks the actions of TOPIC, partition by
partition: each record is one action of one object, keyed by the
object's name, so that every action of an object lands in one partition.
Linearizability is local (a history is linearizable iff each object's
is), so each member checks the objects of the partitions it is assigned,
and Kafka spreads the partitions over the members, moves them when one
joins or leaves, and hands a dead member's partitions to the others.

A record's value is one line of a log of many objects (docs/format.md):
'# @object NAME KIND [PARAM]' declares object NAME (before its first
action), '[ID] call NAME.method(ARGS)' and '[ID] return VALUE' are its
actions (ids unique among the open operations of a partition). Or it is
one JSON event map as check reads them ({"process": 0, "type": "invoke",
"f": "cas", "key": "k1", "value": [1, 2]}), whose key is the object.

Each violation is written as soon as it is proven, as a JSON record
(docs/distributed.md): to --verdicts TOPIC, or to standard output. So is
each partition's summary, every --summary-every.

Offsets: a partition's offset is committed only up to the earliest
action of an object still under way, and a checkpoint of every object's
state there goes to the state topic first; a new owner restarts from the
checkpoint and reaches the same verdicts. A violation reported before
is marked "duplicate": true (at-least-once; docs/distributed.md).

Runs until interrupted (Ctrl-C, SIGTERM); then checkpoints, commits and
leaves the group. Rebalances, restarts and failed checkpoints are logged
to stderr. Exit status: 1 if this run reported a violation (not
counting duplicates), 2 on a usage or connection error, 0 otherwise.

Example:
  satmon consume --brokers localhost:9092 --topic actions --group satmon

Flags:
`

func runConsume(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("consume", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	brokers := fs.String("brokers", "", "seed brokers, host:port separated by commas")
	topic := fs.String("topic", "", "the topic of actions")
	group := fs.String("group", "", "the consumer group (one per topic checked)")
	verdicts := fs.String("verdicts", "", "topic the verdict records go to (default: standard output)")
	state := fs.String("state-topic", "", "topic of checkpoints and reported violations: compacted, one partition (default TOPIC.satmon-state)")
	alg := fs.StringP("algorithm", "a", "saturate", "checking algorithm: saturate, symbolic or enumerate (as for check)")
	noRemove := fs.Bool("no-remove", false, "do not forget operations (saturate's -r is on by default)")
	objName := fs.String("object", "", "kind of the objects of JSON event maps: cas-register or string-register (default: from the operations)")
	inFormat := fs.String("input-format", "auto", "record values: auto (each by its first byte), native or json")
	workers := fs.Int("workers", 0, "goroutines checking partitions (0: one per core)")
	every := fs.Duration("checkpoint-every", 0, "how often to checkpoint and commit (default 2s)")
	summary := fs.Duration("summary-every", 0, "how often to write each partition's summary (default 10s; negative: never)")
	fs.Usage = func() {
		fmt.Fprint(stderr, consumeHelp)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		return usageError(stderr, "consume", err)
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "consume", fmt.Errorf("unexpected argument %q: consume reads a topic, not files", fs.Arg(0)))
	}
	if *brokers == "" || *topic == "" || *group == "" {
		return usageError(stderr, "consume", errors.New("--brokers, --topic and --group are required"))
	}
	a, err := engine.ParseAlgorithm(*alg)
	if err != nil {
		return usageError(stderr, "consume", err)
	}
	lf, err := logfmt.ParseFormat(*inFormat)
	f, ok := map[logfmt.Format]kafka.Format{logfmt.Auto: kafka.Auto, logfmt.Native: kafka.Native, logfmt.JSON: kafka.JSON}[lf]
	if err != nil || !ok {
		return usageError(stderr, "consume", fmt.Errorf("--input-format %q: want auto, native or json", *inFormat))
	}
	var obj history.Object
	if *objName != "" {
		var ok bool
		if obj, ok = history.ParseObject(*objName); !ok {
			return usageError(stderr, "consume", fmt.Errorf("unknown object %q", *objName))
		}
		if obj != history.CASRegister && obj != history.StringRegister {
			return usageError(stderr, "consume", fmt.Errorf("--object %s: JSON event maps run on a cas-register or a string-register; native records declare their kind", *objName))
		}
	}
	if *workers < 0 {
		return usageError(stderr, "consume", errors.New("--workers must not be negative"))
	}
	opt := engine.Options{Algorithm: a, RemoveObsolete: a == engine.Saturate && !*noRemove}
	if err := opt.Validate(); err != nil {
		return usageError(stderr, "consume", fmt.Errorf("%s: %v", opt.Name(), err))
	}
	var found atomic.Int64
	cfg := kafka.Config{
		Brokers: strings.Split(*brokers, ","), Topic: *topic, Group: *group,
		StateTopic: *state, VerdictTopic: *verdicts, Out: stdout,
		Format: f, Object: monitor.Object(obj), Workers: *workers,
		// The flags name every variant, monitor's options only some.
		Options:         []monitor.Option{apiconf.Engine(opt)},
		CheckpointEvery: *every, SummaryEvery: *summary,
		OnVerdict: func(v kafka.Verdict) {
			if v.Record == "violation" && !v.Duplicate {
				found.Add(1)
			}
		},
	}
	// Rebalances, restarts and failed checkpoints are rare and matter to
	// whoever runs the group: they always go to stderr.
	var logMu sync.Mutex
	cfg.Logf = func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintf(stderr, format+"\n", args...)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = kafka.Consume(ctx, cfg)
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "satmon consume: %v\n", err)
		if found.Load() > 0 {
			return exitViolation
		}
		return exitUsage
	}
	if found.Load() > 0 {
		return exitViolation
	}
	return exitOK
}
