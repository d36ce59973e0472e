package monitor

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/satmon/satmon/monitor/logfmt"
)

func TestZZProfile(t *testing.T) {
	path := os.Getenv("ZZLOG")
	if path == "" {
		t.Skip()
	}
	fh, _ := os.Open(path)
	rd := logfmt.NewReader(fh, logfmt.Options{Name: path})
	var m *Monitor
	start := time.Now()
	maxCreated := 0
	for i := 0; ; i++ {
		a, err := rd.Next()
		if err != nil {
			break
		}
		if m == nil {
			m, _ = New(rd.Object(), rd.Param(), Options{})
		}
		m.Step(a)
		f := m.front
		if f.created > maxCreated {
			maxCreated = f.created
			groups := map[[2]uint64]int{}
			for _, c := range f.confs {
				groups[[2]uint64{uint64(c.st), c.taken}]++
			}
			fmt.Printf("step %d: confs %d created %d groups %d open %d\n", i, len(f.confs), f.created, len(groups), len(f.bySerial))
		}
		if f.top {
			fmt.Println("gave up at", i)
			break
		}
	}
	fmt.Println(time.Since(start), m.front.maxConfs)
}
