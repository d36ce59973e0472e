package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/satmon/satmon/internal/testhist"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/testutil"
)

// TestGolden records, or compares against a recording, the verdict and
// violation step of several variants on thousands of random histories:
// the before/after check that every optimisation and refactoring of the
// engine must pass. The histories themselves are stored in the recording,
// so a later change to the generators cannot make the comparison drift.
//
//	SATMON_GOLDEN_WRITE=/tmp/golden.jsonl go test ./monitor -run TestGolden   # before
//	SATMON_GOLDEN=/tmp/golden.jsonl go test ./monitor -run TestGolden         # after
//
// SATMON_GOLDEN_N sets the histories per object (default 2,500: 25,000 in
// all). The recording also holds every log of testdata/ and, when
// ../shared is beside the repository, of its paper histories (keyed
// "file:" and the path): all four variants on logs of at most
// goldenFullOps operations, SATURATE with and without -r on longer ones,
// where SYMBOLIC takes minutes. SATMON_GOLDEN_SETS=random or =files
// records one part only.
func TestGolden(t *testing.T) {
	write, read := os.Getenv("SATMON_GOLDEN_WRITE"), os.Getenv("SATMON_GOLDEN")
	if write == "" && read == "" {
		t.Skip("set SATMON_GOLDEN_WRITE=FILE to record, SATMON_GOLDEN=FILE to compare")
	}
	if read != "" {
		compareGolden(t, read)
		return
	}
	n := 2500
	if v, err := strconv.Atoi(os.Getenv("SATMON_GOLDEN_N")); err == nil && v > 0 {
		n = v
	}
	f, err := os.Create(write)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	count := 0
	sets := os.Getenv("SATMON_GOLDEN_SETS")
	if sets == "" || strings.Contains(sets, "files") {
		count += recordGoldenFiles(t, enc)
	}
	for _, obj := range h.Objects {
		if sets != "" && !strings.Contains(sets, "random") {
			break
		}
		start := time.Now()
		rng := rand.New(rand.NewPCG(uint64(obj), 7))
		for i := 0; i < n; i++ {
			var hist *h.History
			if i%10 == 9 { // one in ten is long, with more concurrency
				cfg := gen.Config{Object: obj, Ops: 40 + rng.IntN(80), Concurrency: 2 + rng.IntN(6),
					Seed: rng.Int64(), Mutate: rng.IntN(2), Capacity: rng.IntN(4)}
				if obj == h.Semaphore {
					cfg.Capacity = 1 + rng.IntN(4)
				}
				hist, _ = gen.History(cfg)
			}
			if hist == nil {
				hist = testhist.RandomHistory(rng, obj, 10)
			}
			var buf bytes.Buffer
			if err := testhist.WriteLog(&buf, hist, Actions(hist)); err != nil {
				t.Fatal(err)
			}
			rec := goldenRecord{Key: fmt.Sprintf("%s/%d", obj, i), Log: buf.String(), Results: goldenRun(t, hist, goldenVariants)}
			if err := enc.Encode(rec); err != nil {
				t.Fatal(err)
			}
			count++
		}
		t.Logf("%s: %d histories in %v", obj, n, time.Since(start).Round(time.Millisecond))
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d histories × %d variants in %s", count, len(goldenVariants), write)
}

type goldenRecord struct {
	Key     string            `json:"key"`
	Log     string            `json:"log"`
	Results map[string]string `json:"results"`
}

var goldenVariants = []Options{
	{Algorithm: Saturate},
	{Algorithm: Saturate, RemoveObsolete: true},
	{Algorithm: Symbolic, Incremental: true},
	{Algorithm: Symbolic, Incremental: true, RemoveObsolete: true},
}

// goldenFullOps is the longest log (in operations) whose recording has
// SYMBOLIC's variants too.
const goldenFullOps = 400

// recordGoldenFiles records the logs of testdata/ and of the paper
// histories, if present, and returns how many.
func recordGoldenFiles(t *testing.T, enc *json.Encoder) int {
	root := testutil.Root(t)
	var paths []string
	for _, dir := range []string{filepath.Join(root, "testdata"), filepath.Join(root, "..", "shared", "data", "paper-histories")} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".log") {
				paths = append(paths, p)
			}
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				t.Logf("golden: %s absent, not recorded", dir)
				return filepath.SkipDir
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	start, count, skipped := time.Now(), 0, 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		key := "file:" + p
		if rel, err := filepath.Rel(root, p); err == nil {
			key = "file:" + filepath.ToSlash(rel)
		}
		hist, err := logfmt.ReadHistory(bytes.NewReader(data), logfmt.Options{Name: key})
		if err != nil {
			// Logs of several objects are read by another reader;
			// each one skipped is named, so none is dropped silently.
			t.Logf("golden: %s not recorded: %v", key, err)
			skipped++
			continue
		}
		variants := goldenVariants
		if len(hist.Ops) > goldenFullOps {
			variants = goldenVariants[:2]
		}
		if err := enc.Encode(goldenRecord{Key: key, Log: string(data), Results: goldenRun(t, hist, variants)}); err != nil {
			t.Fatal(err)
		}
		count++
	}
	t.Logf("files: %d logs in %v (%d not recorded)", count, time.Since(start).Round(time.Millisecond), skipped)
	return count
}

// goldenRun gives each variant's outcome as "verdict" or "violation@step".
func goldenRun(t *testing.T, hist *h.History, variants []Options) map[string]string {
	out := map[string]string{}
	for _, opt := range variants {
		r := check(hist, opt)
		s := string(r.Verdict)
		if r.ViolationStep != nil {
			s += "@" + strconv.Itoa(*r.ViolationStep)
		}
		if r.Error != "" {
			s += ": " + r.Error
		}
		out[opt.Name()] = s
	}
	return out
}

func compareGolden(t *testing.T, path string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	count, diffs := 0, 0
	for sc.Scan() {
		var rec goldenRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		hist, err := logfmt.ReadHistory(bytes.NewReader([]byte(rec.Log)), logfmt.Options{Name: rec.Key})
		if err != nil {
			t.Fatalf("%s: %v", rec.Key, err)
		}
		var variants []Options
		for _, opt := range goldenVariants {
			if _, ok := rec.Results[opt.Name()]; ok {
				variants = append(variants, opt)
			}
		}
		got := goldenRun(t, hist, variants)
		for v, want := range rec.Results {
			if got[v] != want {
				diffs++
				if diffs <= 20 {
					t.Errorf("%s %s: was %s, now %s\n%s", rec.Key, v, want, got[v], rec.Log)
				} else {
					t.Errorf("%s %s: was %s, now %s", rec.Key, v, want, got[v]) // every difference named, for scripts
				}
			}
		}
		count++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if count == 0 {
		t.Fatal("empty recording")
	}
	t.Logf("compared %d histories: %d differences", count, diffs)
}
