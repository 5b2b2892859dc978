package pagerank

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/prlab/prlab/internal/fixture"
)

// BenchmarkApplyBatch times ApplyBatch against the rebuild it replaces
// (NewGraphParallel on the updated graph's edge list) on R-MAT 2^18 for
// random batches of 0.01 % to 10 % of the edges, and on the AAN's last
// yearly batch (2011 -> 2012).
func BenchmarkApplyBatch(b *testing.B) {
	g, err := RMAT(Graph500RMAT(18, 1))
	if err != nil {
		b.Fatal(err)
	}
	for _, kind := range []string{BatchInsert, BatchMixed} {
		for _, f := range []float64{0.0001, 0.001, 0.01, 0.1} {
			batch, err := RandomBatch(g, kind, f, 1)
			if err != nil {
				b.Fatal(err)
			}
			after, _, err := ApplyBatch(g, batch, 0)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("rmat18/%s/%s/update", kind, FractionText(f)), func(b *testing.B) {
				for b.Loop() {
					ApplyBatch(g, batch, 0)
				}
			})
			if kind == BatchInsert {
				src, dst := after.Edges()
				b.Run(fmt.Sprintf("rmat18/%s/%s/rebuild", kind, FractionText(f)), func(b *testing.B) {
					for b.Loop() {
						NewGraphParallel(g.Name, after.N, src, dst, nil, 0)
					}
				})
			}
		}
	}
	path := fixture.NeedBundled(b, fixture.Edges)
	y, err := LoadYearlyGraph(context.Background(), "aan", path, filepath.Join(filepath.Dir(path), "papers.tsv.gz"))
	if err != nil {
		b.Fatal(err)
	}
	g11, err := y.Snapshot(2011, 0)
	if err != nil {
		b.Fatal(err)
	}
	batch := y.Batch(2011, 2012)
	b.Run("aan/2012/update", func(b *testing.B) {
		for b.Loop() {
			ApplyBatch(g11, batch, 0)
		}
	})
	b.Run("aan/2012/rebuild", func(b *testing.B) {
		for b.Loop() {
			y.Snapshot(2012, 0)
		}
	})
}
