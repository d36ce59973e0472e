package engine

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
	idx   map[wkey]int32 // entry by key
	ents  []went
	lists []uint32
	kfs   []int
	cur   int32 // the entry whose marks are live (wmark == wgen), -1 none
}

// reset forgets the results: the open operations change between returns.
func (w *wcache) reset() {
	if w.idx == nil {
		w.idx = map[wkey]int32{}
	}
	clear(w.idx)
	w.ents, w.lists, w.kfs = w.ents[:0], w.lists[:0], w.kfs[:0]
	w.cur = -1
}

// wanted marks the states that taking a write may help reach in c, or
// says all (wantedNow), computed once for the configurations of one
// return that agree on what it reads (wkey).
func (f *frontier) wanted(c *fconf) bool {
	w := &f.wc
	k := wkey{c.taken & f.em.casAll, c.other & f.em.casAll, c.seenK}
	if i, ok := w.idx[k]; ok {
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
	w.idx[k] = w.cur
	w.ents = append(w.ents, e)
	return all
}
