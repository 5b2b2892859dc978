package main

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
	"github.com/prlab/prlab/pkg/study"
)

// cmdExport is `prlab export`: one graph (a file, or a generated R-MAT or
// 2-D grid graph of the scale study) written for other tools, e.g. GAP's
// converter (`converter -f FILE.el -b FILE.sg`).
//
//	prlab export (--graph PATH [--in-format F] [--undirected] [--columns a,b] | --rmat SCALE [--seed S] | --grid SCALE)
//	             --format el|snap|mtx|csv --out FILE[.gz]
//
// The edges are written as generated or read (self-loops and duplicates
// kept), so reading the file back gives the same load line. FILE is written
// whole or not at all (a temporary file in its folder, renamed); it must not
// be the input file.
func cmdExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("export", stderr)
	var gf graphFlags
	fs.Var(&gf.paths, "graph", "a graph file to read (read-only; any format prlab report --graph reads, optionally .gz)")
	fs.StringVar(&gf.format, "in-format", "", "format of --graph: "+formatNames()+" (default: from the file name and first lines)")
	fs.BoolVar(&gf.undirected, "undirected", false, "store each edge of --graph both ways")
	fs.Var(&gf.columns, "columns", "csv/tsv --graph: the source and target column names")
	rmat := fs.Int("rmat", 0, fmt.Sprintf("write the scale study's Graph500 R-MAT graph of 2^SCALE nodes, edge factor 16, in [1, %d]", study.MaxScaleLimit))
	grid := fs.Int("grid", 0, fmt.Sprintf("write the scale study's 2-D grid of about 2^SCALE nodes, in [1, %d]", study.MaxScaleLimit))
	seed := fs.Uint64("seed", study.DefaultScaleSeed, "R-MAT seed (the scale study's default)")
	format := fs.String("format", "", "output format: el (GAP), snap, mtx (MatrixMarket) or csv")
	out := fs.String("out", "", "the file to write (FILE.gz: gzip-compressed)")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	sources := 0
	for _, set := range []bool{len(gf.paths) > 0, *rmat != 0, *grid != 0} {
		if set {
			sources++
		}
	}
	if sources != 1 || len(gf.paths) > 1 {
		return usageError{"export: give exactly one of --graph PATH, --rmat SCALE, --grid SCALE"}
	}
	outFormat, err := pagerank.ParseFormat(*format)
	if err != nil || outFormat == "" || !contains(pagerank.WriteFormats, outFormat) {
		return usageError{fmt.Sprintf("export: --format %q: want el, snap, mtx or csv", *format)}
	}
	if *out == "" {
		return usageError{"export: --out FILE is required"}
	}
	for _, s := range []struct {
		name string
		v    int
	}{{"--rmat", *rmat}, {"--grid", *grid}} {
		if s.v != 0 && (s.v < 1 || s.v > study.MaxScaleLimit) {
			return usageError{fmt.Sprintf("export: %s %d out of range: must be in [1, %d]", s.name, s.v, study.MaxScaleLimit)}
		}
	}
	if *seed == 0 {
		return usageError{"export: --seed 0 is reserved for the default; pick a seed >= 1"}
	}
	if err := exportTargetAllowed(*out, gf.paths); err != nil {
		return err
	}
	// Checked before any graph is read or generated: --out is a file name,
	// in a folder that exists or can be made (writeEdgesAtomic makes it).
	if st, err := os.Stat(*out); err == nil && st.IsDir() {
		return usageError{fmt.Sprintf("export: --out %s is a directory: give a file name, e.g. %s", *out, filepath.Join(*out, "graph.el"))}
	}
	if err := checkWritable(filepath.Dir(*out)); err != nil {
		return usageError{"export: " + err.Error()}
	}
	load, err := gf.options()
	if err != nil {
		return err
	}
	var el *pagerank.EdgeList
	title := ""
	switch {
	case len(gf.paths) == 1:
		in := gf.paths[0]
		if same(in, *out) {
			return usageError{fmt.Sprintf("export: --out %s is the input file: prlab never writes a graph it reads", *out)}
		}
		el, _, err = pagerank.ReadGraphFile(in, load)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		title = graphName(in)
	case *rmat != 0:
		p := pagerank.Graph500RMAT(*rmat, *seed)
		n, src, dst, err := pagerank.RMATEdges(p)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		el, title = &pagerank.EdgeList{N: n, Src: src, Dst: dst}, fmt.Sprintf("rmat%d (Graph500 R-MAT, edge factor %d, seed %d)", *rmat, p.EdgeFactor, *seed)
	default:
		side := study.GridSide(*grid)
		n, src, dst, err := pagerank.GridEdges(side, 0)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		el, title = &pagerank.EdgeList{N: n, Src: src, Dst: dst}, fmt.Sprintf("grid%d (2-D grid, %d x %d)", side, side, side)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("export: interrupted (nothing was written)")
	}
	if err := writeEdgesAtomic(*out, el, outFormat, title); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d nodes, %d edge lines (%s)\n", *out, el.Nodes(), len(el.Src), outFormat)
	return nil
}

func contains(fs []pagerank.Format, f pagerank.Format) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

// same reports whether a and b name the same existing file.
func same(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// writeEdgesAtomic writes el to path through report.WriteFileAtomicFunc
// (a temporary file in path's folder, made if missing, fsynced, renamed into place when
// complete), gzip-compressed when path ends in .gz.
func writeEdgesAtomic(path string, el *pagerank.EdgeList, f pagerank.Format, title string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return report.WriteFileAtomicFunc(path, func(w io.Writer) error {
		if !strings.HasSuffix(path, ".gz") {
			return pagerank.WriteEdges(w, el, f, title)
		}
		zw := gzip.NewWriter(w)
		if err := pagerank.WriteEdges(zw, el, f, title); err != nil {
			return err
		}
		return zw.Close()
	})
}

// exportTargetAllowed refuses an --out that would write into a dataset:
// a folder holding a SHA256SUMS file (the bundled data/aan, or any
// checksummed dataset a user keeps), or the folder of an input graph
// (prlab never writes into a user's graph folder). Both are usage errors
// naming the folder.
func exportTargetAllowed(out string, inputs []string) error {
	dir, err := filepath.Abs(filepath.Dir(out))
	if err != nil {
		return usageError{fmt.Sprintf("export: --out %s: %v", out, err)}
	}
	if _, err := os.Stat(filepath.Join(dir, "SHA256SUMS")); err == nil {
		return usageError{fmt.Sprintf("export: --out %s is in a checksummed dataset folder (%s has a SHA256SUMS): prlab never writes into a dataset; write the export elsewhere", out, dir)}
	}
	for _, in := range inputs {
		if same(in, out) {
			continue // the input file itself: the caller's own, more exact message
		}
		if d, err := filepath.Abs(filepath.Dir(in)); err == nil && d == dir && in != "-" && in != "/dev/stdin" {
			return usageError{fmt.Sprintf("export: --out %s is in the folder of the input graph %s: prlab never writes into a user's graph folder; write the export elsewhere", out, in)}
		}
	}
	return nil
}
