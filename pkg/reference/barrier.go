package reference

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// spinBarrier is a centralised barrier for a fixed number of goroutines
// (parties), built for T1's one barrier per iteration:
//
//   - Arrival: each party increments count; the last one resets count and
//     bumps gen, which releases the others.
//   - Waiting, phase 1 (spin): poll gen for up to spinPolls polls (tens of
//     microseconds), calling runtime.Gosched every yieldEvery polls so that
//     the barrier still progresses when there are more parties than
//     GOMAXPROCS. With one core per party and balanced work the other
//     parties arrive in this phase, and a crossing costs a cache-line
//     transfer rather than a wake-up.
//   - Waiting, phase 2 (park): if gen still has not moved, sleep on a
//     sync.Cond. This only happens when a party lost its core (another
//     process on the machine, GC): a spinning waiter would then burn the
//     very core the late party needs.
//
// Go's sync/atomic operations are sequentially consistent and create
// happens-before edges (The Go Memory Model, "Atomic Values"), so plain
// writes made before wait are visible to every party after wait. The
// barrier does not allocate.
type spinBarrier struct {
	parties int32
	_       [60]byte // keep count and gen on their own cache lines
	count   atomic.Int32
	_       [60]byte
	gen     atomic.Uint32
	_       [60]byte
	broken  atomic.Bool // set by abort: every wait returns at once
	mu      sync.Mutex
	cond    sync.Cond
}

const (
	spinPolls  = 1 << 16 // polls before parking (roughly 30-100 us)
	yieldEvery = 1 << 10 // polls between runtime.Gosched calls while spinning
)

func newSpinBarrier(parties int) *spinBarrier {
	b := &spinBarrier{parties: int32(parties)}
	b.cond.L = &b.mu
	return b
}

// abort breaks the barrier for good (a party panicked): parties waiting now
// are released and every later wait returns at once. Callers check broken
// after wait to stop.
func (b *spinBarrier) abort() {
	b.broken.Store(true)
	b.mu.Lock()
	b.gen.Add(1)
	b.cond.Broadcast()
	b.mu.Unlock()
}

// wait blocks until all parties have called wait for this generation, or
// the barrier is aborted.
func (b *spinBarrier) wait() {
	if b.parties == 1 || b.broken.Load() {
		return
	}
	g := b.gen.Load()
	if b.count.Add(1) == b.parties {
		b.count.Store(0) // reset before release: a released party may arrive at the next barrier at once
		b.mu.Lock()      // a parker checks gen under mu, so it cannot miss this bump
		b.gen.Add(1)
		b.cond.Broadcast()
		b.mu.Unlock()
		return
	}
	for i := 1; i <= spinPolls; i++ {
		if b.gen.Load() != g {
			return
		}
		if i%yieldEvery == 0 {
			runtime.Gosched()
		}
	}
	b.mu.Lock()
	for b.gen.Load() == g {
		b.cond.Wait()
	}
	b.mu.Unlock()
}
