package monitor_test

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/satmon/satmon/internal/logfmt"
	"github.com/satmon/satmon/internal/multi"
	"github.com/satmon/satmon/internal/testutil"
	"github.com/satmon/satmon/monitor"
)

// The library's API names no internal type: no exported type is an alias
// (go doc would show no fields), and no exported declaration's type, nor
// an exported field's, refers to a package under internal/.
func TestAPINamesNoInternalType(t *testing.T) {
	t.Parallel()
	noInternalType(t, ".", 20, nil)
}

// noInternalType checks the non-test files of the package in dir, which
// must hold at least min exported declarations. The values of the
// variables in errVars, of type error, may be internal packages'.
func noInternalType(t *testing.T, dir string, min int, errVars map[string]bool) {
	fset := token.NewFileSet()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		internal := map[string]bool{}
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			name := filepath.Base(path)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			internal[name] = strings.Contains(path, "/internal/")
		}
		// names reports the internal packages an exported part of n names.
		names := func(n ast.Node) []string {
			var bad []string
			if n == nil {
				return nil
			}
			ast.Inspect(n, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.Field:
					if len(n.Names) > 0 && !n.Names[0].IsExported() {
						return false // an unexported field: not API
					}
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && internal[x.Name] {
						bad = append(bad, x.Name+"."+n.Sel.Name)
					}
				}
				return true
			})
			return bad
		}
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && (d.Recv == nil || ast.IsExported(strings.TrimPrefix(types(d.Recv.List[0].Type), "*"))) {
					checked++
					if bad := names(d.Type); len(bad) > 0 {
						t.Errorf("%s: func %s names %v", fset.Position(d.Pos()), d.Name.Name, bad)
					}
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						checked++
						if s.Assign.IsValid() {
							t.Errorf("%s: type %s is an alias: go doc shows no fields", fset.Position(s.Pos()), s.Name.Name)
						}
						if bad := names(s.Type); len(bad) > 0 {
							t.Errorf("%s: type %s names %v", fset.Position(s.Pos()), s.Name.Name, bad)
						}
					case *ast.ValueSpec:
						for i, n := range s.Names {
							if !n.IsExported() {
								continue
							}
							checked++
							if bad := names(s.Type); len(bad) > 0 {
								t.Errorf("%s: %s names %v", fset.Position(n.Pos()), n.Name, bad)
							}
							if i < len(s.Values) && !errVars[n.Name] {
								if bad := names(s.Values[i]); len(bad) > 0 {
									t.Errorf("%s: %s is %v", fset.Position(n.Pos()), n.Name, bad)
								}
							}
						}
					}
				}
			}
		}
	}
	if checked < min {
		t.Errorf("%s: only %d exported declarations found: the test reads the wrong files", dir, checked)
	}
}

func types(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return "*" + types(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// go doc ./monitor fits on one screen, and shows Result's fields.
func TestGoDocOneScreen(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "doc", ".").Output()
	if err != nil {
		t.Skipf("go doc: %v", err)
	}
	if n := bytes.Count(out, []byte("\n")); n > 60 {
		t.Errorf("go doc ./monitor is %d lines, more than a screen:\n%s", n, out)
	}
	out, err = exec.Command("go", "doc", ".", "Result").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"Verdict ", "ViolationOp ", "ViolationStep ", "Core, Witness ", "Keys "} {
		if !bytes.Contains(out, []byte(f)) {
			t.Errorf("go doc Result does not show the field %q:\n%s", f, out)
		}
	}
}

func put(client int, key, v string, call, ret int64) monitor.Operation {
	return monitor.Operation{ClientID: client, Key: key, Label: monitor.KVPut(v), Call: call, Return: ret}
}

func get(client int, key, v string, call, ret int64) monitor.Operation {
	return monitor.Operation{ClientID: client, Key: key, Label: monitor.KVGet(v), Call: call, Return: ret}
}

// A keyed check gives each key the result of its sub-history checked
// alone, with indices into the whole slice, and the whole the first
// violation's.
func TestCheckKeyedIsEachKeyAlone(t *testing.T) {
	t.Parallel()
	ops := []monitor.Operation{
		put(1, "a", "1", 0, 10),
		put(2, "b", "1", 0, 10),
		get(3, "b", "1", 5, 15),
		get(1, "a", "", 20, 30), // stale: a violation of a at its return
		put(2, "b", "2", 20, 30),
		get(3, "b", "1", 40, 50), // stale too, but later
		get(2, "c", "", 0, 100),
	}
	ctx := context.Background()
	res, err := monitor.Check(ctx, monitor.StringRegister, ops, monitor.WithAlgorithm(monitor.Symbolic), monitor.WithExplanation())
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != monitor.Violation || res.Key != "a" || res.ViolationOp != 3 || len(res.Keys) != 3 {
		t.Fatalf("%v on key %q by operation %d, %d keys; want a violation on a by 3, 3 keys", res.Verdict, res.Key, res.ViolationOp, len(res.Keys))
	}
	if fmt.Sprint(res.Core) != "[0 3]" {
		t.Errorf("core %v, want [0 3]", res.Core)
	}
	for _, k := range res.Keys {
		var sub []monitor.Operation
		var index []int
		for i, o := range ops {
			if o.Key == k.Key {
				o.Key = ""
				sub, index = append(sub, o), append(index, i)
			}
		}
		alone, err := monitor.Check(ctx, monitor.StringRegister, sub, monitor.WithAlgorithm(monitor.Symbolic), monitor.WithExplanation())
		if err != nil {
			t.Fatal(err)
		}
		if alone.ViolationOp >= 0 {
			alone.ViolationOp = index[alone.ViolationOp]
		}
		for _, l := range [][]int{alone.Core, alone.Witness} {
			for j := range l {
				l[j] = index[l[j]]
			}
		}
		g := fmt.Sprintf("%v %v op %d step %d core %v witness %v", k.Verdict, k.Exact, k.ViolationOp, k.ViolationStep, k.Core, k.Witness)
		w := fmt.Sprintf("%v %v op %d step %d core %v witness %v", alone.Verdict, alone.Exact, alone.ViolationOp, alone.ViolationStep, alone.Core, alone.Witness)
		if g != w || k.Operations != len(sub) {
			t.Errorf("key %s: %s (%d operations), alone %s (%d)", k.Key, g, k.Operations, w, len(sub))
		}
	}
	var page bytes.Buffer
	if err := monitor.Visualize(&page, res); err != nil || !bytes.Contains(page.Bytes(), []byte("key a")) {
		t.Errorf("the picture of the violation does not name key a (%v)", err)
	}
}

// What a check reports when there is nothing to report, and errors.
func TestCheckContract(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ok := []monitor.Operation{put(1, "", "1", 0, 10), get(2, "", "1", 20, 30)}
	res, err := monitor.Check(ctx, monitor.StringRegister, ok)
	if err != nil || res.Verdict != monitor.OK || res.ViolationOp != -1 || res.ViolationStep != -1 || res.Keys != nil || res.Core != nil || res.Operations != 2 || res.Steps != 4 {
		t.Errorf("an ok: %+v, %v", res, err)
	}
	if err := monitor.Visualize(&bytes.Buffer{}, res); err == nil {
		t.Error("Visualize without WithExplanation: no error")
	}
	res, err = monitor.Check(ctx, monitor.StringRegister, nil)
	if err != nil || res.Verdict != monitor.OK || res.ViolationOp != -1 {
		t.Errorf("no operations: %+v, %v", res, err)
	}
	res, err = monitor.Check(ctx, monitor.StringRegister, []monitor.Operation{put(1, "a", "1", 10, 5)})
	if err == nil || res.Verdict != monitor.Error || !strings.Contains(err.Error(), "returns at 5, before its call at 10") {
		t.Errorf("a return before its call: %v, %v", res.Verdict, err)
	}
	res, err = monitor.Check(ctx, monitor.Queue, []monitor.Operation{get(1, "", "x", 0, 5)})
	if err == nil || res.Verdict != monitor.Error || !strings.Contains(err.Error(), "read is not a method of atomic-queue") {
		t.Errorf("a get on a queue: %v, %v", res.Verdict, err)
	}
	if _, err := monitor.Check(ctx, monitor.StringRegister, ok, monitor.WithParam("x")); err == nil {
		t.Error("a parameter for the string register: no error")
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	res, _ = monitor.Check(done, monitor.StringRegister, ok, monitor.WithAlgorithm(monitor.Symbolic))
	if res.Verdict != monitor.Timeout {
		t.Errorf("a context done before the check: %v, want timeout", res.Verdict)
	}

	m, err := monitor.NewMonitor(ctx, monitor.Queue)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Call("a", monitor.Label{Method: monitor.Add, Arg: "1"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Call("a", monitor.Label{Method: monitor.Add, Arg: "2"}); err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("a second call of an open id: %v", err)
	}
	if _, err := m.Return("b", monitor.Void); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("the return of an id never called: %v", err)
	}
}

// ReadLog gives the operations of a log; checked, they give the verdict
// that the CLI's check of the log gives each object, on the key-value
// histories of ../shared/data (Porcupine's), violations and linearizable
// ones, with the exact Symbolic, so that the verdicts are decisions.
func TestReadLogAsCheckMulti(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "shared", "data", "porcupine-kv")
	files, _ := filepath.Glob(filepath.Join(dir, "c*.txt"))
	if len(files) == 0 {
		t.Skipf("no porcupine-kv histories in %s (they live in ../shared/data beside the repository)", dir)
	}
	files = files[:min(len(files), max(2, testutil.Scale(2)))] // c01-bad and c01-ok at least: a violation and an ok
	violations, oks := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := multi.CheckMulti(context.Background(), bytes.NewReader(data), logfmt.Auto, logfmt.Options{Name: f}, multi.MultiOptions{Options: monitor.MonitorSymbolic}, nil)
		if err != nil {
			t.Fatal(err)
		}
		obj, param, ops, err := monitor.ReadLog(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		got, err := monitor.Check(context.Background(), obj, ops, monitor.WithParam(param), monitor.WithAlgorithm(monitor.Symbolic))
		if err != nil {
			t.Fatal(err)
		}
		if string(got.Verdict) != string(want.Verdict) || len(got.Keys) != len(want.Objects) || got.Key != want.ViolationObject {
			t.Fatalf("%s: %v on %q with %d keys, CheckMulti %v on %q with %d", filepath.Base(f), got.Verdict, got.Key, len(got.Keys), want.Verdict, want.ViolationObject, len(want.Objects))
		}
		for i, k := range got.Keys {
			w := want.Objects[i]
			step := -1
			if w.ViolationStep != nil {
				step = *w.ViolationStep
			}
			if k.Key != w.Name || string(k.Verdict) != string(w.Verdict) || k.Steps != w.Steps || k.Operations != w.Operations || k.ViolationStep != step {
				t.Errorf("%s: key %s: %v, %d steps, %d operations, violation at step %d; CheckMulti: key %s: %v, %d, %d, %d",
					filepath.Base(f), k.Key, k.Verdict, k.Steps, k.Operations, k.ViolationStep, w.Name, w.Verdict, w.Steps, w.Operations, step)
			}
		}
		if got.Verdict == monitor.Violation {
			violations++
		} else {
			oks++
		}
	}
	if violations == 0 || oks == 0 {
		t.Errorf("%d violations, %d linearizable: the set should hold both", violations, oks)
	}
}

// Options apply in order: the last algorithm named wins, and a bad
// parameter or algorithm is an error, not a verdict.
func TestOptions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ops := []monitor.Operation{{Label: monitor.Label{Method: monitor.Add, Arg: "1"}, Call: 0, Return: 10}}
	res, err := monitor.Check(ctx, monitor.Queue, ops, monitor.WithAlgorithm(monitor.Symbolic), monitor.WithAlgorithm(monitor.Saturate))
	if err != nil || res.Algorithm != "saturate -r" || res.Exact {
		t.Errorf("Symbolic then Saturate: %s, exact %v, %v", res.Algorithm, res.Exact, err)
	}
	res, err = monitor.Check(ctx, monitor.Queue, ops, monitor.WithAlgorithm(monitor.Enumerate))
	if err != nil || res.Algorithm != "enumerate" || !res.Exact {
		t.Errorf("Enumerate: %s, exact %v, %v", res.Algorithm, res.Exact, err)
	}
	if res, err := monitor.Check(ctx, monitor.Queue, ops, monitor.WithAlgorithm(9)); err == nil || res.Verdict != monitor.Error {
		t.Errorf("algorithm 9: %v, %v", res.Verdict, err)
	}
	if m, err := monitor.NewMonitor(ctx, monitor.Semaphore, monitor.WithParam("-1")); err == nil || m != nil {
		t.Errorf("a semaphore of capacity -1: %v, %v", m, err)
	}
}

// ReadLog reads Jepsen's etcd logs (a compare-and-set register; :info
// operations stay pending) into operations whose check gives the CLI's
// verdict on as many operations. (The CLI counts an :info as a step, where
// it ends nothing; the steps differ.)
func TestReadLogJepsen(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "data", "jepsen-etcd", "etcd_*.log"))
	if len(files) == 0 {
		t.Skip("no jepsen-etcd logs in ../shared/data beside the repository")
	}
	files = files[:min(len(files), testutil.Scale(4))]
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := multi.CheckMulti(context.Background(), bytes.NewReader(data), logfmt.Auto, logfmt.Options{Name: f}, multi.MultiOptions{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		obj, param, ops, err := monitor.ReadLog(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		got, err := monitor.Check(context.Background(), obj, ops, monitor.WithParam(param))
		if err != nil {
			t.Fatal(err)
		}
		if obj != monitor.CASRegister || string(got.Verdict) != string(want.Verdict) || got.Exact != want.Exact || got.Operations != want.Operations {
			t.Errorf("%s: %v: %v (exact %v) on %d operations; CheckMulti %v (exact %v) on %d", filepath.Base(f), obj, got.Verdict, got.Exact, got.Operations, want.Verdict, want.Exact, want.Operations)
		}
	}
}
