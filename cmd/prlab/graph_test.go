package main

import (
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prlab/prlab/internal/fixture"
	"github.com/prlab/prlab/pkg/report"
)

// userGraphs are a user's files, one graph in every format (the same graph
// where the format allows: 6 nodes, one self-loop, one duplicate).
var userGraphs = map[string]string{
	"cites.el":   "0 1\n1 2\n2 0\n3 2\n4 2\n4 4\n5 2\n0 1\n",
	"cites.wel":  "0 1 1\n1 2 1\n2 0 1\n3 2 1\n4 2 1\n4 4 1\n5 2 1\n0 1 1\n",
	"cites.mtx":  "%%MatrixMarket matrix coordinate pattern general\n6 6 8\n1 2\n2 3\n3 1\n4 3\n5 3\n5 5\n6 3\n1 2\n",
	"cites.snap": "# Directed graph\n0\t1\n1\t2\n2\t0\n3\t2\n4\t2\n4\t4\n5\t2\n0\t1\n",
	"cites.csv":  "citing,cited,weight\nA,B,1\nB,C,1\nC,A,1\nD,C,1\nE,C,1\nE,E,1\nF,C,1\nA,B,1\n",
	"cites.tsv":  "citing\tcited\nA\tB\nB\tC\nC\tA\nD\tC\nE\tC\nE\tE\nF\tC\nA\tB\n",
	"acl.txt":    "A ==> B\nB ==> C\nC ==> A\nD ==> C\nE ==> C\nE ==> E\nF ==> C\nA ==> B\n",
	"meta.csv":   "id,title,label\nC,\"The cited one, a survey\",hub\nA,Paper A,\n",
	"meta.tsv":   "id\tyear\n2\t1999\n",
}

const userLine = "loaded 6 nodes and 6 edges (dropped 1 self-loops, 1 duplicates); 0 dangling"

// userFolder writes userGraphs (and a data folder laid out like data/aan)
// into a fresh folder, makes it read-only and returns it.
func userFolder(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "user")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range userGraphs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	data := writeData(t, testEdges, testPapers)
	sub := filepath.Join(dir, "aan")
	os.Mkdir(sub, 0o755)
	for _, n := range []string{"acl.txt", "papers.tsv", "SHA256SUMS"} {
		b, _ := os.ReadFile(filepath.Join(data, n))
		os.WriteFile(filepath.Join(sub, n), b, 0o444)
	}
	os.Chmod(sub, 0o555)
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(sub, 0o755); os.Chmod(dir, 0o755) })
	return dir
}

// treeHashes maps every path under dir to the SHA-256 of its bytes (folders: "dir").
func treeHashes(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			m[p] = "dir"
			return nil
		}
		b, err := os.ReadFile(p)
		m[p] = fixture.SHA256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Every format through `prlab report --graph`: the same load line, the
// format and the file's SHA-256 in results.json, metadata columns as given.
func TestReportGraphEveryFormat(t *testing.T) {
	user := userFolder(t)
	for _, name := range []string{"cites.el", "cites.wel", "cites.mtx", "cites.snap", "cites.csv", "cites.tsv", "acl.txt"} {
		path := filepath.Join(user, name)
		out := filepath.Join(t.TempDir(), "r")
		args := []string{"report", "--graph", path, "--out", out, "--cases", "tiny,real", "--impl", "t1-multicore-f32", "--runs", "1", "--iterations", "10"}
		if strings.HasSuffix(name, ".csv") || strings.HasSuffix(name, ".txt") || strings.HasSuffix(name, ".tsv") {
			args = append(args, "--metadata", filepath.Join(user, "meta.csv"))
		}
		_, stderr, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stderr)
		}
		run, err := report.Read[report.Run](filepath.Join(out, report.JSONFile))
		if err != nil {
			t.Fatal(err)
		}
		g := run.Graph
		if g.Line != userLine || !strings.Contains(stderr, userLine) {
			t.Errorf("%s: load line %q", name, g.Line)
		}
		wantFormat := map[string]string{".el": "el", ".wel": "wel", ".mtx": "mtx", ".snap": "snap", ".csv": "csv", ".tsv": "tsv", ".txt": "aan"}[filepath.Ext(name)]
		if g.Format != wantFormat || g.Name != "cites" && g.Name != "acl" {
			t.Errorf("%s: format %q name %q", name, g.Format, g.Name)
		}
		// A user's graph is case "cites" in the validation block; a file
		// named like the bundled edge list (acl.txt) is the real graph.
		wantCase := map[bool]string{true: "case real ", false: "case cites "}[name == "acl.txt"]
		if !strings.Contains(stderr, "\n"+wantCase) || name != "acl.txt" && strings.Contains(stderr, "case real") {
			t.Errorf("%s: the validation block is not headed %q:\n%s", name, wantCase, stderr)
		}
		// A graph of a few nodes takes tens of ns per iteration: shown, not "0.0000".
		if strings.Contains(stderr, " 0.0000 ms") || !strings.Contains(stderr, " ms/iter (wall, 1 runs)") {
			t.Errorf("%s: a timing line prints 0.0000 ms, or none is there:\n%s", name, stderr)
		}
		sum := fixture.SHA256([]byte(userGraphs[name]))
		if len(run.Env.Datasets) == 0 || run.Env.Datasets[0].SHA256 != sum || run.Env.Datasets[0].Format != wantFormat ||
			run.Env.Datasets[0].Bytes != int64(len(userGraphs[name])) {
			t.Errorf("%s: environment datasets %+v", name, run.Env.Datasets)
		}
		if name == "cites.wel" && !slices.Contains(g.LoadNotes, "weights in column 3 ignored: PageRank here is unweighted") {
			t.Errorf("wel notes %q", g.LoadNotes)
		}
		if name == "cites.csv" {
			if run.Top[0].ID != "C" || run.Top[0].Title != "The cited one, a survey" || run.Top[0].Label != "hub" ||
				!g.Shows("label") || g.Shows("year") {
				t.Errorf("csv top %+v, columns %q", run.Top[0], g.MetadataColumns)
			}
			page, _ := os.ReadFile(filepath.Join(out, report.HTMLFile))
			if !strings.Contains(string(page), "<th>label</th>") || strings.Contains(string(page), "<th>year</th>") {
				t.Error("csv: the top table does not show exactly the metadata's columns")
			}
		}
		if name == "cites.mtx" && run.Top[0].ID != "3" { // 1-based ids kept as given
			t.Errorf("mtx top id %q, want 3", run.Top[0].ID)
		}
		if name == "cites.el" && run.Top[0].ID != "2" {
			t.Errorf("el top id %q, want 2", run.Top[0].ID)
		}
	}
}

func TestGraphFlagUsageErrors(t *testing.T) {
	user := userFolder(t)
	el := filepath.Join(user, "cites.el")
	tinyEl := filepath.Join(t.TempDir(), "tiny.el") // named like a synthetic case
	if err := os.WriteFile(tinyEl, []byte(userGraphs["cites.el"]), 0o644); err != nil {
		t.Fatal(err)
	}
	dataset := t.TempDir() // a checksummed dataset folder, like data/aan
	if err := os.WriteFile(filepath.Join(dataset, "SHA256SUMS"), []byte("0  acl.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--format", "el"}, "--format needs --graph PATH"},
		{[]string{"report", "--undirected"}, "--undirected needs --graph PATH"},
		{[]string{"report", "--graph", el, "--format", "graphml"}, `unknown graph format "graphml"`},
		{[]string{"report", "--graph", el, "--data", user}, "--graph and --data both name the graph to rank"},
		{[]string{"report", "--graph", el, "--graph", el}, "report reads one --graph"},
		{[]string{"report", "--graph", el, "--name", "tiny"}, `graph name "tiny" is taken`},
		{[]string{"report", "--graph", tinyEl}, `graph name "tiny" is taken by a synthetic case or the "real" alias; it comes from the file name of --graph ` + tinyEl + ": choose another with --name"},
		{[]string{"scale", "--plan", "--graph", tinyEl}, `graph name "tiny" is taken by a synthetic case or the "real" alias; it comes from the file name of --graph ` + tinyEl + ": rename the file"},
		{[]string{"report", "--graph", el, "--columns", "a"}, "--columns wants two names"},
		{[]string{"report", "--graph", el, "--metadata", filepath.Join(user, "none.tsv")}, "--metadata: stat " + filepath.Join(user, "none.tsv") + ": no such file or directory"},
		{[]string{"report", "--graph", el, "--metadata", user}, "--metadata " + user + " is a directory, want a file"},
		{[]string{"scale", "--plan", "--graph", el, "--graph", el}, "is given twice"},
		{[]string{"scale", "--plan", "--graph", filepath.Join(user, "none.el")}, "no such file"},
		{[]string{"export", "--rmat", "8", "--grid", "8", "--format", "el", "--out", "x"}, "exactly one of"},
		{[]string{"export", "--rmat", "8", "--format", "wel", "--out", "x"}, `--format "wel": want el, snap, mtx or csv`},
		{[]string{"export", "--graph", el, "--format", "el", "--out", el}, "is the input file"},
		{[]string{"export", "--graph", el, "--format", "mtx", "--out", filepath.Join(filepath.Dir(el), "copy.mtx")}, "never writes into a user's graph folder"},
		{[]string{"export", "--rmat", "4", "--format", "el", "--out", filepath.Join(dataset, "acl.txt.gz")}, "checksummed dataset folder"},
		{[]string{"export", "--rmat", "4", "--format", "el", "--out", user}, "is a directory: give a file name"},
	} {
		_, _, err := runCLI(t, c.args...)
		if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want a usage error containing %q", c.args, err, c.want)
		}
	}
}

// prlab export writes what LoadGraph reads back with the same load line.
func TestExport(t *testing.T) {
	user := userFolder(t)
	dir := t.TempDir()
	for _, f := range []string{"el", "snap", "mtx", "csv"} {
		out := filepath.Join(dir, "cites-out."+f+".gz")
		stdout, _, err := runCLI(t, "export", "--graph", filepath.Join(user, "cites.tsv"), "--format", f, "--out", out)
		if err != nil || !strings.Contains(stdout, "wrote "+out+": 6 nodes, 8 edge lines") {
			t.Fatalf("export %s: %v %q", f, err, stdout)
		}
		back := filepath.Join(t.TempDir(), "r")
		if _, stderr, err := runCLI(t, "report", "--graph", out, "--out", back, "--cases", "real", "--impl", "t1-multicore-f32", "--runs", "1", "--iterations", "5"); err != nil || !strings.Contains(stderr, userLine) {
			t.Errorf("report on the exported %s: %v\n%s", f, err, stderr)
		}
	}
	out := filepath.Join(dir, "rmat8.el")
	if stdout, _, err := runCLI(t, "export", "--rmat", "8", "--format", "el", "--out", out); err != nil || !strings.Contains(stdout, "256 nodes, 4096 edge lines") {
		t.Fatalf("export --rmat: %v %q", err, stdout)
	}
	if stdout, _, err := runCLI(t, "export", "--grid", "8", "--format", "mtx", "--out", filepath.Join(dir, "grid.mtx")); err != nil || !strings.Contains(stdout, "256 nodes") {
		t.Fatalf("export --grid: %v %q", err, stdout)
	}
	// A folder that does not exist yet is made (it was "open
	// DIR/.grid.el.tmp-123: no such file or directory", after the work).
	if stdout, _, err := runCLI(t, "export", "--grid", "4", "--format", "el", "--out", filepath.Join(dir, "new", "sub", "grid.el")); err != nil || !strings.Contains(stdout, "16 nodes") {
		t.Fatalf("export into a new folder: %v %q", err, stdout)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 7 {
		t.Errorf("files in the export folder: %v (temporary files left?)", entries)
	}
}

// No command writes into a user's folder: every command, run on the graph
// files of a read-only folder (and on a data folder laid out like
// data/aan), leaves every file's bytes as they were and adds none. (Run as
// root, the folder's permissions do not stop a write: the hashes do.)
func TestNoCommandWritesUserFiles(t *testing.T) {
	user := userFolder(t)
	before := treeHashes(t, user)
	out := t.TempDir()
	el := filepath.Join(user, "cites.el")
	runs := [][]string{
		{"report", "--graph", el, "--out", filepath.Join(out, "r1"), "--cases", "tiny,real", "--impl", "t1-multicore-f32", "--runs", "1", "--iterations", "5"},
		{"report", "--graph", filepath.Join(user, "cites.csv"), "--metadata", filepath.Join(user, "meta.csv"), "--out", filepath.Join(out, "r2"), "--cases", "real", "--impl", "t1-multicore-f32", "--runs", "1", "--iterations", "5"},
		{"report", "--data", filepath.Join(user, "aan"), "--out", filepath.Join(out, "r3"), "--cases", "real", "--impl", "t1-multicore-f32", "--runs", "1", "--iterations", "5"},
		{"scale", "--min-scale", "6", "--max-scale", "6", "--grid=false", "--budget", "20s", "--copy-mib", "1", "--impl", "t1-multicore-f32", "--graph", el, "--graph", filepath.Join(user, "cites.mtx"), "--out", filepath.Join(out, "s")},
		{"export", "--graph", el, "--format", "mtx", "--out", filepath.Join(out, "e.mtx")},
		{"render", "--out", filepath.Join(out, "again.html"), filepath.Join(out, "r1", report.JSONFile)},
		{"list"},
	}
	for _, args := range runs {
		if _, stderr, err := runCLI(t, args...); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, stderr)
		}
	}
	if after := treeHashes(t, user); !maps.Equal(before, after) {
		t.Errorf("the user folder changed:\nbefore %v\nafter  %v", before, after)
	}
	s, err := report.Read[report.ScaleStudy](filepath.Join(out, "s", report.ScaleJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, g := range s.Graphs {
		if g.Family == report.FamilyFile {
			files++
			if g.N != 6 || g.NNZ != 6 || g.Path == "" || g.Format == "" {
				t.Errorf("scale file graph %+v", g)
			}
		}
	}
	if files != 2 {
		t.Errorf("%d file graphs in the scale study, want 2", files)
	}
	if page, _ := os.ReadFile(filepath.Join(out, "s", report.HTMLFile)); !strings.Contains(string(page), "</code> as <code>cites</code> (format el)") {
		t.Error("the scale page's protocol does not name the --graph file")
	}
}

// --graph - reads the graph from standard input (as --graph /dev/stdin); it
// was "stat -: no such file or directory".
func TestGraphFromStandardInput(t *testing.T) {
	bin := buildCLI(t)
	out := filepath.Join(t.TempDir(), "r")
	cmd := exec.Command(bin, "report", "--graph", "-", "--format", "el", "--out", out, "--cases", "real", "--impl", "t1-multicore-f32", "--runs", "1", "--iterations", "5")
	cmd.Stdin = strings.NewReader("0 1\n1 2\n2 0\n0 2\n")
	msg, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(msg), "loaded 3 nodes and 4 edges") {
		t.Fatalf("report --graph -: %v\n%s", err, msg)
	}
	run, err := report.Read[report.Run](filepath.Join(out, report.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if run.Graph.Path != "/dev/stdin" || run.Graph.Name != "stdin" {
		t.Errorf("graph recorded as %q named %q, want /dev/stdin named stdin", run.Graph.Path, run.Graph.Name)
	}
}
