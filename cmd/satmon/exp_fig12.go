package main

import (
	"bufio"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/satmon/satmon/internal/engine"
	"github.com/satmon/satmon/internal/impls"
)

// fig12Limits are the paper's per-history limits.
var fig12Limits = []time.Duration{5 * time.Second, 25 * time.Second, 50 * time.Second, 75 * time.Second, 100 * time.Second}

// fig12Paper are the numbers §6.1 gives for Figure 12 (average steps in 5 s
// and in 100 s); the figure itself shows the other limits only as a plot.
var fig12Paper = map[string][2]float64{
	"enumerate":   {16, 18},
	"symbolic":    {31.6, 52.7},
	"saturate":    {307.7, 744.6},
	"saturate -r": {1020.8, 1020.8},
}

// fig12LimitsFor applies --quick (limits 500 times smaller) and --limit
// (the largest limit; the others keep their ratio to it).
func fig12LimitsFor(f expFlags) []time.Duration {
	ls := append([]time.Duration(nil), fig12Limits...)
	scale := 1.0
	if f.quick {
		scale = 1.0 / 500
	}
	if f.limit > 0 {
		scale = float64(f.limit) / float64(ls[len(ls)-1])
	}
	for i := range ls {
		ls[i] = time.Duration(float64(ls[i]) * scale)
	}
	return ls
}

func expFig12(w *bufio.Writer, stderr io.Writer, f expFlags) error {
	var hs []*expHistory
	var err error
	data := ""
	if f.from != "" {
		hs, err = loadHistoryDir(f.from)
	} else {
		if data, err = paperData(f); err != nil {
			return err
		}
		hs, err = loadHistoryDir(filepath.Join(data, "sync-stack"))
		for _, h := range hs {
			h.Name = "sync-stack/" + h.Name
		}
	}
	if err != nil {
		return err
	}
	if f.quick && f.histories == "" {
		f.histories = "2"
	}
	if hs, err = pickHistories(hs, f.histories); err != nil {
		return err
	}
	vs, err := selectVariants(f.variants, paperVariants)
	if err != nil {
		return err
	}
	limits := fig12LimitsFor(f)
	total := 0
	for _, h := range hs {
		total += h.Steps
	}
	fmt.Fprintf(w, "fig12: %d histories (%s), %.1f steps on average; limits %s\n", len(hs), historySource(hs), float64(total)/float64(len(hs)), limitList(limits))
	if f.quick {
		fmt.Fprintln(w, "(--quick: two histories, limits 500 times smaller than the paper's; not comparable with its numbers)")
	}
	var art map[string]artifactAvg
	if data != "" && !f.quick && f.limit == 0 {
		art = artifactSyncStack(data, hs)
	}
	return fig12Run(w, stderr, f, "fig12", hs, vs, limits, art, !f.quick && f.limit == 0 && f.from == "")
}

func historySource(hs []*expHistory) string {
	if len(hs) == 0 {
		return "none"
	}
	return filepath.Dir(hs[0].Name) + "/"
}

func expFig12Queue(w *bufio.Writer, stderr io.Writer, f expFlags) error {
	count, ops := 10, 10000
	if f.quick {
		count, ops = 2, 1000
	}
	var hs []*expHistory
	var err error
	if f.from != "" {
		if hs, err = loadHistoryDir(f.from); err != nil {
			return err
		}
		if hs, err = pickHistories(hs, f.histories); err != nil {
			return err
		}
	} else {
		if count, err = countFlag(f.histories, count); err != nil {
			return err
		}
		if hs, err = record("fig12-queue", "msqueue", count, impls.Options{Threads: 8, Ops: ops, Yield: 0.5}); err != nil {
			return err
		}
	}
	if f.save != "" {
		if err := saveHistories(f.save, hs); err != nil {
			return err
		}
	}
	vs, err := selectVariants(f.variants, paperVariants)
	if err != nil {
		return err
	}
	limits := fig12LimitsFor(f)
	fmt.Fprintf(w, "fig12-queue: %d recorded msqueue histories (8 goroutines, %d operations); limits %s\n", len(hs), ops, limitList(limits))
	return fig12Run(w, stderr, f, "fig12-queue", hs, vs, limits, nil, false)
}

// fig12Run measures every variant on every history, prints the average
// steps within each limit (with the paper's and the artifact's numbers
// when given) and plots them.
func fig12Run(w *bufio.Writer, stderr io.Writer, f expFlags, name string, hs []*expHistory, vs []engine.Options, limits []time.Duration, art map[string]artifactAvg, paper bool) error {
	if f.save != "" && name == "fig12" {
		if err := saveHistories(f.save, hs); err != nil {
			return err
		}
	}
	var jobs []job
	for _, v := range vs {
		for _, h := range hs {
			jobs = append(jobs, job{H: h, V: v, Limits: limits})
		}
	}
	recs, err := newRunner(name, stderr, f).run(jobs)
	if err != nil {
		return err
	}
	avg := make([][]float64, len(vs))
	t := &expTable{Name: name, Title: "average steps processed within each limit (finished: histories processed to their end by the largest limit)", Header: []string{"variant"}}
	for _, l := range limits {
		t.Header = append(t.Header, limitName(l))
	}
	t.Header = append(t.Header, "finished")
	if paper {
		t.Header = append(t.Header, "paper 5s", "paper 100s")
	}
	if art != nil {
		t.Header = append(t.Header, "artifact 5s")
	}
	per := &expTable{Name: name + "-histories", Header: []string{"history", "variant", "steps"}}
	for _, l := range limits {
		per.Header = append(per.Header, "within "+limitName(l))
	}
	per.Header = append(per.Header, "verdict", "seconds")
	for i, v := range vs {
		avg[i] = make([]float64, len(limits))
		finished := 0
		for j := range hs {
			r := &recs[i*len(hs)+j]
			for k := range limits {
				avg[i][k] += float64(r.Within[k]) / float64(len(hs))
			}
			if r.Verdict == string(engine.OK) || r.Verdict == string(engine.Violation) {
				finished++
			}
			row := []string{r.History, r.Variant, fmt.Sprint(r.TotalSteps)}
			for k := range limits {
				row = append(row, fmt.Sprint(r.Within[k]))
			}
			per.add(append(row, r.Verdict, fmt.Sprintf("%.3f", r.Seconds))...)
			if r.Error != "" {
				return fmt.Errorf("%s with %s: %s", r.History, r.Variant, r.Error)
			}
		}
		row := []string{v.Name()}
		for k := range limits {
			row = append(row, f1(avg[i][k]))
		}
		row = append(row, fmt.Sprintf("%d/%d", finished, len(hs)))
		if paper {
			if p, ok := fig12Paper[v.Name()]; ok {
				row = append(row, f1(p[0]), f1(p[1]))
			} else {
				row = append(row, "–", "–")
			}
		}
		if art != nil {
			if a, ok := art[v.Name()]; ok && a.n > 0 {
				row = append(row, fmt.Sprintf("%.1f (%d)", a.steps/float64(a.n), a.n))
			} else {
				row = append(row, "–")
			}
		}
		t.add(row...)
	}
	if err := t.emit(w, f.out); err != nil {
		return err
	}
	if err := per.write(f.out); err != nil {
		return err
	}
	if art != nil {
		fmt.Fprintln(w, "artifact 5s: the artifact's own steps within 5 s on these histories (data.tsv), averaged over the histories it measured (count in parentheses)")
	}
	if f.plot == "" {
		return nil
	}
	var paperPts map[string][2]float64
	if paper {
		paperPts = fig12Paper
	}
	files, err := plotFig12(f.plot, name, vs, limits, avg, paperPts)
	for _, p := range files {
		fmt.Fprintf(w, "wrote %s\n", p)
	}
	return err
}

// fig12Colors gives each of the nine variants its own colour (plotutil's
// palette has seven).
var fig12Colors = []color.Color{
	color.RGBA{0xe4, 0x1a, 0x1c, 0xff}, color.RGBA{0xff, 0x7f, 0x00, 0xff}, color.RGBA{0x37, 0x7e, 0xb8, 0xff},
	color.RGBA{0x4d, 0xaf, 0x4a, 0xff}, color.RGBA{0x98, 0x4e, 0xa3, 0xff}, color.RGBA{0xa6, 0x56, 0x28, 0xff},
	color.RGBA{0xf7, 0x81, 0xbf, 0xff}, color.RGBA{0x33, 0x33, 0x33, 0xff}, color.RGBA{0x17, 0xbe, 0xcf, 0xff},
}

// plotFig12 draws Figure 12: for every variant, the average steps (x, log
// scale) processed within each limit (y), and the paper's 5 s and 100 s
// numbers as hollow marks of the same colour.
func plotFig12(dir, name string, vs []engine.Options, limits []time.Duration, avg [][]float64, paper map[string][2]float64) ([]string, error) {
	p := plot.New()
	p.Title.Text = "Steps processed within a time limit (Figure 12)"
	p.X.Label.Text = "steps (log scale)"
	p.Y.Label.Text = "time limit (s)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	for i, v := range vs {
		pts := make(plotter.XYs, len(limits))
		for k, l := range limits {
			pts[k].X, pts[k].Y = max(avg[i][k], 1), l.Seconds()
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		ci := i // a variant keeps its colour and marks whichever others are plotted
		for k, pv := range paperVariants {
			if pv.Name() == v.Name() {
				ci = k
			}
		}
		c := fig12Colors[ci%len(fig12Colors)]
		line.Color, points.Color = c, c
		points.Shape = plotutil.Shape(ci % 4)
		line.Dashes = plotutil.Dashes(ci % 3)
		p.Add(line, points)
		p.Legend.Add(v.Name(), line, points)
		if pp, ok := paper[v.Name()]; ok {
			ppts := plotter.XYs{{X: pp[0], Y: limits[0].Seconds()}, {X: pp[1], Y: limits[len(limits)-1].Seconds()}}
			sc, err := plotter.NewScatter(ppts)
			if err != nil {
				return nil, err
			}
			sc.Color = c
			sc.Radius = vg.Points(5)
			sc.Shape = draw.RingGlyph{}
			p.Add(sc)
			p.Legend.Add("paper: "+v.Name(), sc)
		}
	}
	// Steps start at 1 on the log axis, leaving its first decade (no
	// variant processes fewer than 10 steps here) to the legend.
	p.X.Min = 1
	p.X.Max = max(p.X.Max, 2000)
	p.Y.Min = 0
	p.BackgroundColor = color.White
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, ext := range []string{"svg", "png"} {
		f := filepath.Join(dir, name+"."+ext)
		if err := p.Save(18*vg.Centimeter, 13*vg.Centimeter, f); err != nil {
			return files, err
		}
		files = append(files, f)
	}
	return files, nil
}

// artifactAvg sums the artifact's steps over the histories it measured.
type artifactAvg struct {
	steps float64
	n     int
}

// artifactSyncStack reads the artifact's own 5 s measurements of the
// sync-stack histories (data.tsv), per satmon variant.
func artifactSyncStack(data string, hs []*expHistory) map[string]artifactAvg {
	rows, err := readArtifactFile(filepath.Join(data, "artifact-measurements"), "data.tsv")
	if err != nil {
		return nil
	}
	want := map[string]bool{}
	for _, h := range hs {
		want[filepath.Base(h.Name)] = true
	}
	out := map[string]artifactAvg{}
	for _, r := range rows {
		if !want[r.History] || r.Variant == "" {
			continue
		}
		a := out[r.Variant]
		a.steps += float64(r.Steps)
		a.n++
		out[r.Variant] = a
	}
	return out
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
