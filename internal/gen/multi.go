package gen

import (
	"fmt"
	"math/rand/v2"

	"github.com/satmon/satmon/internal/history"
)

// ObjectSpec is one object of a log of many objects: its name and the
// history to draw for it.
type ObjectSpec struct {
	Name   string
	Config Config
}

// MultiEvent is one line of a log of many objects: the declaration of
// object Object (Declare), or one of its actions. Action.Seq counts the
// actions of the whole log and Action.Line is the line of a log written
// with one line per event; ids are "NAME:ID", unique across objects.
type MultiEvent struct {
	Object  int
	Declare bool
	Action  history.Action
}

// Interleave draws each object's history and interleaves them into one
// log, at random: at most active objects (0: all) are under way at once;
// when one ends, the next is declared and starts. Only the histories of
// the active objects are held in memory.
func Interleave(objs []ObjectSpec, active int, seed int64, emit func(MultiEvent) error) error {
	if active <= 0 || active > len(objs) {
		active = len(objs)
	}
	for i, o := range objs {
		if o.Name == "" {
			return fmt.Errorf("object %d has no name", i)
		}
		if err := o.Config.Validate(); err != nil {
			return fmt.Errorf("object %s: %w", o.Name, err)
		}
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6d756c7469))
	type run struct {
		obj  int
		acts []history.Action
	}
	var runs []*run
	next, seq, line := 0, 0, 0
	start := func() error {
		i := next
		next++
		r := &run{obj: i}
		prefix := objs[i].Name + ":"
		err := Generate(objs[i].Config, func(a history.Action) error {
			a.ID = prefix + a.ID
			r.acts = append(r.acts, a)
			return nil
		})
		if err != nil {
			return err
		}
		line++
		if err := emit(MultiEvent{Object: i, Declare: true}); err != nil {
			return err
		}
		if len(r.acts) > 0 {
			runs = append(runs, r)
		}
		return nil
	}
	for next < len(objs) && len(runs) < active {
		if err := start(); err != nil {
			return err
		}
	}
	for len(runs) > 0 {
		k := rng.IntN(len(runs))
		r := runs[k]
		a := r.acts[0]
		r.acts = r.acts[1:]
		a.Seq = seq
		seq++
		line++
		a.Line = line
		if err := emit(MultiEvent{Object: r.obj, Action: a}); err != nil {
			return err
		}
		if len(r.acts) == 0 {
			runs[k] = runs[len(runs)-1]
			runs = runs[:len(runs)-1]
			for next < len(objs) && len(runs) < active {
				if err := start(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
