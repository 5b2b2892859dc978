package reference

import (
	"runtime"
	"sync/atomic"
)

// spinBarrier is a centralised sense-counting barrier for a fixed number of
// goroutines. Arrivals increment count; the last one resets count and bumps
// gen, which releases the others. Waiters spin on gen (a few hundred
// nanoseconds when every party has its own core) and, after spinLimit
// polls, yield with runtime.Gosched so that the barrier still makes progress
// when there are more parties than GOMAXPROCS. It never parks a goroutine,
// so it must only be used while all parties are running (one Run).
//
// Go's sync/atomic operations are sequentially consistent and create
// happens-before edges (The Go Memory Model, "Atomic Values"), so plain
// writes made before wait are visible to every party after wait.
type spinBarrier struct {
	parties int32
	_       [60]byte // keep count and gen on their own cache lines
	count   atomic.Int32
	_       [60]byte
	gen     atomic.Uint32
	_       [60]byte
}

// spinLimit is the number of polls before a waiter starts yielding.
const spinLimit = 1 << 12

func newSpinBarrier(parties int) *spinBarrier { return &spinBarrier{parties: int32(parties)} }

// wait blocks until all parties have called wait for this generation.
func (b *spinBarrier) wait() {
	if b.parties == 1 {
		return
	}
	g := b.gen.Load()
	if b.count.Add(1) == b.parties {
		b.count.Store(0) // reset before release: a released party may arrive at the next barrier at once
		b.gen.Add(1)
		return
	}
	for i := 0; b.gen.Load() == g; i++ {
		if i >= spinLimit {
			runtime.Gosched()
		}
	}
}
