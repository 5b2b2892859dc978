package reference

import (
	"compress/gzip"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/prlab/prlab/internal/fixture"
	"github.com/prlab/prlab/pkg/pagerank"
)

// The bundled graph written as SNAP (.txt and .snap.txt.gz), MatrixMarket,
// GAP .el and CSV reads back to the same graph: the same load line, the same
// CSRs, bitwise the same oracle ranks (100 fixed iterations) and the same
// top 20; the CSV file, which keeps the string ids, names the same papers.
func TestBundledGraphSameInEveryFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	src := fixture.NeedBundled(t, fixture.Edges)
	f, err := pagerank.OpenInput(src)
	if err != nil {
		t.Fatal(err)
	}
	el, err := pagerank.ParseEdgeList(f, src)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	want, err := el.Build("aan", 1)
	if err != nil {
		t.Fatal(err)
	}
	const line = "loaded 16589 nodes and 94931 edges (dropped 42 self-loops, 0 duplicates); 1525 dangling"
	if want.Summary() != line {
		t.Fatalf("bundled graph: %s, want %s", want.Summary(), line)
	}
	p := pagerank.Fixed(100)
	ref, err := Oracle().Run(want, p)
	if err != nil {
		t.Fatal(err)
	}
	top := pagerank.TopK(ref.Ranks, 20)

	dir := t.TempDir()
	files := []struct {
		name   string
		format pagerank.Format
	}{
		{"aan-snap.txt", pagerank.FormatSNAP},
		{"aan.snap.txt.gz", pagerank.FormatSNAP},
		{"aan.mtx", pagerank.FormatMTX},
		{"aan.el", pagerank.FormatEL},
		{"aan.csv", pagerank.FormatCSV},
	}
	for _, file := range files {
		path := filepath.Join(dir, file.name)
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		var zw *gzip.Writer
		var w io.Writer = out
		if filepath.Ext(path) == ".gz" {
			zw = gzip.NewWriter(out)
			w = zw
		}
		if err := pagerank.WriteEdges(w, el, file.format, "aan"); err != nil {
			t.Fatal(err)
		}
		if zw != nil {
			zw.Close()
		}
		out.Close()

		g, info, err := pagerank.LoadGraph(path, "aan", pagerank.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", file.name, err)
		}
		if info.Format != file.format || g.Summary() != line {
			t.Errorf("%s: read as %s: %s", file.name, info.Format, g.Summary())
		}
		if !slices.Equal(g.OutRowPtr, want.OutRowPtr) || !slices.Equal(g.OutColIdx, want.OutColIdx) ||
			!slices.Equal(g.InRowPtr, want.InRowPtr) || !slices.Equal(g.InColIdx, want.InColIdx) {
			t.Errorf("%s: CSR differs from the bundled graph's", file.name)
		}
		res, err := Oracle().Run(g, p)
		if err != nil {
			t.Fatal(err)
		}
		for v := range res.Ranks {
			if math.Float64bits(res.Ranks[v]) != math.Float64bits(ref.Ranks[v]) {
				t.Fatalf("%s: oracle rank of node %d is %v, bundled graph's %v (not bitwise equal)", file.name, v, res.Ranks[v], ref.Ranks[v])
			}
		}
		if got := pagerank.TopK(res.Ranks, 20); !slices.Equal(got, top) {
			t.Errorf("%s: top 20 %v, want %v", file.name, got, top)
		}
		if file.format == pagerank.FormatCSV {
			for _, v := range top {
				if g.ID(v) != want.ID(v) {
					t.Errorf("csv: node %d is %q, want %q", v, g.ID(v), want.ID(v))
				}
			}
		}
	}
	if want.ID(top[0]) != "A88-1019" {
		t.Errorf("top paper %s, want A88-1019 (Church 1988)", want.ID(top[0]))
	}
}
