package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/cudabind"
	"github.com/prlab/prlab/pkg/report"
)

// mirrorAndDest writes a mirror directory holding two data files and a
// destination directory holding only their SHA256SUMS, the layout of
// data/aan before `prlab fetch-data`.
func mirrorAndDest(t *testing.T, files map[string]string) (mirror, dest string) {
	t.Helper()
	mirror, dest = t.TempDir(), t.TempDir()
	var sums strings.Builder
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(mirror, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sums, "%x  %s\n", sha256.Sum256([]byte(body)), name)
	}
	if err := os.WriteFile(filepath.Join(dest, "SHA256SUMS"), []byte(sums.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return mirror, dest
}

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

func TestFetchDataCopiesAndVerifies(t *testing.T) {
	mirror, dest := mirrorAndDest(t, map[string]string{"acl.txt": testEdges, "papers.tsv": testPapers})
	out, _, err := runCLI(t, "fetch-data", "--mirror", mirror, "--data", dest)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"acl.txt": testEdges, "papers.tsv": testPapers} {
		got, err := os.ReadFile(filepath.Join(dest, name))
		if err != nil || string(got) != body {
			t.Errorf("%s not copied: %v", name, err)
		}
	}
	if !strings.Contains(out, "fetch-data: 2 files in "+dest+" verified against SHA256SUMS") {
		t.Errorf("output %q", out)
	}
	// The environment variable names the mirror when the flag is absent.
	_, dest2 := mirrorAndDest(t, map[string]string{"acl.txt": testEdges, "papers.tsv": testPapers})
	t.Setenv("PRLAB_DATA_MIRROR", mirror)
	if _, _, err := runCLI(t, "fetch-data", "--data", dest2); err != nil {
		t.Errorf("PRLAB_DATA_MIRROR: %v", err)
	}
	// A mirror whose file differs from the manifest is a clear error, and
	// the good copy already in place is kept.
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "acl.txt"), []byte("X , Y\n"), 0o644)
	os.WriteFile(filepath.Join(bad, "papers.tsv"), []byte(testPapers), 0o644)
	_, dest3 := mirrorAndDest(t, map[string]string{"acl.txt": testEdges, "papers.tsv": testPapers})
	_, _, err = runCLI(t, "fetch-data", "--mirror", bad, "--data", dest3)
	if err == nil || !strings.Contains(err.Error(), "does not match the manifest") {
		t.Errorf("bad mirror: %v", err)
	}
	if _, _, err := runCLI(t, "fetch-data", "--mirror", filepath.Join(bad, "missing"), "--data", dest3); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("missing mirror: %v", err)
	}
}

func TestReportFetchesThenRenders(t *testing.T) {
	mirror, data := mirrorAndDest(t, map[string]string{"acl.txt": testEdges, "papers.tsv": testPapers})
	out := filepath.Join(t.TempDir(), "cpu-test")
	stdout, stderr, err := runCLI(t, "report", "--data", data, "--mirror", mirror, "--out", out,
		"--cases", "tiny,real", "--impl", "t1-multicore-f32", "--runs", "2", "--iterations", "30")
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	// The data were missing, so the report fetched them first; the load line comes before any case.
	if !strings.Contains(stderr, "fetching") {
		t.Errorf("stderr does not say the data were fetched:\n%s", stderr)
	}
	load := "loaded 5 nodes and 6 edges (dropped 1 self-loops, 0 duplicates); 0 dangling"
	if i, j := strings.Index(stderr, load), strings.Index(stderr, "correctness, 30 fixed iterations"); i < 0 || j < i {
		t.Errorf("load line %q missing or after the cases:\n%s", load, stderr)
	}
	if !strings.Contains(stdout, "wrote "+filepath.Join(out, "index.html")) {
		t.Errorf("stdout %q", stdout)
	}
	run, err := report.ReadJSON(filepath.Join(out, report.JSONFile))
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
	if want := len(cudabind.AllImplementations()); gpuRows != want {
		t.Errorf("%d GPU implementations listed, want %d (pkg/cudabind: course + frontier)", gpuRows, want)
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
	} {
		_, _, err := runCLI(t, c.args...)
		if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want a usage error containing %q", c.args, err, c.want)
		}
	}
}
