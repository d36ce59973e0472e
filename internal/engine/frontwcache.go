package engine

import "math/bits"

// wanted's results, kept for one return's search (wcache): wanted runs
// for every configuration the search extends, and looks at every open
// operation and, closing over them, at every crashed compare-and-set;
// but what it finds depends on a configuration only through which open
// compare-and-sets it took and which may fail (taken and other on the
// compare-and-sets), and which known reads saw their result (seenK): the
// rest of the open operations, the pool and the returning slot are the
// same for the whole search. An unknown read makes all whatever the
// configuration, without looking at seen. Many configurations of one
// return share those bits: wanted computes once per distinct bits, and
// restores what it found (marks, wlist, wkf, wb) for the others, the
// same as computing it again.

// wantHard marks, in wcache's lists, a state want marked (not only
// wantSoft): state ids stay below it.
const wantHard = 1 << 31

// wkey is what wanted reads of a configuration.
type wkey struct{ taken, other, seenK uint64 }

// went is one wanted result: all, wb, and its wlist and wkf as ranges of
// wcache's lists and kfs.
type went struct {
	all    bool
	wb     uint64
	l0, l1 int32
	k0, k1 int32
}

type wcache struct {
	// heads: an open-addressed table of 1 + the entry by its key's
	// hash, 0 empty (a map from the 24-byte key cost more than the
	// wanted it saved); shift: 64 - log2(len(heads)).
	heads []int32
	shift uint
	keys  []wkey // by entry
	ents  []went
	lists []uint32
	kfs   []int
	cur   int32 // the entry whose marks are live (wmark == wgen), -1 none
}

// wcacheMin is the table's size at the start of each return.
const wcacheMin = 64

// reset forgets the results: the open operations change between returns.
// The table goes back to its smallest size, so that clearing it costs as
// much as the last return filled it, not as the largest return did.
func (w *wcache) reset() {
	clear(w.heads)
	if cap(w.heads) < wcacheMin {
		w.heads = make([]int32, wcacheMin)
	}
	w.heads = w.heads[:wcacheMin]
	w.shift = 64 - 6
	w.keys, w.ents, w.lists, w.kfs = w.keys[:0], w.ents[:0], w.lists[:0], w.kfs[:0]
	w.cur = -1
}

// slot is where k is in the table, or the empty place where it goes.
func (w *wcache) slot(k *wkey) int {
	const m = 0x9E3779B97F4A7C15
	h := bits.RotateLeft64(k.taken*m^k.other, 31) * m
	h = bits.RotateLeft64(h^k.seenK, 31) * m
	mask := len(w.heads) - 1
	for i := int(h >> w.shift); ; i = (i + 1) & mask {
		if e := w.heads[i]; e == 0 || w.keys[e-1] == *k {
			return i
		}
	}
}

// grow doubles the table when it is half full.
func (w *wcache) grow() {
	if 2*(len(w.keys)+1) <= len(w.heads) {
		return
	}
	n := 2 * len(w.heads)
	if cap(w.heads) >= n {
		w.heads = w.heads[:n]
		clear(w.heads)
	} else {
		w.heads = make([]int32, n)
	}
	w.shift--
	for e := range w.keys {
		w.heads[w.slot(&w.keys[e])] = int32(e + 1)
	}
}

// wanted marks the states that taking a write may help reach in c, or
// says all (wantedNow), computed once for the configurations of one
// return that agree on what it reads (wkey).
func (f *frontier) wanted(c *fconf) bool {
	w := &f.wc
	k := wkey{c.taken & f.em.casAll, c.other & f.em.casAll, c.seenK}
	x := w.slot(&k)
	if i := w.heads[x] - 1; i >= 0 {
		e := &w.ents[i]
		if i != w.cur {
			f.wgen++
			f.wlist = f.wlist[:0]
			for _, st := range w.lists[e.l0:e.l1] {
				if st&wantHard != 0 {
					f.want(st &^ wantHard)
				} else {
					f.wantSoft(st)
				}
			}
			f.wkf = append(f.wkf[:0], w.kfs[e.k0:e.k1]...)
			f.wb = e.wb
			w.cur = i
		}
		return e.all
	}
	all := f.wantedNow(c)
	e := went{all: all, wb: f.wb, l0: int32(len(w.lists)), k0: int32(len(w.kfs))}
	for _, st := range f.wlist {
		if f.hard1(st) {
			st |= wantHard
		}
		w.lists = append(w.lists, st)
	}
	w.kfs = append(w.kfs, f.wkf...)
	e.l1, e.k1 = int32(len(w.lists)), int32(len(w.kfs))
	w.cur = int32(len(w.ents))
	w.heads[x] = w.cur + 1
	w.keys = append(w.keys, k)
	w.ents = append(w.ents, e)
	w.grow()
	return all
}
