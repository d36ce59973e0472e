package engine

import (
	"fmt"
	"os"

	h "github.com/satmon/satmon/internal/history"
)

// When the frontier cannot follow an operation exactly — more than
// maxFrontSlots open at once, or one return with more than frontBudget
// configurations to explore — it does not stop checking. It follows that
// operation as a crashed one instead (frontier.abandon), and more: its
// transition joins the pool as a free one, usable at any later time any
// number of times (an append's once: strings would grow without end), or
// never, and its result is not checked. Uses are not counted, so that the
// fallback's transitions do not multiply the configurations by the uses
// each made. That over-approximates the history: every linearization
// of the real history so far is still one of the frontier's (the
// operation takes effect where it really did, or, if it did before the
// cut, its state is reached by using its transition at once), so a
// return after which no configuration is left is still a violation. What
// is lost is exactness: the operation may now take effect later than its
// return, or never, and its result may be wrong unnoticed, so an ok is no
// longer a proof (Result.Exact false, and a warning names the step).
//
//   - At a call with every slot in use, the operation is pooled at once
//     (a read is not followed at all).
//   - At a return whose configurations exceed the budget, every open
//     operation is pooled (a read or a failed compare-and-set is
//     dropped), and the configurations are rebuilt from what the
//     returning operation tells: see degrade.

// openLimit is the most operations the frontier follows open at once.
func (f *frontier) openLimit() int {
	if f.maxOpen > 0 {
		return min(f.maxOpen, maxFrontSlots)
	}
	return maxFrontSlots
}

// confBudget is the most configurations one return may create.
func (f *frontier) confBudget() int {
	if f.budget > 0 {
		return f.budget
	}
	return frontBudget
}

// fallbackRounds bounds what the fallback may cost: once it has created,
// over the returns after exactness was lost, this many times confBudget
// configurations (at least 1,024), the frontier gives up (nothing more
// is checked), as when its pool has grown so that every return comes
// near the budget.
const fallbackRounds = 4

// overflow follows an operation called with label l, for which no slot
// is free, as a crashed one.
func (f *frontier) overflow(l h.Label, why string) {
	f.lose(why)
	f.toPool(&l, true)
	f.confs = f.prune(f.confs)
}

// degrade gives up following the operations open at a return whose
// configurations exceed the budget (slot j's, with label l as returned):
// they all become crashed ones. Following only j so would leave as many
// configurations, and the next return would exceed the budget again.
//
// The configurations before the return are kept, with their states
// alone: every crashed operation is usable again (more linearizations,
// never fewer), and free. When j sets the state — a write, a
// compare-and-set that succeeded — it took effect before its return, and
// its effect is kept: a configuration in which j took effect keeps its
// state, which operations that returned before j may have changed since
// (j's state is not the state after j's return); one in which j did not
// take effect yet stands for extensions that take j, and the open
// operations after it, which are crashed ones now: it becomes j's state
// (whether a compare-and-set could succeed is no longer checked). A
// write hidden in a configuration is both: as good as taken, and still
// to take. Otherwise j is a crashed one too (a
// read or a failed compare-and-set unchecked).
func (f *frontier) degrade(j int, l h.Label, why string) {
	f.lose(why)
	f.degraded++
	// The exploration's room: this return was a rare one.
	f.all, f.stack = nil, nil
	f.groups = nil
	f.cidx = cindex{}
	sets := l.Method == h.Write || l.Method == h.CAS && l.Ret == h.OK
	if sets {
		st := f.intern(regState{l.Arg, true}) // a write's state, a compare-and-set's new one
		for i, n := 0, len(f.confs); i < n; i++ {
			c := &f.confs[i]
			switch {
			case c.taken&(1<<j) != 0:
			case c.hide&(1<<j) != 0:
				// Hidden: as good as taken, or still to take.
				f.confs = append(f.confs, fconf{st: st})
			default:
				c.st = st
			}
			f.confs[i].dropSlot(j)
		}
		f.slots[j] = fslot{}
	} else {
		f.slotToPool(j, true)
	}
	for p := range f.slots {
		if sl := &f.slots[p]; sl.inUse {
			delete(f.bySerial, sl.serial)
			f.slotToPool(p, true)
		}
	}
	// Every crashed operation's transition becomes free too: the
	// configurations no longer differ by the crashed operations they used
	// (what crashed compare-and-sets multiply most), and the next
	// returns do not exceed the budget again at once.
	for i := range f.pool {
		if f.pool[i].l.Method != h.Append {
			f.pool[i].free = true
		}
	}
	for i := range f.confs {
		f.confs[i].used, f.confs[i].alts = nil, nil
	}
	f.confs = f.prune(f.confs)
}

// lose records the first reason the frontier stopped being exact.
func (f *frontier) lose(why string) {
	if f.lost == "" {
		f.lost = why
	}
}

// noteLost records the step of the action e after which the frontier
// stopped being exact, and what the fallback costs (fallbackRounds).
func (c *frontChecker) noteLost(e *fevent) {
	f := c.f
	if f.lost == "" || f.top {
		return
	}
	if f.lostAt == 0 {
		f.lostAt = e.step
	}
	if limit := max(fallbackRounds*f.confBudget(), 1<<10); e.kind == fRet {
		// Read once: a return the frontier does not follow creates none.
		f.spent += f.created
		f.created = 0
		if f.spent > limit {
			f.giveUp(fmt.Sprintf("after exactness was lost, more than %d configurations explored", limit))
		}
	}
}

// frontierLost marks the result inexact and says, once, at which step
// and why the frontier stopped being exact while it goes on checking.
func (m *Monitor) frontierLost() {
	f := m.front
	if f == nil || f.lost == "" || f.lostSaid {
		return
	}
	f.lostSaid = true
	m.res.Exact = false
	out := m.opt.Warn
	if out == nil {
		out = os.Stderr
	}
	fmt.Fprintf(out, "satmon: warning: the exact register check is no longer exact from step %d (%s): it goes on with the operations it cannot follow as crashed ones, so a violation it finds is one, but ok is not a proof; see docs/removal.md\n", f.lostAt, f.lost)
}
