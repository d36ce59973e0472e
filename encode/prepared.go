package encode

import (
	"sync"

	"github.com/satmon/satmon/theory"
)

// Prepared axioms are shared between the encoders of one kernel. Preparing
// a kernel (splitting its axioms, choosing the binding plans, compiling the
// templates) makes a few hundred small objects, and SATURATE's summaries
// replay a fresh encoder every few steps (encode.Replay), so at low
// concurrency preparing would dominate the allocations per step.
// An axiom is read-only once prepared (New copies what EagerMatching
// changes), so encoders on any goroutine may share it.
//
// The cache holds the last few kernels, by pointer, and checks that the
// kernel's axioms are still the ones it prepared.
var prepared struct {
	sync.Mutex
	entries [preparedKernels]preparedEntry
	next    int
}

type preparedEntry struct {
	k  *theory.Kernel
	ax []*axiom
}

// preparedKernels is how many kernels the cache keeps: a multi-object
// monitor checks a handful side by side.
const preparedKernels = 8

// preparedAxioms returns k's axioms prepared for grounding, theory first.
func preparedAxioms(k *theory.Kernel) []*axiom {
	prepared.Lock()
	defer prepared.Unlock()
	for i := range prepared.entries {
		if en := &prepared.entries[i]; en.k == k && sameAxioms(k, en.ax) {
			return en.ax
		}
	}
	var ax []*axiom
	for _, a := range k.Axioms() {
		ax = append(ax, prepare(a))
	}
	prepared.entries[prepared.next] = preparedEntry{k, ax}
	prepared.next = (prepared.next + 1) % preparedKernels
	return ax
}

// sameAxioms reports whether ax was prepared from k's axioms as they are.
func sameAxioms(k *theory.Kernel, ax []*axiom) bool {
	i := 0
	for _, ds := range [2][]*theory.Def{k.Theory, k.Sanity} {
		for _, d := range ds {
			for _, a := range d.Parts {
				if i >= len(ax) || ax[i].Axiom != a {
					return false
				}
				i++
			}
		}
	}
	return i == len(ax)
}
