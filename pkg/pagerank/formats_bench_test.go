package pagerank

// Benchmarks of LoadGraph: parse + build (out-edge CSR and its transpose)
// per format, on a Graph500 R-MAT graph of 2^22 edge lines (scale 18, edge
// factor 16) written into a temporary folder by the benchmark itself.
// PRLAB_BENCH_EDGES_LOG2=24 uses 2^24 edge lines (scale 20) instead.
//
//	go test ./pkg/pagerank -run '^$' -bench BenchmarkLoadGraph -benchtime 3x
//
// Metrics: edges/s (edge lines read per second, parse + build, wall);
// peak-RSS-B/edge, the process's peak resident set during one load (Linux
// VmHWM, reset before the load through /proc/self/clear_refs) divided by
// the edge lines (0 where the kernel does not support the reset);
// cpu-ns/edge, the process's user + system CPU time per edge line (all
// cores together: robust to other processes sharing the machine, and wall
// time ~ cpu-ns/edge / cores on an idle host when the work spreads well).
// BENCHMARKS.md in this folder has the figures and the machine.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchGraphFiles writes the benchmark graph in every format into a
// temporary folder of b.
func benchGraphFiles(b *testing.B) (string, int) {
	b.Helper()
	var benchFiles struct {
		dir   string
		edges int
		err   error
	}
	func() {
		log2 := 22
		if s := os.Getenv("PRLAB_BENCH_EDGES_LOG2"); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v < 10 || v > 28 {
				benchFiles.err = fmt.Errorf("PRLAB_BENCH_EDGES_LOG2=%q: want an integer in [10, 28]", s)
				return
			}
			log2 = v
		}
		dir := b.TempDir()
		benchFiles.dir = dir
		n, src, dst, err := RMATEdges(Graph500RMAT(log2-4, 1)) // edge factor 16: 2^log2 edge lines
		if err != nil {
			benchFiles.err = err
			return
		}
		el := &EdgeList{N: n, Src: src, Dst: dst}
		benchFiles.edges = len(src)
		for _, f := range []struct {
			name   string
			format Format
		}{{"g.el", FormatEL}, {"g.el.gz", FormatEL}, {"g.snap.txt", FormatSNAP}, {"g.mtx", FormatMTX}, {"g.csv", FormatCSV}} {
			if benchFiles.err = writeBenchFile(filepath.Join(dir, f.name), el, f.format); benchFiles.err != nil {
				return
			}
		}
		// The AAN form " , " and TSV with string ids: the same lines, ids as text.
		for _, f := range []struct{ name, sep, header string }{{"g.txt", " , ", ""}, {"g.tsv", "\t", "source\ttarget\n"}} {
			var buf bytes.Buffer
			buf.WriteString(f.header)
			for i := range src {
				buf.WriteString("n")
				buf.WriteString(strconv.Itoa(int(src[i])))
				buf.WriteString(f.sep)
				buf.WriteString("n")
				buf.WriteString(strconv.Itoa(int(dst[i])))
				buf.WriteByte('\n')
			}
			if benchFiles.err = os.WriteFile(filepath.Join(dir, f.name), buf.Bytes(), 0o644); benchFiles.err != nil {
				return
			}
		}
	}()
	if benchFiles.err != nil {
		b.Fatal(benchFiles.err)
	}
	return benchFiles.dir, benchFiles.edges
}

func writeBenchFile(path string, el *EdgeList, f Format) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	defer out.Close()
	w := bufio.NewWriterSize(out, 1<<20)
	if strings.HasSuffix(path, ".gz") {
		zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		if err := WriteEdges(zw, el, f, "bench"); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
	} else if err := WriteEdges(w, el, f, "bench"); err != nil {
		return err
	}
	return w.Flush()
}

// peakRSS returns the process's peak resident set (VmHWM) in bytes, 0 when unknown.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// cpuTime is the user + system CPU time of the process so far (getrusage):
// unlike the wall clock, it does not grow when other processes take the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resetPeakRSS sets VmHWM to the current RSS (Linux 4.0+); false when it cannot.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// BenchmarkReadEdges is the parse alone (ReadGraphFile: no CSR build), to
// split BenchmarkLoadGraph's time.
func BenchmarkReadEdges(b *testing.B) {
	dir, edges := benchGraphFiles(b)
	for _, name := range []string{"g.el", "g.txt"} {
		b.Run(strings.TrimPrefix(name, "g."), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				el, _, err := ReadGraphFile(filepath.Join(dir, name), LoadOptions{})
				if err != nil || len(el.Src) != edges {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(edges)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
		})
	}
}

func BenchmarkLoadGraph(b *testing.B) {
	dir, edges := benchGraphFiles(b)
	for _, name := range []string{"g.el", "g.el.gz", "g.snap.txt", "g.mtx", "g.csv", "g.tsv", "g.txt"} {
		b.Run(strings.TrimPrefix(name, "g."), func(b *testing.B) {
			path := filepath.Join(dir, name)
			var peak int64
			var cpu time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				runtime.GC()
				debug.FreeOSMemory()
				reset := resetPeakRSS()
				c0 := cpuTime()
				b.StartTimer()
				g, _, err := LoadGraph(path, "bench", LoadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				cpu += cpuTime() - c0
				if reset {
					peak = max(peak, peakRSS())
				}
				if g.NNZ+g.SelfLoops+g.Duplicates != edges {
					b.Fatalf("%d edges built, %d lines", g.NNZ+g.SelfLoops+g.Duplicates, edges)
				}
				g = nil
				b.StartTimer()
			}
			b.ReportMetric(float64(edges)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
			b.ReportMetric(float64(peak)/float64(edges), "peak-RSS-B/edge")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(edges)/float64(b.N), "cpu-ns/edge")
		})
	}
}
