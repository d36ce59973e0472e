package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// expTable is one table of results: printed aligned, and written as
// NAME.csv and NAME.json (an array of objects keyed by the header) with
// --out.
type expTable struct {
	Name   string
	Title  string
	Header []string
	Rows   [][]string
}

func (t *expTable) add(cells ...string) { t.Rows = append(t.Rows, cells) }

func (t *expTable) print(w io.Writer) {
	width := make([]int, len(t.Header))
	for i, h := range t.Header {
		width[i] = utf8.RuneCountInString(h)
	}
	for _, r := range t.Rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	if t.Title != "" {
		fmt.Fprintln(w, t.Title)
	}
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i == 0 {
				b.WriteString(c + pad) // names left, numbers right
			} else {
				b.WriteString(pad + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(t.Header)
	for _, r := range t.Rows {
		line(r)
	}
	fmt.Fprintln(w)
}

func (t *expTable) write(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, t.Name+".csv"))
	if err != nil {
		return err
	}
	cw := csv.NewWriter(f)
	_ = cw.Write(t.Header)
	_ = cw.WriteAll(t.Rows)
	if err := f.Close(); err != nil {
		return err
	}
	if cw.Error() != nil {
		return cw.Error()
	}
	objs := make([]map[string]string, len(t.Rows))
	for i, r := range t.Rows {
		objs[i] = map[string]string{}
		for k, c := range r {
			objs[i][t.Header[k]] = c
		}
	}
	b, err := json.MarshalIndent(objs, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, t.Name+".json"), append(b, '\n'), 0o644)
}

// emit prints the table and writes it under dir.
func (t *expTable) emit(w io.Writer, dir string) error {
	t.print(w)
	return t.write(dir)
}

// thousands formats n with comma separators, as the paper does.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func f1(x float64) string { return fmt.Sprintf("%.1f", x) }

func secs(x float64) string {
	if x < 0.01 {
		return fmt.Sprintf("%.2fms", x*1000)
	}
	if x < 1 {
		return fmt.Sprintf("%.3fs", x)
	}
	return fmt.Sprintf("%.2fs", x)
}

// limitName writes a limit as the paper does: "5s", "100s", "50ms".
func limitName(d time.Duration) string {
	if d >= time.Second && d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

func limitList(ls []time.Duration) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = limitName(l)
	}
	return strings.Join(s, ", ")
}
