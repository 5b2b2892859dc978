package study

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/prlab/prlab/pkg/pagerank"
)

// MemcpyBandwidth measures the host's copy bandwidth, the denominator of
// the CPU rows' byte floors: `workers` goroutines copy disjoint parts of a
// size-byte buffer into another (Go's copy, i.e. runtime.memmove), after
// `warmups` untimed copies (which also fault the pages in); the row is the
// median of `repeats` timed copies. Bytes counts what one copy moves, read
// plus written (2 x size), as the GPU's device-to-device copy row does, so
// GB/s = 2 x size / (ms x 1e6). With a size well above the last-level cache
// (the default 512 MiB) this is DRAM bandwidth.
func MemcpyBandwidth(size int64, workers, warmups, repeats int) pagerank.Stage {
	row, _ := MemcpyBandwidthContext(context.Background(), size, workers, warmups, repeats)
	return row
}

// MemcpyBandwidthContext is MemcpyBandwidth that stops between copies (each
// about 0.1 s for 512 MiB) once ctx is done, returning ctx's error.
func MemcpyBandwidthContext(ctx context.Context, size int64, workers, warmups, repeats int) (pagerank.Stage, error) {
	workers, repeats = max(1, workers), max(1, repeats)
	if err := ctx.Err(); err != nil { // cancelled before the 2 x size bytes are allocated and faulted in
		return pagerank.Stage{}, err
	}
	src := make([]byte, size)
	dst := make([]byte, size)
	// The fill and the warm-ups fault a GiB of pages in (seconds on a loaded
	// machine): they look at ctx every 64 MiB. The timed copies are whole.
	const piece = 64 << 20
	parallelCopy := func(fill, untimed bool) {
		var wg sync.WaitGroup
		for w := range workers {
			lo, hi := size*int64(w)/int64(workers), size*int64(w+1)/int64(workers)
			wg.Add(1)
			go func() {
				defer wg.Done()
				if fill {
					for i := lo; i < hi; i += 4096 {
						if (i-lo)%piece == 0 && ctx.Err() != nil {
							return
						}
						src[i] = byte(i >> 12)
					}
					return
				}
				if untimed {
					for p := lo; p < hi && ctx.Err() == nil; p += piece {
						e := min(p+piece, hi)
						copy(dst[p:e], src[p:e])
					}
					return
				}
				copy(dst[lo:hi], src[lo:hi])
			}()
		}
		wg.Wait()
	}
	parallelCopy(true, true)
	for range warmups {
		if err := ctx.Err(); err != nil {
			return pagerank.Stage{}, fmt.Errorf("memcpy bandwidth: interrupted: %w", err)
		}
		parallelCopy(false, true)
	}
	ms := make([]float64, repeats)
	for i := range ms {
		if err := ctx.Err(); err != nil {
			return pagerank.Stage{}, fmt.Errorf("memcpy bandwidth: interrupted: %w", err)
		}
		start := time.Now()
		parallelCopy(false, false)
		ms[i] = float64(time.Since(start).Nanoseconds()) / 1e6
	}
	sort.Float64s(ms)
	med := ms[len(ms)/2]
	if len(ms)%2 == 0 {
		med = (ms[len(ms)/2-1] + ms[len(ms)/2]) / 2
	}
	goroutines := "1 goroutine"
	if workers > 1 {
		goroutines = fmt.Sprintf("%d goroutines", workers)
	}
	row := pagerank.Stage{
		Name:    fmt.Sprintf("CPU memcpy, %s, %s", sizeText(size), goroutines),
		Kind:    pagerank.StageCopyHost,
		Ms:      med,
		Bytes:   2 * size,
		Formula: fmt.Sprintf("Go copy() of %d bytes split over %s: %d read + %d written; median of %d after %d warm-up(s)", size, goroutines, size, size, repeats, warmups),
	}
	row.GBps = GBps(row.Bytes, med)
	return row, nil
}

func sizeText(b int64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d bytes", b)
}
