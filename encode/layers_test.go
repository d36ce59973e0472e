package encode

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The files of encode/ are meant to read one way, as packages would:
// each file refers only to declarations of files below it, so that the
// parts can be read bottom up (docs/encoding.md, "The encoder's layout").
// TestFileLayers builds the graph of the package's non-test files, with
// an edge A → B when A refers to a declaration of B, and fails on a
// cycle, naming the references that close it.
//
// What counts as a reference of A to B: an identifier in A that denotes
// a package-level function, type, variable or constant declared in B, a
// method declared in B (an interface's method is declared where the
// interface is), or a field declared in B (a field of a struct type
// declared there, promoted or not). What does not count:
//
//   - the receiver's type in a method's declaration: it says which type
//     the method belongs to, not what the method uses (a part's methods
//     may be spread over several files);
//   - the type Encoder, the fields of Encoder that hold a part (wiring,
//     below) with the part's type in their declaration, each part's field
//     e back to its encoder, and a part's field that holds another part
//     (lazyGround.w): the encoder is how the parts reach one another, so
//     `g.e.fo.aux(…)` refers to folder.aux and to nothing else. The other
//     fields of Encoder, the state the parts share, count like any field.
//
// Run it with -v to print the layers (each file with the layer below
// which everything it refers to lies) and every edge with its names.
func TestFileLayers(t *testing.T) {
	t.Parallel()
	g := fileGraph(t)
	sccs := g.sccs()
	if testing.Verbose() {
		g.printLayers(t, sccs)
	}
	for _, c := range sccs {
		if len(c) < 2 {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "a cycle among %d files: %s\n", len(c), strings.Join(c, " "))
		in := map[string]bool{}
		for _, f := range c {
			in[f] = true
		}
		for _, a := range c {
			for _, bf := range g.targets(a) {
				if in[bf] {
					fmt.Fprintf(&b, "\t%s → %s: %s\n", a, bf, strings.Join(g.names(a, bf), " "))
				}
			}
		}
		t.Error(b.String())
	}
}

// encoderWiring are the fields of Encoder that hold a part (the wiring):
// reaching a part through them is not a reference to the file that
// declares Encoder (TestFileLayers).
var encoderWiring = []string{"tab", "reg", "scr", "match", "ptn", "enum", "gr", "fo", "lazy", "grd", "limit", "lab"}

// fileDeps is the graph of TestFileLayers: edges[a][b] are the names
// through which file a refers to file b.
type fileDeps struct {
	files []string
	edges map[string]map[string]map[string]bool
}

func fileGraph(t *testing.T) *fileDeps {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	g := &fileDeps{edges: map[string]map[string]map[string]bool{}}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		src, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, n, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		g.files = append(g.files, n)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("github.com/satmon/satmon/encode", fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	enc := pkg.Scope().Lookup("Encoder")
	encStruct := enc.Type().Underlying().(*types.Struct)
	skip := map[types.Object]bool{enc: true}
	for i := range encStruct.NumFields() {
		if f := encStruct.Field(i); slices.Contains(encoderWiring, f.Name()) {
			skip[f] = true
		}
	}
	if len(skip) != 1+len(encoderWiring) {
		t.Fatalf("encoderWiring names %d fields, Encoder has %d of them", len(encoderWiring), len(skip)-1)
	}
	// The parts: the types of the wiring fields, and those with a field
	// back to their encoder (e), which is wiring too, as is a part's
	// field that holds another part (lazyGround.w).
	encPtr := types.NewPointer(enc.Type())
	deref := func(t types.Type) types.Type {
		if p, ok := t.(*types.Pointer); ok {
			return p.Elem()
		}
		return t
	}
	part := map[types.Type]bool{}
	for f := range skip {
		if f != enc {
			part[deref(f.Type())] = true
		}
	}
	var structs []*types.Struct
	for _, n := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(n).(*types.TypeName)
		if !ok {
			continue
		}
		if st, ok := tn.Type().Underlying().(*types.Struct); ok && tn != enc {
			structs = append(structs, st)
			for i := range st.NumFields() {
				if f := st.Field(i); types.Identical(f.Type(), encPtr) {
					skip[f] = true
					part[tn.Type()] = true
				}
			}
		}
	}
	for _, st := range structs {
		for i := range st.NumFields() {
			if f := st.Field(i); part[deref(f.Type())] {
				skip[f] = true
			}
		}
	}
	// The identifiers that do not count where they are: the receivers'
	// types, and the parts' types in the wiring fields' declarations.
	ignore := map[*ast.Ident]bool{}
	mark := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				ignore[id] = true
			}
			return true
		})
	}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					mark(d.Recv)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || ts.Name.Name != "Encoder" {
						continue
					}
					for _, fl := range ts.Type.(*ast.StructType).Fields.List {
						for _, n := range fl.Names {
							if slices.Contains(encoderWiring, n.Name) {
								mark(fl.Type)
							}
						}
					}
				}
			}
		}
	}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || skip[obj] || ignore[id] {
			continue
		}
		if _, ok := obj.(*types.PkgName); ok {
			continue
		}
		from := fset.Position(id.Pos()).Filename
		to := fset.Position(obj.Pos()).Filename
		if from == to {
			continue
		}
		m := g.edges[from]
		if m == nil {
			m = map[string]map[string]bool{}
			g.edges[from] = m
		}
		if m[to] == nil {
			m[to] = map[string]bool{}
		}
		name := obj.Name()
		if v, ok := obj.(*types.Var); ok && v.IsField() || isMethod(obj) {
			name = "." + name
		}
		m[to][name] = true
	}
	return g
}

func isMethod(obj types.Object) bool {
	f, ok := obj.(*types.Func)
	return ok && f.Signature().Recv() != nil
}

// targets are the files a refers to, sorted.
func (g *fileDeps) targets(a string) []string {
	var out []string
	for b := range g.edges[a] {
		out = append(out, b)
	}
	slices.Sort(out)
	return out
}

// names are the names through which a refers to b, sorted.
func (g *fileDeps) names(a, b string) []string {
	var out []string
	for n := range g.edges[a][b] {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// sccs are the strongly connected components (Tarjan's), each sorted, in
// an order where a component comes after those it refers to.
func (g *fileDeps) sccs() [][]string {
	index := map[string]int{}
	low := map[string]int{}
	on := map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v] = len(index)
		low[v] = index[v]
		stack = append(stack, v)
		on[v] = true
		for _, w := range g.targets(v) {
			if _, ok := index[w]; !ok {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var c []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				c = append(c, w)
				if w == v {
					break
				}
			}
			slices.Sort(c)
			out = append(out, c)
		}
	}
	for _, f := range g.files {
		if _, ok := index[f]; !ok {
			visit(f)
		}
	}
	return out
}

// printLayers logs each component with its layer: one above the highest
// layer it refers to, the files that refer to none in layer 0.
func (g *fileDeps) printLayers(t *testing.T, sccs [][]string) {
	layer := map[string]int{}
	var b strings.Builder
	for _, c := range sccs {
		l := 0
		for _, a := range c {
			for _, to := range g.targets(a) {
				if !slices.Contains(c, to) {
					l = max(l, layer[to]+1)
				}
			}
		}
		for _, a := range c {
			layer[a] = l
		}
	}
	files := slices.Clone(g.files)
	slices.SortStableFunc(files, func(a, b string) int { return layer[b] - layer[a] })
	for _, a := range files {
		fmt.Fprintf(&b, "%2d %s\n", layer[a], a)
		for _, to := range g.targets(a) {
			fmt.Fprintf(&b, "\t→ %s: %s\n", to, strings.Join(g.names(a, to), " "))
		}
	}
	t.Log("layers (a file refers only to files of lower layers, or of its own cycle):\n" + b.String())
}
