package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/report"
)

// TestIncrementalCommand runs `prlab incremental` on a small R-MAT graph and
// a graph file (no by-year workload) and reads its three files back.
func TestIncrementalCommand(t *testing.T) {
	dir := t.TempDir()
	graph := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(graph, []byte(testEdges), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "inc")
	stdout, stderr, err := runCLI(t, "incremental", "--out", out, "--by-year=false", "--rmat", "9", "--graph", graph,
		"--batches", "0.001,10%", "--kinds", "insert,mixed", "--runs", "1", "--warmups", "0", "--impl", "t1-multicore-f32")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "incremental: 8 batches, 8 rows") {
		t.Errorf("stdout %q", stdout)
	}
	s, err := report.Read[report.IncrementalStudy](filepath.Join(out, report.IncrementalJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "inc" || len(s.Workloads) != 2 || s.Workloads[1].Source != graph || !s.Complete {
		t.Errorf("name %q, workloads %+v, complete %v", s.Name, s.Workloads, s.Complete)
	}
	if rows, err := report.ReadTable[report.IncrementalRow](filepath.Join(out, report.IncrementalRowsCSVFile)); err != nil || len(rows) != len(s.Rows) {
		t.Fatalf("%s: %d rows, want %d: %v", report.IncrementalRowsCSVFile, len(rows), len(s.Rows), err)
	}
	page, err := os.ReadFile(filepath.Join(out, report.HTMLFile))
	if err != nil || !strings.Contains(string(page), report.ChartIncrementalSpeedup) {
		t.Fatalf("index.html without the speed-up chart: %v", err)
	}
	// --render redraws the page from the JSON alone.
	if err := os.Remove(filepath.Join(out, report.HTMLFile)); err != nil {
		t.Fatal(err)
	}
	if stdout, _, err := runCLI(t, "incremental", "--render", filepath.Join(out, report.IncrementalJSONFile)); err != nil || !strings.Contains(stdout, "rewrote") {
		t.Fatalf("--render: %v, %q", err, stdout)
	}
	if again, err := os.ReadFile(filepath.Join(out, report.HTMLFile)); err != nil || !strings.Contains(string(again), report.ChartIncrementalSpeedup) {
		t.Fatalf("--render wrote no page: %v", err)
	}
}

func TestIncrementalUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rmat", "x"}, `--rmat "x"`},
		{[]string{"--batches", "0"}, `--batches "0"`},
		{[]string{"--runs", "0"}, "--runs 0 out of range"},
		{[]string{"--seed", "0"}, "--seed 0"},
		{[]string{"--by-year=false", "--rmat", "none"}, "nothing to run"},
		{[]string{"--graph", "/nonexistent/g.txt"}, "/nonexistent/g.txt"},
		{[]string{"--graph", "x.txt", "--format", "nope"}, "--format"},
		{[]string{"--by-year=false", "--rmat", "8", "--kinds", "swap"}, `--kinds "swap": valid kinds are insert, delete, mixed`},
		// checked before the data folder: a missing one was the first error
		{[]string{"--data", "/nonexistent/aan", "--rmat", "8", "--kinds", "swap"}, `--kinds "swap"`},
	} {
		_, _, err := runCLI(t, append([]string{"incremental", "--out", t.TempDir()}, c.args...)...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want a usage error containing %q", c.args, err, c.want)
		}
	}
}
