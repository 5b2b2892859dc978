package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
)

// userGraphFile writes an R-MAT 2^scale graph into dir/name as a SNAP edge
// list ("src<TAB>dst" lines under a # comment) and returns its path.
func userGraphFile(t *testing.T, dir, name string, scale int) string {
	t.Helper()
	_, src, dst, err := pagerank.RMATEdges(pagerank.Graph500RMAT(scale, 11))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# a user's graph\n")
	for i := range src {
		fmt.Fprintf(&b, "%d\t%d\n", src[i], dst[i])
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A report of the user's own graph (--graph, --undirected) verifies on that
// file: every gate reproduced; the file moved is a clear error naming it and
// --graph, and --graph at the new place (checked by content) verifies; a
// changed file is "not the same data" (exit 2).
func TestVerifyReportOfAUserGraph(t *testing.T) {
	gdir := t.TempDir()
	g := userGraphFile(t, gdir, "snap.txt", 9)
	rep := filepath.Join(t.TempDir(), "r1")
	if _, stderr, err := runCLI(t, "report", "--graph", g, "--undirected", "--cases", "tiny,real", "--runs", "2",
		"--impl", "t1-multicore-f32", "--out", rep); err != nil {
		t.Fatalf("report --graph: %v\n%s", err, stderr)
	}
	stdout, stderr, err := runCLI(t, "verify", "--out", filepath.Join(t.TempDir(), "v"), rep)
	if err != nil || !strings.Contains(stdout, "Every correctness gate reproduced") {
		t.Fatalf("verify of a --graph report: %v\n%s\n%s", err, stdout, stderr)
	}
	run, err := report.Read[report.Run](filepath.Join(rep, report.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if !run.Graph.Undirected || run.Graph.Path != g {
		t.Errorf("graph block: path %q undirected %v, want %q true", run.Graph.Path, run.Graph.Undirected, g)
	}

	moved := filepath.Join(t.TempDir(), "elsewhere.txt")
	if err := os.Rename(g, moved); err != nil {
		t.Fatal(err)
	}
	_, _, err = runCLI(t, "verify", "--out", filepath.Join(t.TempDir(), "v2"), rep)
	if cliStatus(err) != 2 || !strings.Contains(err.Error(), g) || !strings.Contains(err.Error(), "--graph PATH") {
		t.Errorf("verify with the graph moved: %v, want exit 2 naming %s and --graph", err, g)
	}
	stdout, stderr, err = runCLI(t, "verify", "--graph", moved, "--out", filepath.Join(t.TempDir(), "v3"), rep)
	if err != nil || !strings.Contains(stdout, "Every correctness gate reproduced") {
		t.Fatalf("verify --graph at the new place: %v\n%s\n%s", err, stdout, stderr)
	}

	b, _ := os.ReadFile(moved)
	os.WriteFile(g, append(b, "0\t1\n"...), 0o644) // back in place, one edge more
	_, _, err = runCLI(t, "verify", "--out", filepath.Join(t.TempDir(), "v4"), rep)
	if cliStatus(err) != 2 || !strings.Contains(err.Error(), "not the same data") {
		t.Errorf("verify of a changed graph file: %v, want exit 2, not the same data", err)
	}
}

// Two reports of the same content under two file names (one gzip-compressed)
// compare: the data are matched by content SHA-256, not by name.
func TestCompareSameContentUnderTwoNames(t *testing.T) {
	gdir := t.TempDir()
	a := userGraphFile(t, gdir, "snap.txt", 8)
	b := userGraphFile(t, gdir, "snapz.txt", 8)
	gzipInPlace(t, b)
	var reps []string
	for i, p := range []string{a, b + ".gz"} {
		out := filepath.Join(t.TempDir(), fmt.Sprintf("r%d", i))
		if _, stderr, err := runCLI(t, "report", "--graph", p, "--name", "g", "--cases", "real", "--runs", "2",
			"--impl", "t1-multicore-f32", "--out", out); err != nil {
			t.Fatalf("report --graph %s: %v\n%s", p, err, stderr)
		}
		reps = append(reps, out)
	}
	stdout, _, err := runCLI(t, "compare", reps[0], reps[1])
	if err != nil || !strings.Contains(stdout, "Every correctness gate reproduced") {
		t.Fatalf("compare of one content under two names: %v\n%s", err, stdout)
	}
}

// A scale study with a --graph file verifies: the replay reruns the file's
// rows too (none is "no row").
func TestVerifyScaleWithAGraphFile(t *testing.T) {
	g := userGraphFile(t, t.TempDir(), "cites.txt", 9)
	dir := filepath.Join(t.TempDir(), "sc1")
	if _, stderr, err := runCLI(t, "scale", "--out", dir, "--min-scale", "9", "--max-scale", "9", "--grid=false",
		"--budget", "3m", "--impl", "t1-multicore-f32", "--copy-mib", "8", "--graph", g); err != nil {
		t.Fatalf("scale --graph: %v\n%s", err, stderr)
	}
	out := filepath.Join(t.TempDir(), "v")
	stdout, stderr, err := runCLI(t, "verify", "--out", out, dir)
	if err != nil || !strings.Contains(stdout, "Every correctness gate reproduced") {
		t.Fatalf("verify of a scale study with --graph: %v\n%s\n%s", err, stdout, stderr)
	}
	v, err := report.ReadVerification(filepath.Join(out, report.VerifyJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var cites int
	for _, tc := range v.Timing {
		if tc.Case == "cites" {
			cites++
		}
	}
	if cites != 3 { // the selection and both references
		t.Errorf("%d timed rows of the graph file cites, want 3", cites)
	}
}
