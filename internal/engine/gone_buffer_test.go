package engine

import (
	"testing"

	"github.com/satmon/satmon/internal/gen"
	h "github.com/satmon/satmon/internal/history"
)

// sameStorage reports whether a and b end in the same array element, that
// is, share their storage: the remover's buffers are only ever resliced
// from the start or by appending, which keeps their end.
func sameStorage(a, b []int) bool {
	if cap(a) == 0 || cap(b) == 0 {
		return false
	}
	return &a[:cap(a)][cap(a)-1] == &b[:cap(b)][cap(b)-1]
}

// TestRemovedBufferSwap: Step keeps what the remover released in m.gone
// and hands the remover m.gone's old storage as r.out (a swap, not a
// copy). That is safe only while the result returned is r.out itself:
// were it backed by another of the remover's buffers, a later call (from
// summarize, or the next step) would overwrite the serials Step is about
// to forget. After every step, m.gone must share no storage with any of
// the remover's buffers.
func TestRemovedBufferSwap(t *testing.T) {
	t.Parallel()
	for _, obj := range h.Objects {
		released := 0
		// scale(3) seeds, and more while none has released anything (with
		// seed 1 alone -r releases no semaphore operation; the string
		// register, at two threads, releases nothing: see below).
		for seed := int64(1); seed <= 3 && (seed <= int64(scale(3)) || released == 0 && obj != h.StringRegister); seed++ {
			m, err := New(obj, "", Options{Algorithm: Saturate, RemoveObsolete: true})
			if err != nil {
				t.Fatal(err)
			}
			steps := 0
			conc := 6
			if obj == h.StringRegister {
				conc = 2 // as in TestRemovalKeepsListsLive
			}
			err = gen.Generate(gen.Config{Object: obj, Ops: 400, Concurrency: conc, Capacity: 8, Seed: seed}, func(a h.Action) error {
				steps++
				if _, err := m.Step(a); err != nil {
					return err
				}
				if len(m.gone) > 0 {
					released++
				}
				r := m.rem
				for name, b := range map[string][]int{"out": r.out, "more": r.more, "taken": r.taken, "over": r.over, "kept": r.kept, "quiet": r.quiet} {
					if sameStorage(m.gone, b) {
						t.Fatalf("%v seed %d, step %d: m.gone shares storage with r.%s", obj, seed, steps, name)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%v seed %d, step %d: %v", obj, seed, steps, err)
			}
		}
		if released == 0 && obj != h.StringRegister {
			t.Errorf("%v: nothing released; the test tests nothing", obj)
		}
	}
}
