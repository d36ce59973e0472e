package engine

import "slices"

// The search extends each configuration by every open operation it may
// take, and cover drops most of what that makes (another configuration
// of the return covers it). A copy made by clone would allocate its
// lists for each, to be dropped at once; borrowClone copies into room
// the frontier keeps (bseen, bused), and cover makes them the
// configuration's own (own) only if it keeps it (frontier.borrowed).

// borrowClone is c.clone() with its seen and used in f's room: valid
// until the next borrowClone, unless own is called on it.
func (f *frontier) borrowClone(c *fconf) fconf {
	return fconf{st: c.st, taken: c.taken, other: c.other, hide: c.hide, seenK: c.seenK, pastK: c.pastK,
		seen: append(f.bseen[:0], c.seen...), used: append(f.bused[:0], c.used...), alts: slices.Clip(c.alts)}
}

// own gives c lists of its own.
func (c *fconf) own() {
	c.seen, c.used = slices.Clone(c.seen), slices.Clone(c.used)
}
