package reference

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Benchmarks. Two graphs: "aan", the real citation graph (the bundled
// data/aan/acl.txt.gz; PRLAB_AAN_EDGES overrides the path), and "rmat18", a Graph500 R-MAT graph with 2^18 nodes and edge
// factor 16 (pagerank.RMAT, seed 1; about 4M edges, larger than this
// machine's 2 MiB per-core L2).
//
//	BenchmarkIteration: one op = one iteration of a warmed run (ns/op is
//	    the mean ns per iteration; allocs/op shows the loop is
//	    allocation-free); p50-ns/iter and min-ns/iter are the median and
//	    minimum of the single-iteration times.
//	BenchmarkRun50:     one op = the public Run with pagerank.Fixed(50), the
//	    course's timing protocol and GAP pr_spmv's trial; ns/iter = ns/op /
//	    50 (setup, conversions and worker start included), p50-ns/iter and
//	    min-ns/iter the median and minimum run time / 50.
//	BenchmarkGatherBound: the random gather against a cache-local one.
//	BenchmarkSpinBarrier: one op = one barrier crossing by GOMAXPROCS parties.

// PRLAB_BENCH_RMAT=S adds a third graph, "rmatS" (pagerank.RMAT,
// Graph500RMAT(S, 1): the same edges as `prlab export --rmat S`, which GAP's
// pr_spmv reads in scripts/gap-vs-t1.sh), for the comparison with GAP on a
// graph far larger than the caches, e.g. PRLAB_BENCH_RMAT=22 (4.2M nodes,
// 65M edges, about 1.5 GB while building).
var rmatGraphs sync.Map // scale -> *lazyGraph

type lazyGraph struct {
	once sync.Once
	g    *pagerank.Graph
	err  error
}

func benchRMAT(b *testing.B, scale int) *pagerank.Graph {
	v, _ := rmatGraphs.LoadOrStore(scale, &lazyGraph{})
	lg := v.(*lazyGraph)
	lg.once.Do(func() { lg.g, lg.err = pagerank.RMAT(pagerank.Graph500RMAT(scale, 1)) })
	if lg.err != nil {
		b.Fatal(lg.err)
	}
	return lg.g
}

func benchGraphs(b *testing.B) []func(*testing.B) *pagerank.Graph {
	loads := []func(*testing.B) *pagerank.Graph{
		func(b *testing.B) *pagerank.Graph { return aanGraph(b) },
		func(b *testing.B) *pagerank.Graph { return benchRMAT(b, 18) },
	}
	if s, ok := benchRMATScale(b); ok {
		loads = append(loads, func(b *testing.B) *pagerank.Graph { return benchRMAT(b, s) })
	}
	return loads
}

// benchRMATScale is PRLAB_BENCH_RMAT's scale (10..26), if set.
func benchRMATScale(b *testing.B) (int, bool) {
	v := os.Getenv("PRLAB_BENCH_RMAT")
	if v == "" {
		return 0, false
	}
	s, err := strconv.Atoi(v)
	if err != nil || s < 10 || s > 26 {
		b.Fatalf("PRLAB_BENCH_RMAT=%q: want a scale from 10 to 26", v)
	}
	return s, true
}

var benchGraphNames = []string{"aan", "rmat18", "rmat" + os.Getenv("PRLAB_BENCH_RMAT")}

func BenchmarkIteration(b *testing.B) {
	for gi, load := range benchGraphs(b) {
		b.Run(benchGraphNames[gi], func(b *testing.B) {
			g := load(b)
			b.Run("t0-oracle", func(b *testing.B) {
				b.ReportAllocs()
				benchOracle(b, g)
			})
			for _, w := range []int{1, 0} {
				suffix := ""
				if w == 1 {
					suffix = "-w1"
				}
				b.Run("t1-f64"+suffix, func(b *testing.B) { benchEngine(b, newEngine[float64](g, pagerank.DefaultDamping, workersOr(w))) })
				b.Run("t1-f32"+suffix, func(b *testing.B) { benchEngine(b, newEngine[float32](g, pagerank.DefaultDamping, workersOr(w))) })
			}
		})
	}
}

func workersOr(w int) int {
	if w <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return w
}

// benchEngine runs b.N iterations of e in one run (workers started once).
// Besides ns/op (= mean ns per iteration) it reports the median and the
// minimum of the b.N single-iteration times (p50-ns/iter, min-ns/iter):
// on a machine shared with other jobs the mean absorbs every time slice
// lost to them, the median and minimum much less.
// benchOracle times the T0 oracle's iteration on g: one warm-up step, then
// b.N steps, each stamped (reportIterTimes).
func benchOracle(b *testing.B, g *pagerank.Graph) {
	st := newOracleState(g, pagerank.DefaultDamping, true, nil)
	st.step()
	stamps := make([]time.Time, 0, b.N+1)
	b.ResetTimer()
	stamps = append(stamps, time.Now())
	for range b.N {
		st.step()
		stamps = append(stamps, time.Now())
	}
	b.StopTimer()
	reportIterTimes(b, stamps, 1)
}

func benchEngine[T float](b *testing.B, e *engine[T]) {
	e.run(pagerank.Fixed(3), nil) // warm caches and the scheduler
	e.stamps = make([]time.Time, 0, b.N+1)
	e.waited = make([]paddedDuration, len(e.owned)-1)
	b.ReportAllocs()
	b.ResetTimer()
	e.run(pagerank.Params{Damping: pagerank.DefaultDamping, Mode: pagerank.FixedIterations, Iterations: b.N}, nil)
	b.StopTimer()
	reportIterTimes(b, e.stamps, 1)
	if len(e.waited) > 1 {
		var total time.Duration
		for _, w := range e.waited {
			total += w.d
		}
		b.ReportMetric(float64(total.Nanoseconds())/float64(len(e.waited))/float64(b.N), "barrier-ns/iter")
	}
	e.stamps, e.waited = nil, nil
}

// reportIterTimes reports the median and minimum difference between
// consecutive stamps, divided by itersPerStamp, in ns per iteration.
func reportIterTimes(b *testing.B, stamps []time.Time, itersPerStamp int) {
	if len(stamps) < 2 {
		return
	}
	d := make([]float64, len(stamps)-1)
	for i := range d {
		d[i] = float64(stamps[i+1].Sub(stamps[i]).Nanoseconds()) / float64(itersPerStamp)
	}
	slices.Sort(d)
	b.ReportMetric(d[len(d)/2], "p50-ns/iter")
	b.ReportMetric(d[0], "min-ns/iter")
}

func BenchmarkRun50(b *testing.B) {
	impls := []pagerank.Implementation{Oracle(), Multicore(pagerank.Float64, 0), Multicore(pagerank.Float32, 0)}
	p := pagerank.Fixed(pagerank.TimingIterations)
	for gi, load := range benchGraphs(b) {
		b.Run(benchGraphNames[gi], func(b *testing.B) {
			g := load(b)
			for _, impl := range impls {
				b.Run(impl.Name(), func(b *testing.B) {
					stamps := make([]time.Time, 0, b.N+1)
					b.ReportAllocs()
					b.ResetTimer()
					stamps = append(stamps, time.Now())
					for range b.N {
						if _, err := impl.Run(g, p); err != nil {
							b.Fatal(err)
						}
						stamps = append(stamps, time.Now())
					}
					b.StopTimer()
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(p.Iterations), "ns/iter")
					reportIterTimes(b, stamps, p.Iterations)
				})
			}
		})
	}
}

// BenchmarkSpinBarrier measures one barrier crossing with GOMAXPROCS
// parties, the synchronisation T1 pays once per iteration.
func BenchmarkSpinBarrier(b *testing.B) {
	parties := runtime.GOMAXPROCS(0)
	bar := newSpinBarrier(parties)
	var wg sync.WaitGroup
	for p := 1; p < parties; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range b.N {
				bar.wait()
			}
		}()
	}
	b.ResetTimer()
	for range b.N {
		bar.wait()
	}
	wg.Wait()
}

// BenchmarkGatherBound separates the cost of the random gather from the
// rest of an iteration: "csr" is T1 float32 on the graph as it is; "local"
// runs the same code on a copy whose every in-edge column index is replaced
// by the row's own node, so each gather hits the cache line the row's
// streams already touch (same instruction count, same row lengths and
// loop trips, no random access). If "local" is about as fast as "csr", the
// gather's memory latency is not what bounds an iteration.
func BenchmarkGatherBound(b *testing.B) {
	for gi, load := range benchGraphs(b) {
		b.Run(benchGraphNames[gi], func(b *testing.B) {
			g := load(b)
			local := *g
			local.InColIdx = make([]int32, len(g.InColIdx))
			for v := 0; v < g.N; v++ {
				for j := g.InRowPtr[v]; j < g.InRowPtr[v+1]; j++ {
					local.InColIdx[j] = int32(v)
				}
			}
			for _, w := range []int{1, 0} {
				name := fmt.Sprintf("w%d", workersOr(w))
				b.Run("csr-f32-"+name, func(b *testing.B) { benchEngine(b, newEngine[float32](g, pagerank.DefaultDamping, workersOr(w))) })
				b.Run("local-f32-"+name, func(b *testing.B) { benchEngine(b, newEngine[float32](&local, pagerank.DefaultDamping, workersOr(w))) })
			}
		})
	}
}

// BenchmarkRowOrder is the evidence for T1's in-degree row order, measured
// on the oracle (which has no such optimisation): "natural" is the graph as
// loaded, "by-indegree" the same graph with its nodes renumbered in order
// of in-degree (stable), so rows of equal length follow each other. Same
// rows, same edges, same arithmetic; only the SpMV inner loop's exit branch
// becomes predictable.
func BenchmarkRowOrder(b *testing.B) {
	for gi, load := range benchGraphs(b) {
		b.Run(benchGraphNames[gi], func(b *testing.B) {
			g := load(b)
			for _, variant := range []struct {
				name string
				g    *pagerank.Graph
			}{{"natural", g}, {"by-indegree", relabelByInDegree(b, g)}} {
				b.Run("t0-"+variant.name, func(b *testing.B) {
					benchOracle(b, variant.g)
				})
			}
		})
	}
}

// relabelByInDegree returns g with node v renamed to its position in a
// stable sort of the nodes by in-degree.
func relabelByInDegree(b *testing.B, g *pagerank.Graph) *pagerank.Graph {
	order := make([]int32, g.N)
	for v := range order {
		order[v] = int32(v)
	}
	slices.SortStableFunc(order, func(u, v int32) int { return g.InDegree(int(u)) - g.InDegree(int(v)) })
	label := make([]int32, g.N)
	for i, v := range order {
		label[v] = int32(i)
	}
	src := make([]int32, 0, g.NNZ)
	dst := make([]int32, 0, g.NNZ)
	for u := 0; u < g.N; u++ {
		for _, v := range g.OutColIdx[g.OutRowPtr[u]:g.OutRowPtr[u+1]] {
			src = append(src, label[u])
			dst = append(dst, label[v])
		}
	}
	r, err := pagerank.NewGraph(g.Name+"-by-indegree", g.N, src, dst, nil)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkSequentialRead is the machine's reference point for the bytes
// T1 streams: summing a 64 MiB []int32 (four accumulators) with 1 and with
// GOMAXPROCS goroutines, each a contiguous share. B/s is the read rate.
func BenchmarkSequentialRead(b *testing.B) {
	data := make([]int32, 16<<20)
	for i := range data {
		data[i] = int32(i)
	}
	sumRange := func(x []int32) int32 {
		var a0, a1, a2, a3 int32
		for i := 0; i+4 <= len(x); i += 4 {
			a0 += x[i]
			a1 += x[i+1]
			a2 += x[i+2]
			a3 += x[i+3]
		}
		return a0 + a1 + a2 + a3
	}
	for _, parties := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("w%d", parties), func(b *testing.B) {
			sums := make([]paddedSum[float64], parties)
			b.SetBytes(int64(len(data) * 4))
			for range b.N {
				var wg sync.WaitGroup
				for p := 0; p < parties; p++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						share := data[p*len(data)/parties : (p+1)*len(data)/parties]
						sums[p].v += float64(sumRange(share))
					}()
				}
				wg.Wait()
			}
		})
	}
}

// engineVariants are the engines the options benchmarks compare: without
// either of T1's choices, each alone, both (Multicore's engine), then both
// without the contrib pull.
var engineVariants = []struct {
	name string
	opt  engineOptions
}{
	{"original-static", engineOptions{}},
	{"original-steal", engineOptions{steal: true}},
	{"outdeg-static", engineOptions{outDegreeOrder: true}},
	{"outdeg-steal", engineOptions{outDegreeOrder: true, steal: true}},
	{"outdeg-steal-nopull", engineOptions{outDegreeOrder: true, steal: true, pull: pullNever}},
}

// BenchmarkEngineOptions measures what each of T1's two choices is worth
// (engineOptions): "original-static" is the engine without either (blocks
// over the original ids, each worker its own range), "original-steal" adds
// work stealing, "outdeg-static" the out-degree order, "outdeg-steal" both
// (Multicore's engine). float32 and float64, GOMAXPROCS workers.
func BenchmarkEngineOptions(b *testing.B) {
	variants := engineVariants[:4]
	for gi, load := range benchGraphs(b) {
		b.Run(benchGraphNames[gi], func(b *testing.B) {
			g := load(b)
			w := runtime.GOMAXPROCS(0)
			for _, v := range variants {
				b.Run("f32-"+v.name, func(b *testing.B) {
					benchEngine(b, newEngineWith[float32](g, pagerank.DefaultDamping, w, v.opt))
				})
				b.Run("f64-"+v.name, func(b *testing.B) {
					benchEngine(b, newEngineWith[float64](g, pagerank.DefaultDamping, w, v.opt))
				})
			}
		})
	}
}

// BenchmarkEngineOptionsInterleaved is BenchmarkEngineOptions for a shared
// machine, plus outdeg-steal without pullShared: all ten engines (5
// variants x 2 precisions) are built once and
// run in turn, 5 iterations each, round after round (one op = one round),
// so that a change in the load from other jobs hits every variant alike.
// It reports each variant's median single-iteration time over all rounds
// (VARIANT-p50-ns/iter), and the ratio of each variant's median to
// original-static's (VARIANT-vs-original-static).
func BenchmarkEngineOptionsInterleaved(b *testing.B) {
	variants := engineVariants
	const perTurn = 5
	type runner struct {
		name string
		run  func() []time.Time // perTurn iterations, perTurn+1 stamps
	}
	for gi, load := range benchGraphs(b) {
		b.Run(benchGraphNames[gi], func(b *testing.B) {
			g := load(b)
			w := runtime.GOMAXPROCS(0)
			var rs []runner
			for _, v := range variants {
				e32 := newEngineWith[float32](g, pagerank.DefaultDamping, w, v.opt)
				e64 := newEngineWith[float64](g, pagerank.DefaultDamping, w, v.opt)
				rs = append(rs, runner{"f32-" + v.name, stampedRun(e32, perTurn)}, runner{"f64-" + v.name, stampedRun(e64, perTurn)})
			}
			for _, r := range rs {
				r.run() // warm
			}
			times := make([][]float64, len(rs))
			b.ResetTimer()
			for range b.N {
				for i, r := range rs {
					st := r.run()
					for k := 1; k < len(st); k++ {
						times[i] = append(times[i], float64(st[k].Sub(st[k-1]).Nanoseconds()))
					}
				}
			}
			b.StopTimer()
			med := make([]float64, len(rs))
			for i, r := range rs {
				slices.Sort(times[i])
				med[i] = times[i][len(times[i])/2]
				b.ReportMetric(med[i], r.name+"-p50-ns/iter")
			}
			for i, r := range rs {
				base := med[i%2] // original-static of the same precision
				b.ReportMetric(med[i]/base, r.name+"-vs-original-static")
			}
		})
	}
}

// stampedRun returns a function that runs e for k fixed iterations and
// returns worker 0's stamps (after the setup and after every iteration).
func stampedRun[T float](e *engine[T], k int) func() []time.Time {
	p := pagerank.Params{Damping: pagerank.DefaultDamping, Mode: pagerank.FixedIterations, Iterations: k}
	return func() []time.Time {
		e.stamps = make([]time.Time, 0, k+1)
		e.waited = make([]paddedDuration, len(e.owned)-1)
		e.run(p, nil)
		st := e.stamps
		e.stamps, e.waited = nil, nil
		return st
	}
}
