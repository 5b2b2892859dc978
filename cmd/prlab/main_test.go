package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/internal/fixture"
	"github.com/prlab/prlab/pkg/cudabind"
	"github.com/prlab/prlab/pkg/report"
)

const (
	testEdges  = "# citing , cited\nA , B\nA , C\nB , C\nC , A\nD , C\nD , D\nE , C\n"
	testPapers = "id\tyear\ttitle\ttitle_source\tin_citation_graph\nC\t1999\tThe cited one\taan\t1\nA\t2001\tPaper A\taan\t1\n"
)

func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var o, e bytes.Buffer
	err = run(context.Background(), args, &o, &e)
	return o.String(), e.String(), err
}

// A data folder whose file does not match its SHA256SUMS (a user who edited
// acl.txt) is an error naming the file and both checksums; no file in the
// folder is touched and none is added (prlab used to copy the mirror's files
// over it).
func TestReportNeverRepairsData(t *testing.T) {
	data := writeData(t, testEdges, testPapers)
	edited := "A , B\nB , A\n"
	if err := os.WriteFile(filepath.Join(data, "acl.txt"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeHashes(t, data)
	out := filepath.Join(t.TempDir(), "r")
	_, _, err := runCLI(t, "report", "--data", data, "--out", out, "--cases", "tiny,real", "--impl", "t1-multicore-f32", "--runs", "1", "--iterations", "5")
	want := []string{filepath.Join(data, "acl.txt"), fixture.SHA256([]byte(edited)), fixture.SHA256([]byte(testEdges))}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not name %q", err, w)
		}
	}
	if after := treeHashes(t, data); !maps.Equal(before, after) {
		t.Errorf("the data folder changed: %v -> %v", before, after)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out was created for a failed run: %v", err)
	}
}

// A run of synthetic cases only reads no graph file: a --data folder that
// does not exist is not even looked at.
func TestSyntheticOnlyReadsNoGraph(t *testing.T) {
	out := filepath.Join(t.TempDir(), "synthetic")
	_, stderr, err := runCLI(t, "report", "--data", filepath.Join(t.TempDir(), "absent"), "--out", out,
		"--cases", "tiny,star", "--impl", "t1-multicore-f32", "--runs", "1", "--iterations", "10", "--workers", "3")
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	run, err := report.Read[report.Run](filepath.Join(out, report.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Env.Datasets) != 0 || len(run.Cases) != 2 || strings.Contains(stderr, "loaded ") {
		t.Errorf("datasets %v, cases %v; stderr:\n%s", run.Env.Datasets, run.Cases, stderr)
	}
	if run.Protocol.Workers != 3 {
		t.Errorf("protocol records %d T1 workers, want the --workers 3 given", run.Protocol.Workers)
	}
	if !strings.Contains(stderr, `is not used: --cases tiny,star does not include "real"`) {
		t.Errorf("no note that --data is unused:\n%s", stderr)
	}
	// The same for a --graph the cases do not use: a note, not silence.
	graph := filepath.Join(t.TempDir(), "one.csv")
	if err := os.WriteFile(graph, []byte("a,b\nb,c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err = runCLI(t, "report", "--graph", graph, "--out", filepath.Join(t.TempDir(), "g"),
		"--cases", "tiny", "--impl", "t1-multicore-f32", "--runs", "1", "--iterations", "10")
	if err != nil || !strings.Contains(stderr, "--graph "+graph+` is not used: --cases tiny does not include "real"`) {
		t.Errorf("report --graph --cases tiny: %v; stderr lacks the unused-graph note:\n%s", err, stderr)
	}
}

func TestReportThenRenders(t *testing.T) {
	// The bundled layout: acl.txt.gz, checked by content.
	data := fixture.WriteDataset(t, t.TempDir(), map[string]string{"acl.txt.gz": testEdges, "papers.tsv": testPapers})
	out := filepath.Join(t.TempDir(), "cpu-test")
	stdout, stderr, err := runCLI(t, "report", "--data", data, "--out", out,
		"--cases", "tiny,real", "--impl", "t1-multicore-f32", "--runs", "2", "--iterations", "30")
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	// The load line comes before any case.
	load := "loaded 5 nodes and 6 edges (dropped 1 self-loops, 0 duplicates); 0 dangling"
	if i, j := strings.Index(stderr, load), strings.Index(stderr, "correctness, 30 fixed iterations"); i < 0 || j < i {
		t.Errorf("load line %q missing or after the cases:\n%s", load, stderr)
	}
	if !strings.Contains(stdout, "wrote "+filepath.Join(out, "index.html")) {
		t.Errorf("stdout %q", stdout)
	}
	run, err := report.Read[report.Run](filepath.Join(out, report.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if run.Name != "cpu-test" || run.Protocol.Iterations != 30 || run.Protocol.Runs != 2 {
		t.Errorf("run %q, %d iterations, %d runs", run.Name, run.Protocol.Iterations, run.Protocol.Runs)
	}
	impls := map[string]bool{}
	for _, c := range run.Correctness {
		impls[c.Implementation] = true
		if c.Status != report.StatusPass {
			t.Errorf("%s on %s: %s (%s)", c.Implementation, c.Case, c.Status, c.Reason)
		}
	}
	if len(impls) != 2 || !impls["t0-oracle"] || !impls["t1-multicore-f32"] {
		t.Errorf("implementations run %v, want the oracle and t1-multicore-f32", impls)
	}
	if len(run.Env.Datasets) != 2 || run.Top[0].ID != "C" || run.Top[0].Title != "The cited one" {
		t.Errorf("datasets %v, top %+v", run.Env.Datasets, run.Top[0])
	}
	// render re-creates the same page from results.json alone.
	page, _ := os.ReadFile(filepath.Join(out, report.HTMLFile))
	again := filepath.Join(t.TempDir(), "again.html")
	if _, _, err := runCLI(t, "render", "--out", again, filepath.Join(out, report.JSONFile)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(again); !bytes.Equal(b, page) {
		t.Error("prlab render does not reproduce index.html")
	}
}

// gzipInPlace replaces the file at path by path.gz holding its content.
func gzipInPlace(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fixture.WriteFile(t, filepath.Dir(path), filepath.Base(path)+".gz", string(b))
	os.Remove(path)
}

func TestListShowsEveryImplementation(t *testing.T) {
	out, _, err := runCLI(t, "list")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("no header: %q", lines[0])
	}
	for _, name := range []string{"t0-oracle", "t1-multicore-f64", "t1-multicore-f32"} {
		found := false
		for _, l := range lines {
			f := strings.Fields(l)
			if len(f) >= 4 && f[0] == name && f[1] == "cpu" && f[3] == "yes" {
				found = true
			}
		}
		if !found {
			t.Errorf("%s is not listed as an available cpu implementation:\n%s", name, out)
		}
	}
	gpuRows := 0
	for _, l := range lines {
		if f := strings.Fields(l); len(f) >= 5 && f[1] == "gpu" {
			gpuRows++
			if f[3] == "no" && !strings.Contains(out, "\n"+f[4]+" ") { // "no [1]" and a footnote "[1] reason"
				t.Errorf("GPU row %q has no footnote with its reason:\n%s", l, out)
			}
		}
	}
	if want := len(cudabind.Designs()); gpuRows != want {
		t.Errorf("%d GPU implementations listed, want %d (pkg/cudabind.Designs)", gpuRows, want)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "no command given"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"render"}, "render: want 1 argument(s), got 0"},
		{[]string{"list", "extra"}, `list: unexpected argument "extra"`},
		{[]string{"report", "--runs", "0"}, "--runs 0 out of range: must be in [1, 1000]"},
		{[]string{"report", "--cases", "tiny,moon"}, `unknown case "moon"`},
		{[]string{"report", "--cases", ""}, `invalid value "" for flag -cases: empty list`},
		{[]string{"report", "--impl", ""}, `invalid value "" for flag -impl: empty list`},
		{[]string{"report", "--workers", "0"}, "--workers 0 out of range: must be in [1, 1024]"},
		{[]string{"scale", "--workers", "2000", "--plan"}, "--workers 2000 out of range: must be in [1, 1024]"},
	} {
		_, stderr, err := runCLI(t, c.args...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want a usage error containing %q", c.args, err, c.want)
		}
		if c.args != nil && c.args[0] == "frobnicate" && !strings.HasPrefix(stderr, `prlab: unknown command "frobnicate"`) {
			t.Errorf("an unknown command's stderr does not start by naming it: %.80q", stderr)
		}
	}
}

// Every command's -h starts with a usage line and says what the command
// does (its line of the command list), then lists its flags; exit 0.
func TestEveryCommandHelp(t *testing.T) {
	for _, c := range []struct{ name, does, flag string }{
		{"report", "run the whole study", "-cases"},
		{"list", "list the implementations", ""},
		{"scale", "the scale study", "-budget"},
		{"incremental", "PageRank after edge batches", "-batches"},
		{"export", "write a graph", "-rmat"},
		{"verify", "", "-max-slowdown"},
		{"compare", "", "-max-slowdown"},
		{"render", "", "-out"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), []string{c.name, "-h"}, &stdout, &stderr)
		help := stderr.String()
		if err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s -h: %v", c.name, err)
		}
		if !strings.HasPrefix(help, "usage: prlab "+c.name+" ") || !strings.Contains(help, c.does) || !strings.Contains(help, c.flag) {
			t.Errorf("%s -h prints:\n%s\nwant a usage line, %q and its flags", c.name, help, c.does)
		}
	}
}
