package reference

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// BenchmarkWarmRecompute times the recompute after a batch: on the AAN
// snapshot of 2012 from the converged ranks of 2011 (new papers 1/n,
// rescaled to sum 1; warm) and from 1/n (cold), and on R-MAT 2^18 after a
// 0.1 % insertion batch from the converged ranks before it, for T1 in both
// precisions at the incremental study's tolerances (1e-12 float64, 1e-7
// float32). The iterations of each run are reported as the metric it/op.
func BenchmarkWarmRecompute(b *testing.B) {
	type snap struct {
		name          string
		before, after *pagerank.Graph
	}
	var snaps []snap
	path := aanPath()
	y, err := pagerank.LoadYearlyGraph(context.Background(), "aan", path, filepath.Join(filepath.Dir(path), "papers.tsv.gz"))
	if err != nil {
		b.Fatal(err)
	}
	g11, _ := y.Snapshot(2011, 0)
	g12, _ := y.Snapshot(2012, 0)
	snaps = append(snaps, snap{"aan-2012", g11, g12})
	r, err := pagerank.RMAT(pagerank.Graph500RMAT(18, 1))
	if err != nil {
		b.Fatal(err)
	}
	batch, _ := pagerank.RandomBatch(r, pagerank.BatchInsert, 0.001, 1)
	r2, _, err := pagerank.ApplyBatch(r, batch, 0)
	if err != nil {
		b.Fatal(err)
	}
	snaps = append(snaps, snap{"rmat18-insert-0.1%", r, r2})
	for _, s := range snaps {
		for _, impl := range []pagerank.Implementation{Multicore(pagerank.Float64, 0), Multicore(pagerank.Float32, 0)} {
			tol := 1e-12
			if impl.Precision() == pagerank.Float32 {
				tol = 1e-7
			}
			p := pagerank.Converge(tol, 1000)
			ws := impl.(pagerank.WarmStarter)
			prev, err := impl.Run(s.before, p)
			if err != nil {
				b.Fatal(err)
			}
			start := make([]float64, s.after.N)
			copy(start, prev.Ranks)
			sum := 0.0
			for i := range start {
				if i >= s.before.N {
					start[i] = 1 / float64(s.after.N)
				}
				sum += start[i]
			}
			for i := range start {
				start[i] /= sum
			}
			for _, side := range []struct {
				name  string
				start []float64
			}{{"warm", start}, {"cold", nil}} {
				b.Run(s.name+"/"+impl.Name()+"/"+side.name, func(b *testing.B) {
					it := 0
					var last *pagerank.Result
					for b.Loop() {
						res, err := ws.RunFrom(s.after, p, side.start)
						if err != nil || !res.Converged {
							b.Fatalf("%v, converged %v", err, res != nil && res.Converged)
						}
						it, last = res.Iterations, res
					}
					b.ReportMetric(float64(it), "it/op")
					if side.start != nil {
						// Meerkat's affected vertices, measured: the share of nodes
						// whose rank moved by more than 1e-4 of itself from the warm
						// start to the converged ranks. A frontier that skips the
						// others pays only when this share is small.
						moved := 0
						for v, x := range last.Ranks {
							if d := x - start[v]; d > 1e-4*start[v] || -d > 1e-4*start[v] {
								moved++
							}
						}
						b.ReportMetric(float64(moved)/float64(s.after.N), "moved/n")
					}
				})
			}
		}
	}
}
