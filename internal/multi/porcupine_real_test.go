package multi

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"regexp"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/testutil"

	"github.com/satmon/satmon/internal/testhist"

	"github.com/anishathalye/porcupine"
	"github.com/satmon/satmon/internal/logfmt"
)

// The Jepsen etcd and key-value histories of ../shared/data come from
// Porcupine's test suite. To compare with Porcupine as its authors run it,
// this file carries that suite's own models and parsers (porcupine v1.3.1,
// porcupine_test.go: etcdModel, parseJepsenLog, kvModel, parseKvLog; MIT
// licence), changed only to read from memory instead of a path.

type etcdInput struct {
	op   uint8 // 0 => read, 1 => write, 2 => cas
	arg1 int   // used for write, or for CAS from argument
	arg2 int   // used for CAS to argument
}

type etcdOutput struct {
	ok      bool // used for CAS
	exists  bool // used for read
	value   int  // used for read
	unknown bool // used when operation times out
}

var etcdModel = porcupine.Model{
	Init: func() any { return -1000000 }, // -1000000 corresponds with nil
	Step: func(state any, input any, output any) (bool, any) {
		st := state.(int)
		inp := input.(etcdInput)
		out := output.(etcdOutput)
		if inp.op == 0 {
			// read
			ok := (!out.exists && st == -1000000) || (out.exists && st == out.value) || out.unknown
			return ok, state
		} else if inp.op == 1 {
			// write
			return true, inp.arg1
		}
		// cas
		ok := (inp.arg1 == st && out.ok) || (inp.arg1 != st && !out.ok) || out.unknown
		result := st
		if inp.arg1 == st {
			result = inp.arg2
		}
		return ok, result
	},
}

var (
	invokeRead  = regexp.MustCompile(`^INFO\s+jepsen\.util\s+-\s+(\d+)\s+:invoke\s+:read\s+nil$`)
	invokeWrite = regexp.MustCompile(`^INFO\s+jepsen\.util\s+-\s+(\d+)\s+:invoke\s+:write\s+(\d+)$`)
	invokeCas   = regexp.MustCompile(`^INFO\s+jepsen\.util\s+-\s+(\d+)\s+:invoke\s+:cas\s+\[(\d+)\s+(\d+)\]$`)
	returnRead  = regexp.MustCompile(`^INFO\s+jepsen\.util\s+-\s+(\d+)\s+:ok\s+:read\s+(nil|\d+)$`)
	returnWrite = regexp.MustCompile(`^INFO\s+jepsen\.util\s+-\s+(\d+)\s+:ok\s+:write\s+(\d+)$`)
	returnCas   = regexp.MustCompile(`^INFO\s+jepsen\.util\s+-\s+(\d+)\s+:(ok|fail)\s+:cas\s+\[(\d+)\s+(\d+)\]$`)
	timeoutRead = regexp.MustCompile(`^INFO\s+jepsen\.util\s+-\s+(\d+)\s+:fail\s+:read\s+:timed-out$`)
)

func parseJepsenLog(data []byte) []porcupine.Event {
	reader := bufio.NewReader(bytes.NewReader(data))
	var events []porcupine.Event
	id := 0
	procIDMap := make(map[int]int)
	for {
		lineBytes, isPrefix, err := reader.ReadLine()
		if err == io.EOF {
			break
		} else if err != nil {
			panic("error while reading file: " + err.Error())
		}
		if isPrefix {
			panic("can't handle isPrefix")
		}
		line := string(lineBytes)
		switch {
		case invokeRead.MatchString(line):
			args := invokeRead.FindStringSubmatch(line)
			proc, _ := strconv.Atoi(args[1])
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.CallEvent, Value: etcdInput{op: 0}, Id: id})
			procIDMap[proc] = id
			id++
		case invokeWrite.MatchString(line):
			args := invokeWrite.FindStringSubmatch(line)
			proc, _ := strconv.Atoi(args[1])
			value, _ := strconv.Atoi(args[2])
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.CallEvent, Value: etcdInput{op: 1, arg1: value}, Id: id})
			procIDMap[proc] = id
			id++
		case invokeCas.MatchString(line):
			args := invokeCas.FindStringSubmatch(line)
			proc, _ := strconv.Atoi(args[1])
			from, _ := strconv.Atoi(args[2])
			to, _ := strconv.Atoi(args[3])
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.CallEvent, Value: etcdInput{op: 2, arg1: from, arg2: to}, Id: id})
			procIDMap[proc] = id
			id++
		case returnRead.MatchString(line):
			args := returnRead.FindStringSubmatch(line)
			proc, _ := strconv.Atoi(args[1])
			exists := false
			value := 0
			if args[2] != "nil" {
				exists = true
				value, _ = strconv.Atoi(args[2])
			}
			matchID := procIDMap[proc]
			delete(procIDMap, proc)
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: etcdOutput{exists: exists, value: value}, Id: matchID})
		case returnWrite.MatchString(line):
			args := returnWrite.FindStringSubmatch(line)
			proc, _ := strconv.Atoi(args[1])
			matchID := procIDMap[proc]
			delete(procIDMap, proc)
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: etcdOutput{}, Id: matchID})
		case returnCas.MatchString(line):
			args := returnCas.FindStringSubmatch(line)
			proc, _ := strconv.Atoi(args[1])
			matchID := procIDMap[proc]
			delete(procIDMap, proc)
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: etcdOutput{ok: args[2] == "ok"}, Id: matchID})
		case timeoutRead.MatchString(line):
			// timing out a read and then continuing operations is fine
			args := timeoutRead.FindStringSubmatch(line)
			proc, _ := strconv.Atoi(args[1])
			matchID := procIDMap[proc]
			delete(procIDMap, proc)
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: etcdOutput{unknown: true}, Id: matchID})
		}
	}
	for proc, matchID := range procIDMap {
		events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: etcdOutput{unknown: true}, Id: matchID})
	}
	return events
}

type kvInput struct {
	op    uint8 // 0 => get, 1 => put, 2 => append
	key   string
	value string
}

type kvOutput struct {
	value string
}

var kvModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		m := make(map[string][]porcupine.Operation)
		for _, v := range history {
			key := v.Input.(kvInput).key
			m[key] = append(m[key], v)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		ret := make([][]porcupine.Operation, 0, len(keys))
		for _, k := range keys {
			ret = append(ret, m[k])
		}
		return ret
	},
	PartitionEvent: func(history []porcupine.Event) [][]porcupine.Event {
		m := make(map[string][]porcupine.Event)
		match := make(map[int]string) // id -> key
		for _, v := range history {
			if v.Kind == porcupine.CallEvent {
				key := v.Value.(kvInput).key
				m[key] = append(m[key], v)
				match[v.Id] = key
			} else {
				key := match[v.Id]
				m[key] = append(m[key], v)
			}
		}
		var ret [][]porcupine.Event
		for _, v := range m {
			ret = append(ret, v)
		}
		return ret
	},
	Init: func() any { return "" },
	Step: func(state, input, output any) (bool, any) {
		inp := input.(kvInput)
		out := output.(kvOutput)
		st := state.(string)
		if inp.op == 0 {
			return out.value == st, state // get
		} else if inp.op == 1 {
			return true, inp.value // put
		}
		return true, (st + inp.value) // append
	},
	Hash: func(state any) uint64 {
		h := fnv.New64a()
		h.Write([]byte(state.(string)))
		return h.Sum64()
	},
}

var (
	invokeGet    = regexp.MustCompile(`{:process (\d+), :type :invoke, :f :get, :key "(.*)", :value nil}`)
	invokePut    = regexp.MustCompile(`{:process (\d+), :type :invoke, :f :put, :key "(.*)", :value "(.*)"}`)
	invokeAppend = regexp.MustCompile(`{:process (\d+), :type :invoke, :f :append, :key "(.*)", :value "(.*)"}`)
	returnGet    = regexp.MustCompile(`{:process (\d+), :type :ok, :f :get, :key ".*", :value "(.*)"}`)
	returnPut    = regexp.MustCompile(`{:process (\d+), :type :ok, :f :put, :key ".*", :value ".*"}`)
	returnAppend = regexp.MustCompile(`{:process (\d+), :type :ok, :f :append, :key ".*", :value ".*"}`)
)

func parseKvLog(data []byte) []porcupine.Event {
	reader := bufio.NewReader(bytes.NewReader(data))
	var events []porcupine.Event
	id := 0
	procIDMap := make(map[int]int)
	for {
		lineBytes, isPrefix, err := reader.ReadLine()
		if err == io.EOF {
			break
		} else if err != nil {
			panic("error while reading file: " + err.Error())
		}
		if isPrefix {
			panic("can't handle isPrefix")
		}
		line := string(lineBytes)
		switch {
		case invokeGet.MatchString(line):
			args := invokeGet.FindStringSubmatch(line)
			proc, _ := strconv.Atoi(args[1])
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.CallEvent, Value: kvInput{op: 0, key: args[2]}, Id: id})
			procIDMap[proc] = id
			id++
		case invokePut.MatchString(line):
			args := invokePut.FindStringSubmatch(line)
			proc, _ := strconv.Atoi(args[1])
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.CallEvent, Value: kvInput{op: 1, key: args[2], value: args[3]}, Id: id})
			procIDMap[proc] = id
			id++
		case invokeAppend.MatchString(line):
			args := invokeAppend.FindStringSubmatch(line)
			proc, _ := strconv.Atoi(args[1])
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.CallEvent, Value: kvInput{op: 2, key: args[2], value: args[3]}, Id: id})
			procIDMap[proc] = id
			id++
		case returnGet.MatchString(line):
			args := returnGet.FindStringSubmatch(line)
			proc, _ := strconv.Atoi(args[1])
			matchID := procIDMap[proc]
			delete(procIDMap, proc)
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: kvOutput{args[2]}, Id: matchID})
		case returnPut.MatchString(line), returnAppend.MatchString(line):
			args := returnPut.FindStringSubmatch(line)
			if args == nil {
				args = returnAppend.FindStringSubmatch(line)
			}
			proc, _ := strconv.Atoi(args[1])
			matchID := procIDMap[proc]
			delete(procIDMap, proc)
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: kvOutput{}, Id: matchID})
		}
	}
	for proc, matchID := range procIDMap {
		events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: kvOutput{}, Id: matchID})
	}
	return events
}

// realSet is one data set of ../shared/data with Porcupine's model for it.
type realSet struct {
	name  string
	model porcupine.Model
	parse func([]byte) []porcupine.Event
}

var realSets = []realSet{
	{"jepsen-etcd", etcdModel, parseJepsenLog},
	{"porcupine-kv", kvModel, parseKvLog},
}

// satmonReal checks one history from memory as `satmon check` does (the
// format and kernel recognised from the content), and returns the log's
// verdict.
func satmonReal(tb testing.TB, f testhist.RealFile, opt engine.Options) (engine.Verdict, bool) {
	res, err := CheckMulti(context.Background(), bytes.NewReader(f.Data), logfmt.Auto, logfmt.Options{Name: f.Name},
		MultiOptions{Options: opt, Workers: 1}, nil)
	if err != nil {
		tb.Fatalf("%s: %v", f.Name, err)
	}
	return res.Verdict, res.Exact
}

// BenchmarkRealHistories runs every history of ../shared/data/jepsen-etcd
// and ../shared/data/porcupine-kv with Porcupine (its own models, as in
// its test suite) and with satmon, the default (the frontier, exact on
// registers) and SYMBOLIC (-a symbolic), file by file in turn in the same
// run, from the same bytes already in memory: Porcupine's time is its
// suite's parser (regular expressions) and CheckEvents, satmon's is
// CheckMulti on a bytes.Reader (format detection, reading, checking, the
// result), one worker. The CPU time is the process's (getrusage), so
// each side's goroutines and garbage collection count.
// Per data set it reports each checker's milliseconds for the whole set
// (wall and CPU), how many histories it gives the verdict of verdicts.tsv
// (agree), and of those how many with a proof (proven: a violation, or an
// ok the checker says is exact). It fails if Porcupine disagrees with
// verdicts.tsv, satmon reports a violation verdicts.tsv does not list,
// or the default does not give every history its verdict with a proof.
//
//	go test ./internal/multi -short -run '^$' -bench RealHistories -benchtime 10x
func BenchmarkRealHistories(b *testing.B) {
	type side struct {
		name      string
		unit      string                                         // name in metric units, which have no spaces
		run       func(testhist.RealFile) (engine.Verdict, bool) // the verdict, and whether an ok is a proof
		wall, cpu time.Duration
		// agree counts the histories given verdicts.tsv's verdict;
		// proven those of them where the verdict is a proof (a
		// violation, or an exact checker's ok).
		agree, proven int
	}
	for _, set := range realSets {
		b.Run(set.name, func(b *testing.B) {
			files := testhist.RealFiles(b, set.name)
			sides := []*side{
				{name: "porcupine", unit: "porcupine", run: func(f testhist.RealFile) (engine.Verdict, bool) {
					if porcupine.CheckEvents(set.model, set.parse(f.Data)) {
						return engine.OK, true
					}
					return engine.Violation, true
				}},
				{name: "default (frontier)", unit: "default", run: func(f testhist.RealFile) (engine.Verdict, bool) { return satmonReal(b, f, engine.DefaultOptions()) }},
				{name: "symbolic", unit: "symbolic", run: func(f testhist.RealFile) (engine.Verdict, bool) {
					return satmonReal(b, f, engine.Options{Algorithm: engine.Symbolic, Warn: io.Discard})
				}},
			}
			if testing.Short() {
				// -short: Porcupine and the default alone, so that
				// SYMBOLIC's garbage is not collected on their time.
				sides = sides[:2]
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, s := range sides {
					s.agree, s.proven = 0, 0
				}
				for j, f := range files {
					// Rotate the order file by file, so that no side
					// always runs right after another's garbage.
					for k := range sides {
						s := sides[(j+k)%len(sides)]
						t0, c0 := time.Now(), testutil.CPUTime()
						got, exact := s.run(f)
						s.wall += time.Since(t0)
						s.cpu += testutil.CPUTime() - c0
						switch {
						case got == engine.Violation && f.Verdict != "violation":
							b.Fatalf("FALSE VIOLATION: %s on %s/%s", s.name, set.name, f.Name)
						case string(got) == f.Verdict:
							s.agree++
							if got == engine.Violation || exact {
								s.proven++
							}
						case s.name == "porcupine":
							b.Fatalf("porcupine says %s on %s/%s, verdicts.tsv %s", got, set.name, f.Name, f.Verdict)
						}
					}
				}
			}
			b.StopTimer()
			if d := sides[1]; d.agree != len(files) || d.proven != len(files) {
				b.Fatalf("%s: the default gives %d of %d histories their verdict, %d proven", set.name, d.agree, len(files), d.proven)
			}
			per := float64(b.N)
			for _, s := range sides {
				b.ReportMetric(float64(s.wall.Microseconds())/1000/per, s.unit+"-ms")
				b.ReportMetric(float64(s.cpu.Microseconds())/1000/per, s.unit+"-cpu-ms")
				b.ReportMetric(float64(s.agree), s.unit+"-agree")
				b.ReportMetric(float64(s.proven), s.unit+"-proven")
			}
			b.ReportMetric(float64(len(files)), "histories")
			var line string
			for _, s := range sides {
				line += fmt.Sprintf("; %s gives %d their verdict (%d proven) in %.0f ms (cpu %.0f ms)", s.name, s.agree, s.proven,
					float64(s.wall.Microseconds())/1000/per, float64(s.cpu.Microseconds())/1000/per)
			}
			b.Logf("%s: %d histories%s", set.name, len(files), line)
		})
	}
}
