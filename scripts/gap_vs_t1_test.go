// Package scripts holds the shell and Python scripts run on hosts without
// Go; this test file checks the parser of scripts/gap-vs-t1.sh.
package scripts

import (
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/report"
)

// GAP's output as pr_spmv and converter print it (sbeamer/gapbs, timer.h PrintTime).
const (
	gapConvert = "Read Time:           0.20982\nBuild Time:          0.48738\nGraph has 1000 nodes and 16000 directed edges for degree: 16\n"
	gapT1      = "Read Time:           0.00100\nGraph has 1000 nodes and 16000 directed edges for degree: 16\n" +
		"Trial Time:          0.04000\nTrial Time:          0.02000\nTrial Time:          0.02200\nTrial Time:          0.02400\nTrial Time:          0.03000\nAverage Time:        0.02720\n"
	gapT2 = "Graph has 1000 nodes and 16000 directed edges for degree: 16\n" +
		"Trial Time:          0.01000\nTrial Time:          0.01200\nTrial Time:          0.01100\nTrial Time:          0.01300\nTrial Time:          0.00900\n"
)

// scaleJSON is the part of a prlab scale.json the parser reads: the graphs
// (the generated 2-node rmat1 the command always runs, then the file), and
// per row the graph, status, ms_per_iter and the timing's runs (4 timed
// iterations a run, so ms_per_iter = median_ms / 4). The rmat1 rows must be
// ignored.
func scaleJSON(f64, f32 string) string {
	row := func(impl string) string {
		return `{"graph":"rmat1","implementation":"` + impl + `","status":"pass","ms_per_iter":0.001,"timing":{"median_ms":0.004,"runs_ms":[0.004]}},`
	}
	return `{"graphs":[{"name":"rmat1","family":"rmat","n":2,"nnz":1,"build_ms":0.01},{"name":"gap-rmat10","family":"file","n":1000,"nnz":16000,"build_ms":250}],"rows":[` +
		row("t0-oracle") + row("t1-multicore-f64") + row("t1-multicore-f32") +
		`{"graph":"gap-rmat10","implementation":"t0-oracle","status":"pass","ms_per_iter":2.0,"timing":{"median_ms":8.0,"runs_ms":[8.0,7.6,9.0]}},` + f64 + "," + f32 + `]}`
}

func TestGapVsT1CSV(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the parser of scripts/gap-vs-t1.sh runs on python3")
	}
	work := t.TempDir()
	files := map[string]string{
		"logs/rmat10-convert.log": gapConvert,
		"logs/rmat10-gap-t1.log":  gapT1,
		"logs/rmat10-gap-t2.log":  gapT2,
		"prlab-rmat10-w1/scale.json": scaleJSON(
			`{"graph":"gap-rmat10","implementation":"t1-multicore-f64","status":"pass","ms_per_iter":1.0,"timing":{"median_ms":4.0,"runs_ms":[4.0,3.6,4.8]}}`,
			`{"graph":"gap-rmat10","implementation":"t1-multicore-f32","status":"pass","ms_per_iter":0.8,"timing":{"median_ms":3.2,"runs_ms":[3.2,3.0,3.6]}}`),
		"prlab-rmat10-w2/scale.json": scaleJSON(
			`{"graph":"gap-rmat10","implementation":"t1-multicore-f64","status":"pass","ms_per_iter":0.5,"timing":{"median_ms":2.0,"runs_ms":[2.0,1.8,2.4]}}`,
			`{"graph":"gap-rmat10","implementation":"t1-multicore-f32","status":"skipped","ms_per_iter":null,"timing":{"median_ms":0,"runs_ms":null}}`),
	}
	for name, body := range files {
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "report")
	cmd := exec.Command(py, "gap_vs_t1_csv.py", "--work", work, "--out", out, "--host", "Test CPU (2 cores)",
		"--graphs", "aan rmat10", "--threads", "1 2", "--date", "2026-12-01", "--commit", "abc1234", "--gap-rev", "b5e3e19")
	msg, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gap_vs_t1_csv.py: %v\n%s", err, msg)
	}
	if !strings.Contains(string(msg), "aan: no GAP or prlab result") {
		t.Errorf("a graph without logs is not named:\n%s", msg)
	}
	vs := readCSV(t, filepath.Join(out, "gap-vs-t1.csv"))
	// GAP at 1 thread: trials 40, 20, 22, 24, 30 ms of 20 iterations -> median 1.2 ms per iteration (1.0..2.0).
	// prlab f64 at 1 worker: 1.0 ms (runs 3.6..4.8 ms of 4 iterations -> 0.9..1.2). Ratio 1.0/1.2.
	want := map[string]string{"graph": "rmat10", "n": "1000", "nnz": "16000", "threads": "1", "gap_ms_per_iter": "1.2",
		"t1_ms_per_iter": "1", "ratio": "0.833", "host": "Test CPU (2 cores)", "date": "2026-12-01", "t1_impl": "t1-multicore-f64",
		"gap_ms_min": "1", "gap_ms_max": "2", "t1_ms_min": "0.9", "t1_ms_max": "1.2", "gap_ns_per_edge": "75", "t1_ns_per_edge": "62.5",
		"gap_nnz": "16000", "edges_match": "yes", "gap_read_s": "0.2098", "gap_build_s": "0.4874", "prlab_load_build_s": "0.25"}
	checkRow(t, "gap-vs-t1.csv", vs[0], want)
	if vs[0]["prlab_commit"] != "abc1234" || vs[0]["gap_rev"] != "b5e3e19" {
		t.Errorf("provenance columns %q %q", vs[0]["prlab_commit"], vs[0]["gap_rev"])
	}
	// The required columns come first, in the order the issue names them.
	if cols := strings.Join(header(t, filepath.Join(out, "gap-vs-t1.csv"))[:9], ","); cols != "graph,n,nnz,threads,gap_ms_per_iter,t1_ms_per_iter,ratio,host,date" {
		t.Errorf("columns %s", cols)
	}
	// 2 threads: GAP median 11 ms / 20 = 0.55; f64 0.5 -> ratio 0.909; f32 skipped there: t1 empty, no ratio.
	if len(vs) != 4 {
		t.Fatalf("%d rows, want 4 (2 thread counts x f64, f32)", len(vs))
	}
	checkRow(t, "gap-vs-t1.csv", vs[2], map[string]string{"threads": "2", "t1_impl": "t1-multicore-f64", "gap_ms_per_iter": "0.55", "ratio": "0.909"})
	checkRow(t, "gap-vs-t1.csv", vs[3], map[string]string{"threads": "2", "t1_impl": "t1-multicore-f32", "t1_ms_per_iter": "", "ratio": ""})

	sc := readCSV(t, filepath.Join(out, "t1-scaling.csv"))
	if len(sc) != 3 {
		t.Fatalf("%d scaling rows, want 3 (f64 at 1 and 2 workers, f32 at 1)", len(sc))
	}
	checkRow(t, "t1-scaling.csv", sc[1], map[string]string{"impl": "t1-multicore-f64", "workers": "2", "t1_ms_per_iter": "0.5",
		"speedup_vs_1_worker": "2", "t0_ms_per_iter": "2", "speedup_vs_t0": "4", "gap_ms_per_iter": "0.55", "gap_speedup_vs_1_thread": "2.18"})

	// What the parser writes is what the scale page and notebook 05 read.
	b, err := report.ReadCPUBaseline(out)
	if err != nil || b == nil || len(b.GapVsT1) != 4 || len(b.Scaling) != 3 || b.GapVsT1[0].Ratio != 0.833 || b.MaxThreads() != 2 {
		t.Errorf("report.ReadCPUBaseline of the parser's CSVs: %+v, %v", b, err)
	}

	// An edge count that differs from GAP's is reported and fails the run.
	if err := os.WriteFile(filepath.Join(work, "logs/rmat10-convert.log"), []byte(strings.Replace(gapConvert, "16000", "16001", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	msg, err = exec.Command(py, "gap_vs_t1_csv.py", "--work", work, "--out", out, "--host", "h", "--graphs", "rmat10", "--threads", "1 2").CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "EDGE COUNTS DIFFER: rmat10: prlab nnz 16000, GAP 16001") {
		t.Errorf("edge count mismatch: err %v\n%s", err, msg)
	}
}

func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, c := range recs[0] {
			m[c] = r[i]
		}
		rows = append(rows, m)
	}
	return rows
}

func header(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	return strings.Split(strings.TrimSpace(first), ",")
}

func checkRow(t *testing.T, file string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s %s/%s t=%s: %s = %q, want %q", file, got["graph"], got["t1_impl"]+got["impl"], got["threads"]+got["workers"], k, got[k], v)
		}
	}
}
