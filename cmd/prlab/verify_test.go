package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/internal/fixture"
	"github.com/prlab/prlab/pkg/dataset"
	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
)

// verifyData writes a data directory holding an R-MAT 2^scale graph as an
// AAN edge list (large enough that a timed run takes milliseconds, not
// microseconds), a papers.tsv and their SHA256SUMS.
func verifyData(t *testing.T, scale int) string {
	t.Helper()
	dir := t.TempDir()
	_, src, dst, err := pagerank.RMATEdges(pagerank.Graph500RMAT(scale, 7))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# citing , cited\n")
	for i := range src {
		fmt.Fprintf(&b, "P%d , P%d\n", src[i], dst[i])
	}
	files := map[string]string{dataset.EdgeName: b.String(), dataset.PapersName: "id\tyear\ttitle\ttitle_source\tin_citation_graph\nP0\t2000\tNode zero\ttest\t1\n"}
	return fixture.WriteDataset(t, dir, files)
}

// smallReport runs `prlab report` on data with few cases and implementations:
// the oracle (float64, timed), T1 float32 (timed, convergence within the
// float32 slack) and the exercise variant (fails the dangling cases).
func smallReport(t *testing.T, data string, extra ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "small")
	args := append([]string{"report", "--data", data, "--out", out, "--cases", "tiny,dangling,chain,real",
		"--impl", "t1-multicore-f32,t0-nodangling"}, extra...)
	if _, stderr, err := runCLI(t, args...); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	return out
}

var tampered int // names the copies apart

// tamper copies report dir's results.json into a new directory after
// applying edit to its generic JSON form.
func tamper(t *testing.T, dir string, edit func(m map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	tampered++
	out := filepath.Join(t.TempDir(), fmt.Sprintf("tampered-%d", tampered))
	os.MkdirAll(out, 0o755)
	b, _ = json.Marshal(m)
	if err := os.WriteFile(filepath.Join(out, report.JSONFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func rows(m map[string]any, key string) []map[string]any {
	var out []map[string]any
	for _, x := range m[key].([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

func cliStatus(err error) int {
	var ee exitError
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		return 2
	}
	return 1
}

func TestVerifyFreshAndTamperedReports(t *testing.T) {
	data := verifyData(t, 13)
	fresh := smallReport(t, data, "--runs", "20")

	// A fresh report verifies: exit status 0, every gate held, files written.
	out := filepath.Join(t.TempDir(), "v")
	stdout, stderr, err := runCLI(t, "verify", "--data", data, "--out", out, fresh)
	if err != nil {
		t.Fatalf("verify of a fresh report: %v\n%s\n%s", err, stdout, stderr)
	}
	if !strings.HasPrefix(stdout, "Re-verified small on ") || !strings.Contains(stdout, "Every correctness gate reproduced") {
		t.Errorf("paragraph: %s", stdout)
	}
	v, err := report.ReadVerification(filepath.Join(out, report.VerifyJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if !v.Pass || len(v.Gates) < 20 || len(v.Timing) != 2 {
		t.Errorf("fresh verification: pass %v, %d gates, %d timed rows", v.Pass, len(v.Gates), len(v.Timing))
	}
	// The fresh report keeps every row's top ids, so the float64 rows' top
	// orders are gated row by row, not only through the top table.
	orders := 0
	for _, g := range v.Gates {
		if g.Gate == report.GateOrder && g.Table != report.TableTop {
			orders++
		}
	}
	if orders < 4 {
		t.Errorf("%d per-row top-order gates, want one per float64 row (oracle and exercise on 4 cases, oracle convergence)", orders)
	}
	// prlab render redraws verify.html from verify.json alone.
	page, _ := os.ReadFile(filepath.Join(out, report.VerifyHTMLFile))
	os.Remove(filepath.Join(out, report.VerifyHTMLFile))
	if _, _, err := runCLI(t, "render", filepath.Join(out, report.VerifyJSONFile)); err != nil {
		t.Errorf("render verify.json: %v", err)
	} else if again, _ := os.ReadFile(filepath.Join(out, report.VerifyHTMLFile)); string(again) != string(page) {
		t.Errorf("render verify.json: %d bytes, the verification wrote %d", len(again), len(page))
	}
	for _, f := range []string{report.VerifyHTMLFile, report.VerifyCSVFile} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}

	cases := []struct {
		name   string
		edit   func(m map[string]any)
		code   int
		want   []string // in the output, naming the row and both values
		reject string   // must not be in the output
	}{
		{"pass flipped to fail", func(m map[string]any) {
			for _, c := range rows(m, "correctness") {
				if c["case"] == "dangling" && c["implementation"] == "t1-multicore-f32" {
					c["status"] = "fail"
				}
			}
		}, 1, []string{"FAIL status correctness dangling/t1-multicore-f32: report fail, rerun pass"}, ""},
		{"exercise failure turned into a pass", func(m map[string]any) {
			for _, c := range rows(m, "correctness") {
				if c["case"] == "dangling" && c["implementation"] == "t0-nodangling" {
					c["status"] = "pass"
				}
			}
		}, 1, []string{"FAIL status correctness dangling/t0-nodangling: report pass, rerun fail"}, ""},
		{"two top-20 ids swapped", func(m map[string]any) {
			top := rows(m, "top")
			top[2]["id"], top[3]["id"] = top[3]["id"], top[2]["id"]
		}, 1, []string{"FAIL top order top ", "/t0-oracle: report rank 3: "}, ""},
		{"float64 convergence count changed", func(m map[string]any) {
			for _, c := range rows(m, "convergence") {
				if c["implementation"] == "t0-oracle" {
					c["iterations"] = c["iterations"].(float64) + 1
				}
			}
		}, 1, []string{"FAIL convergence iterations convergence ", "/t0-oracle: report "}, ""},
		{"float32 convergence count moved by one", func(m map[string]any) {
			for _, c := range rows(m, "convergence") {
				if c["implementation"] == "t1-multicore-f32" {
					c["iterations"] = c["iterations"].(float64) + 1
				}
			}
		}, 0, nil, "FAIL"},
		{"float32 convergence count moved by two", func(m map[string]any) {
			for _, c := range rows(m, "convergence") {
				if c["implementation"] == "t1-multicore-f32" {
					c["iterations"] = c["iterations"].(float64) + 2
				}
			}
		}, 1, []string{"/t1-multicore-f32: report "}, ""},
		{"dataset hash changed", func(m map[string]any) {
			env := m["environment"].(map[string]any)
			d := env["datasets"].([]any)[0].(map[string]any)
			d["sha256"] = strings.Repeat("ab", 32)
		}, 2, []string{"not the same data", "acl.txt: SHA-256 abababababab"}, "FAIL status"},
	}
	if !testing.Short() { // the process's exit status, through main
		bin := buildCLI(t)
		dir := tamper(t, fresh, cases[len(cases)-1].edit)
		cmd := exec.Command(bin, "verify", "--data", data, "--out", filepath.Join(t.TempDir(), "v"), dir)
		out, err := cmd.CombinedOutput()
		if code := exitCode(err); code != 2 || !strings.Contains(string(out), "not the same data: acl.txt: SHA-256 abababababab") {
			t.Errorf("binary on other data: exit status %d, want 2:\n%s", code, out)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := tamper(t, fresh, c.edit)
			stdout, stderr, err := runCLI(t, "verify", "--data", data, "--out", filepath.Join(t.TempDir(), "v"), dir)
			if got := cliStatus(err); got != c.code {
				t.Fatalf("exit status %d (%v), want %d\n%s\n%s", got, err, c.code, stdout, stderr)
			}
			text := stdout
			if err != nil {
				text += err.Error()
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
			if c.reject != "" && strings.Contains(text, c.reject) {
				t.Errorf("output has %q:\n%s", c.reject, text)
			}
		})
	}

	// Timings scaled by 1.2: compare (no rerun) calls every timed row
	// slower, and --max-slowdown 1.1 fails naming the row. Both copies get
	// the same low-noise samples first (a loaded 2-core machine's own
	// samples spread by tens of percent), the second scaled by 1.2.
	setRuns := func(scale float64) func(m map[string]any) {
		return func(m map[string]any) {
			delete(m["environment"].(map[string]any), "load_average") // as on an idle machine
			delete(m["environment"].(map[string]any), "other_cpu")
			for _, r := range rows(m, "timings") {
				tm := r["timing"].(map[string]any)
				var runs []any
				for i := 0; i < 10; i++ {
					runs = append(runs, scale*(3+0.03*float64(i%5)))
				}
				tm["runs_ms"] = runs
			}
		}
	}
	base, slow := tamper(t, fresh, setRuns(1)), tamper(t, fresh, setRuns(1.2))
	stdout, _, err = runCLI(t, "compare", base, slow)
	if err != nil || !strings.Contains(stdout, "0 unchanged, 0 faster, 2 slower") {
		t.Errorf("compare with timings x1.2: %v\n%s", err, stdout)
	}
	// The timing table names the two reports (compare reruns nothing).
	if i := strings.Index(stdout, "CASE "); i < 0 || strings.Contains(stdout, "RERUN ms") || strings.Count(strings.SplitN(stdout[i:], "\n", 2)[0], "tampered-") != 2 {
		t.Errorf("compare's timing header does not name both reports:\n%s", stdout)
	}
	stdout, _, err = runCLI(t, "compare", base, slow, "--max-slowdown", "1.1")
	if cliStatus(err) != 1 || !strings.Contains(stdout, "FAIL max slowdown timing ") || !strings.Contains(stdout, "/t0-oracle: tampered-") {
		t.Errorf("--max-slowdown 1.1: %v\n%s", err, stdout)
	}
	if _, _, err := runCLI(t, "compare", base, slow, "--max-slowdown", "1.3"); err != nil {
		t.Errorf("--max-slowdown 1.3 on a 1.2x slowdown: %v", err)
	}
}

// TestVerifyFalseAlarms is the false-alarm control: two runs of the same
// small report on this machine must report no faster or slower row in at
// least 9 of 10 repetitions (the Holm-corrected U test at α = 0.05 plus the
// 5 % minimum effect; report.TimingAlpha, report.TimingMinEffect). Where
// the load average exceeds the cores (other jobs on a shared machine) the
// CPU rows are not comparable, which is no alarm either.
func TestVerifyFalseAlarms(t *testing.T) {
	data := verifyData(t, 12)
	alarms, loaded := 0, 0
	var lines []string
	for rep := 0; rep < 10; rep++ {
		a, b := smallReport(t, data), smallReport(t, data)
		stdout, _, err := runCLI(t, "compare", a, b)
		if err != nil {
			t.Fatalf("repetition %d: compare of two runs of one report: %v\n%s", rep, err, stdout)
		}
		if !strings.Contains(stdout, " 0 faster, 0 slower") {
			alarms++
			lines = append(lines, stdout)
		}
		if strings.Contains(stdout, "loaded machine ") { // load above the cores: CPU rows not comparable
			loaded++
		}
	}
	t.Logf("%d of 10 repetitions raised a timing alarm; %d ran with a load average above the cores (CPU rows not comparable there)", alarms, loaded)
	if alarms > 1 {
		t.Errorf("%d of 10 repetitions raised a timing alarm, want at most 1:\n%s", alarms, strings.Join(lines, "\n"))
	}
}

// A scale study verifies too: the rerun replays its graphs, references and
// per-row rungs, and a row whose status was changed fails naming the graph.
func TestVerifyScaleStudy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scale-small")
	if _, stderr, err := runCLI(t, "scale", "--out", dir, "--min-scale", "9", "--max-scale", "10", "--grid=false",
		"--budget", "3m", "--impl", "t1-multicore-f32", "--copy-mib", "8"); err != nil {
		t.Fatalf("scale: %v\n%s", err, stderr)
	}
	out := filepath.Join(t.TempDir(), "v")
	stdout, stderr, err := runCLI(t, "verify", "--out", out, dir)
	if err != nil || !strings.Contains(stdout, "Every correctness gate reproduced") {
		t.Fatalf("verify of a fresh scale study: %v\n%s\n%s", err, stdout, stderr)
	}
	v, err := report.ReadVerification(filepath.Join(out, report.VerifyJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	// 2 graphs x 3 implementations (the selection plus both references), each timed on the report's rung.
	if v.Report.Format != report.FormatScale || len(v.Timing) != 6 {
		t.Errorf("format %q, %d timed rows, want 6", v.Report.Format, len(v.Timing))
	}
	for _, tc := range v.Timing {
		if tc.ReportRuns != tc.RerunRuns {
			t.Errorf("%s/%s: %d runs in the report, %d in the rerun", tc.Case, tc.Implementation, tc.ReportRuns, tc.RerunRuns)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, report.ScaleJSONFile))
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, r := range rows(m, "rows") {
		if r["graph"] == "rmat10" && r["implementation"] == "t1-multicore-f32" {
			r["status"] = "fail"
		}
	}
	bad := filepath.Join(t.TempDir(), "scale-tampered")
	os.MkdirAll(bad, 0o755)
	b, _ = json.Marshal(m)
	os.WriteFile(filepath.Join(bad, report.ScaleJSONFile), b, 0o644)
	stdout, _, err = runCLI(t, "verify", "--out", filepath.Join(t.TempDir(), "v2"), bad)
	if cliStatus(err) != 1 || !strings.Contains(stdout, "FAIL status scale rmat10/t1-multicore-f32: report fail, rerun pass") {
		t.Errorf("tampered scale study: %v\n%s", err, stdout)
	}
}

// An incremental study verifies too (R-MAT only, one small batch): the
// rerun repeats its workloads, batches and runs, and a warm-start count
// changed in the copy fails naming the batch.
func TestVerifyIncrementalStudy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "inc-small")
	if _, stderr, err := runCLI(t, "incremental", "--out", dir, "--by-year=false", "--rmat", "10", "--batches", "0.01",
		"--kinds", "insert", "--runs", "3", "--impl", "t1-multicore-f64"); err != nil {
		t.Fatalf("incremental: %v\n%s", err, stderr)
	}
	stdout, stderr, err := runCLI(t, "verify", "--out", filepath.Join(t.TempDir(), "v"), dir)
	if err != nil || !strings.Contains(stdout, "Every correctness gate reproduced") {
		t.Fatalf("verify of a fresh incremental study: %v\n%s\n%s", err, stdout, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, report.IncrementalJSONFile))
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, r := range rows(m, "rows") {
		r["warm_iterations"] = r["warm_iterations"].(float64) + 1
	}
	bad := filepath.Join(t.TempDir(), "inc-tampered")
	os.MkdirAll(bad, 0o755)
	b, _ = json.Marshal(m)
	os.WriteFile(filepath.Join(bad, report.IncrementalJSONFile), b, 0o644)
	stdout, _, err = runCLI(t, "verify", "--out", filepath.Join(t.TempDir(), "v2"), bad)
	if cliStatus(err) != 1 || !strings.Contains(stdout, "FAIL convergence iterations convergence rmat10 insert 1% (warm)/t1-multicore-f64: report ") {
		t.Errorf("tampered incremental study: %v\n%s", err, stdout)
	}
}

// A committed H200 report verified on a machine without a usable GPU
// compares its CPU rows and names the GPU designs it could not rerun,
// instead of failing every gate of every GPU row (exit status 1 with 425
// failed gates before).
func TestVerifyGPUReportWithoutGPU(t *testing.T) {
	if ok, _ := gpu().Available(); ok {
		t.Skip("a GPU is usable here: its rows are rerun and compared")
	}
	data := filepath.Dir(fixture.NeedBundled(t, fixture.Edges))
	committed := filepath.Join(data, "..", "..", "reports", "h200-2026-12-02")
	out := filepath.Join(t.TempDir(), "v")
	stdout, stderr, err := runCLI(t, "verify", "--data", data, "--out", out, committed)
	if err != nil {
		t.Fatalf("verify of the committed H200 report here: %v\n%s\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stdout, "17 GPU designs of the report were not rerun here (") || !strings.Contains(stdout, "only its other 4 implementations were checked") {
		t.Errorf("paragraph does not name the GPU designs left out:\n%s", stdout)
	}
	v, err := report.ReadVerification(filepath.Join(out, report.VerifyJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	cpu := map[string]bool{"t0-oracle": true, "t1-multicore-f64": true, "t1-multicore-f32": true, "t0-nodangling": true}
	statuses := 0
	for _, g := range v.Gates {
		if g.Implementation != "" && !cpu[g.Implementation] {
			t.Errorf("gate on a GPU row that was not rerun: %s", g)
		}
		if g.Gate == report.GateStatus {
			statuses++
		}
	}
	// 4 CPU implementations on 7 correctness cases, the convergence and the timing rows.
	if !v.Pass || statuses < 4*7 {
		t.Errorf("pass %v with %d status gates, want a pass with at least 28", v.Pass, statuses)
	}

	// A report of GPU rows only is not rerun at all (it regenerated R-MAT
	// 2^22 for 90 s here, ran nothing and failed 112 gates).
	gpuOnly := filepath.Join(data, "..", "..", "reports", "incremental-h200-2026-12-02")
	out2 := filepath.Join(t.TempDir(), "v2")
	_, _, err = runCLI(t, "verify", "--data", data, "--out", out2, gpuOnly)
	if cliStatus(err) != 1 || !strings.Contains(err.Error(), "has only GPU rows (gpu-warp-per-row, gpu-cusparse) and no GPU can run here") {
		t.Errorf("verify of a GPU-only report here: %v", err)
	}
	if _, err := os.Stat(out2); err == nil {
		t.Errorf("%s was written for a report with nothing to rerun", out2)
	}

	// A CPU report whose GPU rows were skipped there too is compared whole:
	// skipped on both sides, no "not rerun here" note.
	cpuOnly := filepath.Join(data, "..", "..", "reports", "cpu-2core")
	out3 := filepath.Join(t.TempDir(), "v3")
	stdout, stderr, err = runCLI(t, "verify", "--data", data, "--out", out3, cpuOnly)
	if err != nil || strings.Contains(stdout, "not rerun here") {
		t.Fatalf("verify of the committed CPU report: %v\n%s\n%s", err, stdout, stderr)
	}
	v3, err := report.ReadVerification(filepath.Join(out3, report.VerifyJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	gpuSkipped := 0
	for _, g := range v3.Gates {
		if g.Gate == report.GateStatus && strings.HasPrefix(g.Implementation, "gpu-") && g.Pass && g.Report == report.StatusSkipped {
			gpuSkipped++
		}
	}
	if gpuSkipped == 0 {
		t.Error("the CPU report's skipped GPU rows were not compared")
	}
}
