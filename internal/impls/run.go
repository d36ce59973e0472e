package impls

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"

	"github.com/satmon/satmon/internal/history"
	"github.com/satmon/satmon/internal/record"
)

// Options configure a Run.
type Options struct {
	Threads int     // goroutines; 4 when 0
	Ops     int     // operations in total, over all goroutines; 100 when 0
	Seed    int64   // drives the operation mix and arguments only
	Yield   float64 // 0..1: the Noise of the implementation
	// Capacity is the semaphore's capacity; 2 when 0.
	Capacity int
}

// impl describes one implementation; start builds a fresh instance and
// returns the header parameter and the worker each goroutine runs.
type impl struct {
	obj    history.Object
	faulty bool
	start  func(opt Options) (param string, w worker)
}

// worker performs one goroutine's share of a run: quota operations, drawn
// with rng, each recorded on r; thread numbers the goroutine for tags.
type worker func(r *record.Recorder, rng *rand.Rand, thread, quota int)

// Patience of the exchanger, in yields; small enough that runs end
// quickly, large enough that exchanges meet.
const exchangePatience = 64

// Shares of additions in the collections' operation mix.
const (
	queueAdds = 0.4
	stackAdds = 0.5
)

// Tuning of the relaxed queues.
const (
	kfifoK          = 4
	randomDeqWindow = 3
)

var impls = map[string]impl{
	"msqueue":   {history.Queue, false, collection(queueAdds, func(o Options) Collection { return NewMSQueue(Noise(o.Yield)) })},
	"lockqueue": {history.Queue, false, collection(queueAdds, func(o Options) Collection { return NewLockQueue(Noise(o.Yield)) })},
	"treiber":   {history.Stack, false, collection(stackAdds, func(o Options) Collection { return NewTreiber(Noise(o.Yield)) })},
	"lockstack": {history.Stack, false, collection(stackAdds, func(o Options) Collection { return NewLockStack(Noise(o.Yield)) })},
	"lockpq":    {history.PQueue, false, pqueue(func(o Options) *LockPQ { return NewLockPQ(Noise(o.Yield)) })},
	"lockset":   {history.Set, false, set(func(o Options) Set { return NewLockSet(Noise(o.Yield)) })},
	"lockregister": {history.Register, false, register(func(o Options, init string) Register {
		return NewLockRegister(init, Noise(o.Yield))
	})},
	"mutex": {history.Lock, false, lock(func(o Options) Lock { return NewMutex(Noise(o.Yield)) })},
	"semaphore": {history.Semaphore, false, semaphore(func(o Options) Semaphore {
		return NewSemaphore(o.Capacity, Noise(o.Yield))
	})},
	"exchanger": {history.Exchanger, false, exchanger(func(o Options) *Exchanger {
		return NewExchanger(exchangePatience, Noise(o.Yield))
	})},

	"treiber-aba": {history.Stack, true, collection(stackAdds, func(o Options) Collection {
		return NewTreiberABA(o.Ops+1, Noise(o.Yield))
	})},
	"kfifo":         {history.Queue, true, collection(queueAdds, func(o Options) Collection { return NewKFIFO(kfifoK, Noise(o.Yield)) })},
	"randomdequeue": {history.Queue, true, collection(queueAdds, func(o Options) Collection { return NewRandomDequeue(randomDeqWindow, Noise(o.Yield)) })},
	"racyset":       {history.Set, true, set(func(o Options) Set { return NewRacySet(Noise(o.Yield)) })},
	"lossyregister": {history.Register, true, register(func(o Options, init string) Register {
		return NewLossyRegister(init, Noise(o.Yield))
	})},
	"racylock": {history.Lock, true, lock(func(o Options) Lock { return NewRacyLock(Noise(o.Yield)) })},
	"overadmitsem": {history.Semaphore, true, semaphore(func(o Options) Semaphore {
		return NewOverAdmitSemaphore(o.Capacity, Noise(o.Yield))
	})},
}

// Names lists the implementations: the correct ones, then the faulty ones,
// each group sorted.
func Names() []string {
	var ok, bad []string
	for n, im := range impls {
		if im.faulty {
			bad = append(bad, n)
		} else {
			ok = append(ok, n)
		}
	}
	slices.Sort(ok)
	slices.Sort(bad)
	return append(ok, bad...)
}

// Info returns the object an implementation implements and whether it is
// deliberately faulty (not linearizable); ok is false for unknown names.
func Info(name string) (obj history.Object, faulty bool, ok bool) {
	im, ok := impls[name]
	return im.obj, im.faulty, ok
}

// Run runs implementation name with opt.Threads goroutines performing
// opt.Ops operations in total and records them to w. The seed fixes each
// goroutine's sequence of operations and arguments; the interleaving is
// the real schedule and differs from run to run.
func Run(name string, opt Options, w io.Writer) error {
	im, ok := impls[name]
	if !ok {
		return fmt.Errorf("impls: unknown implementation %q", name)
	}
	if opt.Threads == 0 {
		opt.Threads = 4
	}
	if opt.Ops == 0 {
		opt.Ops = 100
	}
	if opt.Capacity == 0 {
		opt.Capacity = 2
	}
	switch {
	case opt.Threads < 0 || opt.Ops < 0 || opt.Capacity < 0:
		return fmt.Errorf("impls: threads, ops and capacity must not be negative")
	case !(opt.Yield >= 0 && opt.Yield <= 1):
		return fmt.Errorf("impls: yield %v is not a probability", opt.Yield)
	}
	param, work := im.start(opt)
	r := record.New(w, im.obj, param)
	begin := make(chan struct{})
	var wg sync.WaitGroup
	for t := range opt.Threads {
		quota := opt.Ops / opt.Threads
		if t < opt.Ops%opt.Threads {
			quota++
		}
		rng := rand.New(rand.NewPCG(uint64(opt.Seed), uint64(t)))
		wg.Go(func() {
			<-begin // start together, to overlap as much as possible
			work(r, rng, t+1, quota)
		})
	}
	close(begin)
	wg.Wait()
	return r.Close()
}

// tag is the unique value of a goroutine's i-th operation.
func tag(thread, i int) string { return strconv.Itoa(thread) + "." + strconv.Itoa(i) }

// collection drives a queue or stack: adds with probability pAdd, removals
// otherwise. Queues remove more than they add, so that removals meet an
// empty queue; stacks need values to pop for their ABA races.
func collection(pAdd float64, mk func(Options) Collection) func(Options) (string, worker) {
	return func(opt Options) (string, worker) {
		c := mk(opt)
		return "", func(r *record.Recorder, rng *rand.Rand, thread, quota int) {
			for i := range quota {
				if rng.Float64() < pAdd {
					v := tag(thread, i)
					op := r.Call(history.Label{Method: history.Add, Arg: history.Value(v)})
					c.Add(v)
					op.Return(history.Void)
					continue
				}
				op := r.Call(history.Label{Method: history.Rem})
				v, ok := c.Rem()
				op.Return(orEmpty(v, ok, history.Empty))
			}
		}
	}
}

func orEmpty(v string, ok bool, none history.Value) history.Value {
	if !ok {
		return none
	}
	return history.Value(v)
}

func pqueue(mk func(Options) *LockPQ) func(Options) (string, worker) {
	return func(opt Options) (string, worker) {
		q := mk(opt)
		span := int64(opt.Ops + opt.Threads + 1)
		return "", func(r *record.Recorder, rng *rand.Rand, thread, quota int) {
			for i := range quota {
				if rng.Float64() < 0.4 {
					v := tag(thread, i)
					// Random, yet distinct: the offset is unique per op.
					prio := rng.Int64N(100)*span + int64(i*opt.Threads+thread)
					op := r.Call(history.Label{Method: history.Add, Arg: history.Value(v), Prio: prio})
					q.Add(v, prio)
					op.Return(history.Void)
					continue
				}
				op := r.Call(history.Label{Method: history.Rem})
				v, ok := q.Rem()
				op.Return(orEmpty(v, ok, history.Empty))
			}
		}
	}
}

// setKeys is the size of the set's universe: small, so that operations
// on one key meet.
const setKeys = 3

func set(mk func(Options) Set) func(Options) (string, worker) {
	return func(opt Options) (string, worker) {
		s := mk(opt)
		return "", func(r *record.Recorder, rng *rand.Rand, thread, quota int) {
			for range quota {
				x := "k" + strconv.Itoa(rng.IntN(setKeys))
				var m history.Method
				var f func(string) bool
				switch p := rng.Float64(); {
				case p < 0.35:
					m, f = history.Add, s.Add
				case p < 0.6:
					m, f = history.Rem, s.Remove
				default:
					m, f = history.Contains, s.Contains
				}
				op := r.Call(history.Label{Method: m, Arg: history.Value(x)})
				ok := f(x)
				op.Return(boolValue(ok))
			}
		}
	}
}

func boolValue(b bool) history.Value {
	if b {
		return history.True
	}
	return history.False
}

// registerInit is the registers' initial value, the log's parameter.
const registerInit = "0"

func register(mk func(Options, string) Register) func(Options) (string, worker) {
	return func(opt Options) (string, worker) {
		g := mk(opt, registerInit)
		return registerInit, func(r *record.Recorder, rng *rand.Rand, thread, quota int) {
			for i := range quota {
				if rng.Float64() < 0.5 {
					v := tag(thread, i)
					op := r.Call(history.Label{Method: history.Write, Arg: history.Value(v)})
					g.Write(v)
					op.Return(history.Void)
					continue
				}
				op := r.Call(history.Label{Method: history.Read})
				op.Return(history.Value(g.Read()))
			}
		}
	}
}

// lock and semaphore goroutines alternate acquiring and releasing, with a
// Noise point in between for the critical section, so that holders
// overlap the way they would in a program; an odd quota is rounded up,
// since a goroutine that ended holding the lock would block the others
// forever.
func lock(mk func(Options) Lock) func(Options) (string, worker) {
	return func(opt Options) (string, worker) {
		l := mk(opt)
		return "", func(r *record.Recorder, _ *rand.Rand, thread, quota int) {
			for i := 0; i < quota; i += 2 {
				t := tag(thread, i)
				op := r.Call(history.Label{Method: history.LockM, Arg: history.Value(t)})
				l.Lock(t)
				op.Return(history.Void)
				Noise(opt.Yield).Point() // the critical section
				op = r.Call(history.Label{Method: history.Unlock})
				op.Return(history.Value(l.Unlock()))
			}
		}
	}
}

func semaphore(mk func(Options) Semaphore) func(Options) (string, worker) {
	return func(opt Options) (string, worker) {
		s := mk(opt)
		return strconv.Itoa(opt.Capacity), func(r *record.Recorder, _ *rand.Rand, thread, quota int) {
			for i := 0; i < quota; i += 2 {
				t := tag(thread, i)
				op := r.Call(history.Label{Method: history.Acquire, Arg: history.Value(t)})
				h := s.Acquire(t)
				op.Return(history.Void)
				Noise(opt.Yield).Point() // the critical section
				op = r.Call(history.Label{Method: history.Release})
				op.Return(history.Value(s.Release(h)))
			}
		}
	}
}

func exchanger(mk func(Options) *Exchanger) func(Options) (string, worker) {
	return func(opt Options) (string, worker) {
		x := mk(opt)
		return "", func(r *record.Recorder, _ *rand.Rand, thread, quota int) {
			for i := range quota {
				v := tag(thread, i)
				op := r.Call(history.Label{Method: history.Exchange, Arg: history.Value(v)})
				w, ok := x.Exchange(v)
				op.Return(orEmpty(w, ok, history.Null))
			}
		}
	}
}
