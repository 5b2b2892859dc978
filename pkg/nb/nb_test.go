package nb

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
)

func TestLibraryHTMLHidesAMD(t *testing.T) {
	h := LibraryHTML()
	js := report.EChartsJS()
	if len(js) < 500_000 {
		t.Fatalf("vendored ECharts is only %d bytes", len(js))
	}
	if strings.Contains(strings.ToLower(js), "</script") {
		t.Fatal("ECharts contains </script: inlining it would end the script element early")
	}
	if !strings.Contains(h, js) {
		t.Fatal("LibraryHTML does not inline the vendored ECharts")
	}
	// The UMD must run with define/exports/module shadowed by undefined and this = window.
	if !strings.Contains(h, "(function (define, exports, module) {") || !strings.Contains(h, "}).call(window);") {
		t.Fatalf("LibraryHTML lacks the wrapper that hides RequireJS' define:\n%s", h[:300])
	}
	// tools/nbrun.py shares the element marked LibraryAttr between notebooks:
	// it must hold the library and be the same bytes in every call.
	lib := regexp.MustCompile(`(?s)<script[^>]*\b` + LibraryAttr + `>(.*?)</script>`)
	first, second := lib.FindAllStringSubmatch(h, -1), lib.FindAllStringSubmatch(LibraryHTML(), -1)
	if len(first) != 1 || len(second) != 1 {
		t.Fatalf("LibraryHTML has %d and %d elements marked %s, want 1", len(first), len(second), LibraryAttr)
	}
	if !strings.Contains(first[0][1], js) || first[0][1] != second[0][1] {
		t.Errorf("the element marked %s does not hold the same library bytes in every call (%d and %d bytes)", LibraryAttr, len(first[0][1]), len(second[0][1]))
	}
	if h == LibraryHTML() {
		t.Error("two LibraryHTML calls gave the same fragment; the status line needs a fresh id per notebook")
	}
	for _, bad := range []string{"http://", "https://"} {
		if i := strings.Index(h[:strings.Index(h, js)], bad); i >= 0 {
			t.Errorf("LibraryHTML loads from the network: %q", h[i:i+60])
		}
	}
}

func lineChart() *charts.Line {
	line := charts.NewLine()
	line.SetGlobalOptions(charts.WithTitleOpts(opts.Title{Title: `x < y & "z"`}))
	line.AddSeries("s", []opts.LineData{{Value: []any{1, 0.5}}, {Value: []any{2, 0.25}}})
	return line
}

func TestChartHTML(t *testing.T) {
	h, err := ChartHTML(lineChart(), "300px")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h, `class="`+ChartClass+`"`) || !strings.Contains(h, "height:300px") {
		t.Errorf("chart div missing class or height:\n%s", h)
	}
	// The option is go-echarts' JSON object, assigned once.
	i := strings.Index(h, "var option = ")
	if i < 0 {
		t.Fatalf("no option in:\n%s", h)
	}
	rest := h[i+len("var option = "):]
	obj := rest[:strings.Index(rest, ";\nfunction draw()")]
	var v map[string]any
	if err := json.Unmarshal([]byte(obj), &v); err != nil {
		t.Fatalf("option is not JSON (%v):\n%s", err, obj)
	}
	if _, ok := v["series"]; !ok {
		t.Errorf("option has no series: %v", v)
	}
	// A JavaScript formatter (opts.FuncOpts) must arrive as a function, not a string.
	withFunc := lineChart()
	withFunc.SetGlobalOptions(charts.WithYAxisOpts(opts.YAxis{Type: "log",
		AxisLabel: &opts.AxisLabel{Formatter: opts.FuncOpts("function (v) { return v.toExponential(0); }")}}))
	hf, err := ChartHTML(withFunc, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hf, `"formatter":function (v) { return v.toExponential(0); }`) || strings.Contains(hf, "__f__") {
		t.Errorf("formatter not a JavaScript function: %s", hf[strings.Index(hf, "var option"):][:400])
	}
	bad := lineChart()
	bad.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Formatter: opts.FuncOpts(`function (p) { return "x"; }`)}))
	if _, err := ChartHTML(bad, ""); err == nil || !strings.Contains(err.Error(), "single quotes") {
		t.Errorf("a function with double quotes: %v, want an error", err)
	}
	h2, _ := ChartHTML(lineChart(), "")
	if h2 == h || !strings.Contains(h2, "height:420px") {
		t.Error("two charts share an id, or the default height is not 420px")
	}
}

func TestTableEscapesAndMarksStatus(t *testing.T) {
	tb := &Table{Caption: "c<", Header: []string{"a", "b"}}
	tb.Add("fail", "<script>", "1.5e-3")
	h := tb.HTML()
	if strings.Contains(h, "<script>") || !strings.Contains(h, "&lt;script&gt;") {
		t.Errorf("cell not escaped: %s", h)
	}
	if !strings.Contains(h, "background:#fbeaea") || !strings.Contains(h, "text-align:right") || !strings.Contains(h, "overflow-x:auto") {
		t.Errorf("status style or numeric alignment missing: %s", h)
	}
	if md := tb.Markdown(); !strings.Contains(md, "| <script> | 1.5e-3 |") {
		t.Errorf("markdown: %s", md)
	}
}

func TestInvariantOnTiny(t *testing.T) {
	g, _ := pagerank.SyntheticCase("tiny") // a fixed generator
	steps, err := Invariant(g, 4)
	if err != nil {
		t.Fatal(err)
	}
	// From x0 = 1/6, D = 1/6 (node 5); without redistribution the sum is 1 - d/6 = 618/720.
	if s := steps[0]; math.Abs(s.D-1.0/6) > 1e-15 || math.Abs(s.Broken-618.0/720) > 1e-15 {
		t.Errorf("step 1: D %v, broken sum %v; want 1/6 and 618/720", s.D, s.Broken)
	}
	for _, s := range steps {
		if math.Abs(s.Teleport+s.Links+s.Dangling-1) > 1e-14 || math.Abs(s.Next-1) > 1e-14 {
			t.Errorf("step %d: terms sum to %v, oracle sum %v; want 1", s.Iteration, s.Teleport+s.Links+s.Dangling, s.Next)
		}
	}
	if h := InvariantTable(g, steps); !strings.Contains(h, "0.858333333") {
		t.Errorf("table lacks 618/720: %s", h)
	}
}

func TestExerciseOnDanglingCase(t *testing.T) {
	g, _ := pagerank.SyntheticCase("dangling") // a fixed generator
	e, err := RunExercise(g, 20)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Converged || e.AbsDiff > 1e-10 || !e.SameTop || e.Spearman != 1 {
		t.Errorf("converged %v, |measured-predicted| %.3g, same top %v, rho %v", e.Converged, e.AbsDiff, e.SameTop, e.Spearman)
	}
	if e.BrokenSum > 0.99 || math.Abs(e.OracleSum-1) > 1e-12 {
		t.Errorf("sums: broken %v, oracle %v", e.BrokenSum, e.OracleSum)
	}
	if !strings.Contains(e.Summary(), "matches") || !strings.Contains(e.ComparePrediction(0.5), "Your predicted sum") {
		t.Error("summary or prediction text wrong")
	}
	tb, err := ExerciseChecks(pagerank.CorrectnessIterations)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range tb.Rows {
		wantPass := row[0] == "nodangling"
		if (tb.Status[i] == "pass") != wantPass {
			t.Errorf("case %s: status %s", row[0], tb.Status[i])
		}
	}
}

func TestCachedComputesOnce(t *testing.T) {
	t.Setenv(EnvCache, t.TempDir())
	var calls atomic.Int32
	compute := func() ([]int, error) { calls.Add(1); return []int{1, 2, 3}, nil }
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := Cached("k-"+CacheKey("a", 1), compute)
			if err != nil || len(v) != 3 {
				t.Errorf("Cached: %v %v", v, err)
			}
		}()
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("computed %d times, want 1", n)
	}
	if CacheKey("a", 1) == CacheKey("a", 2) {
		t.Error("CacheKey ignores its parts")
	}
	if err := ClearCache(); err != nil {
		t.Fatal(err)
	}
	if _, err := Cached("k", compute); err != nil || calls.Load() != 2 {
		t.Errorf("after ClearCache: %v, calls %d", err, calls.Load())
	}
}

func TestRootAndPath(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "pkg", "nb", "nb.go")); err != nil {
		t.Fatalf("Root %s is not this checkout", root)
	}
	p, err := Path("data/aan")
	if err != nil || p != filepath.Join(root, "data", "aan") {
		t.Errorf("Path: %s %v", p, err)
	}
	t.Setenv(EnvRoot, t.TempDir())
	if _, err := Root(); err == nil || !strings.Contains(err.Error(), EnvRoot) {
		t.Errorf("a PRLAB_ROOT without go.mod: %v", err)
	}
}

func TestStagesSourceWithoutGPU(t *testing.T) {
	s := &StudyRun{Run: &report.Run{Name: "x", GPUSkipped: "no GPU here"}}
	src, err := StagesSource(s)
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := CommittedGPURuns()
	if len(runs) == 0 {
		if src.Run != s.Run || !strings.Contains(src.Markdown, "There are no GPU numbers here") || !strings.Contains(src.Markdown, "no GPU here") {
			t.Errorf("without GPU or committed report: %q", src.Markdown)
		}
	} else if src.Run == nil || src.Run.GPU == nil || src.Run.Env.Date != runs[0].Run.Env.Date || !strings.Contains(src.Markdown, runs[0].Path) {
		t.Errorf("with a committed GPU report: %q", src.Markdown)
	}
	if h := StageTable(s.Run); !strings.Contains(h, "no stage rows") {
		t.Errorf("empty stage table: %s", h)
	}
	if h, err := XDRAMChart(s.Run); err != nil || !strings.Contains(h, "No x DRAM chart") {
		t.Errorf("empty x DRAM chart: %s %v", h, err)
	}
}

func TestScaleGraphs(t *testing.T) {
	gs, err := ScaleGraphs([]int{8}, 8, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 || gs[0].N != 256 || gs[1].N != 64 || gs[1].NNZ != 4*8*7 || gs[1].Dangling != 0 {
		t.Fatalf("graphs: %+v", gs)
	}
	if len(gs[0].Smoke) != 2 || !(gs[0].Smoke[0].MsPerIteration > 0) {
		t.Errorf("smoke: %+v", gs[0].Smoke)
	}
	if h, err := SmokeChart(gs); err != nil || !strings.Contains(h, ChartClass) {
		t.Errorf("smoke chart: %v", err)
	}
}

func TestScratchReportsAreNotCommittedRuns(t *testing.T) {
	for rel, want := range map[string]bool{
		"reports/latest/results.json":                  true,
		"reports/scale-latest/results.json":            true,
		"reports/h200-latest/h200-report/results.json": true,
		"reports/h200-2026-11-30/results.json":         false,
		"reports/h200-2026-11-30/oom/results.json":     false,
	} {
		if got := scratchReport(rel); got != want {
			t.Errorf("scratchReport(%q) = %v, want %v", rel, got, want)
		}
	}
}

// scaleFixture is a small scale study: two CPU and eleven GPU
// implementations on three R-MAT graphs; gpu-naive is slower than the CPU on
// the smallest and fails on the largest, gpu-cluster is always skipped.
func scaleFixture() *report.ScaleStudy {
	s := &report.ScaleStudy{StudyHeader: report.StudyHeader{Name: "fixture", GPU: &report.GPUContext{Name: "Test GPU", ComputeCapability: "9.0"}}}
	impls := []string{"t1-multicore-f64", "t1-multicore-f32", "gpu-naive", "gpu-a", "gpu-b", "gpu-c", "gpu-d", "gpu-e", "gpu-f", "gpu-g", "gpu-h", "gpu-best", "gpu-cluster"}
	for i, nnz := range []int{1000, 10000, 100000} {
		name := fmt.Sprintf("rmat%d", 10+i)
		s.Graphs = append(s.Graphs, report.ScaleGraph{Family: report.FamilyRMAT, Name: name, GraphSize: report.GraphSize{NNZ: nnz}})
		cpu := float64(nnz) / 100
		for j, im := range impls {
			r := report.ScaleRow{Family: report.FamilyRMAT, Graph: name, GraphSize: report.GraphSize{NNZ: nnz}, Identity: report.Identity{Implementation: im, Kind: report.KindGPU}, Outcome: report.Outcome{Status: report.StatusPass}}
			ms := cpu / float64(2+j)
			switch {
			case strings.HasPrefix(im, "t1"):
				r.Kind, ms = report.KindCPU, cpu
			case im == "gpu-naive":
				ms = cpu * []float64{2, 0.5, 0.25}[i]
				if i == 2 {
					r.Status, r.Reason = report.StatusFail, "|sum−1| 0.04 > 0.002"
				}
			case im == "gpu-cluster":
				r.Status, r.Reason, ms = report.StatusSkipped, "graph needs too much shared memory", math.NaN()
			}
			r.MsPerIter, r.FloorFraction = report.F(ms), report.F(0.1)
			r.SpeedupVsCPU = report.F(math.NaN())
			if r.Kind == report.KindGPU {
				r.SpeedupVsCPU = report.F(cpu / ms)
			}
			s.Rows = append(s.Rows, r)
		}
	}
	return s
}

// TestScaleFragments: the notebook's scale cells show pkg/report's
// fragments (the charts are tested there), under fresh element ids.
func TestScaleFragments(t *testing.T) {
	s := scaleFixture()
	for _, f := range []func(*report.ScaleStudy) (string, error){ScaleTimeChart, ScaleSpeedupChart, ScaleFloorChart} {
		h, err := f(s)
		if err != nil || !strings.Contains(h, `class="`+ChartClass+`"`) || !strings.Contains(h, `"type":"plain"`) {
			t.Errorf("scale chart: %v %.200s", err, h)
		}
	}
	a, _ := ScaleTimeChart(s)
	b, _ := ScaleTimeChart(s)
	if a == b {
		t.Error("two renderings of a chart share an element id")
	}
	if f := ScaleFindings(s); !strings.Contains(f, `id="summary"`) || !strings.Contains(f, "<code>gpu-best</code>") {
		t.Errorf("findings: %s", f)
	}
	if m := ScaleMatrix(s, report.FamilyRMAT); !strings.Contains(m, "FAIL ") || !strings.Contains(m, ">skip<") {
		t.Errorf("matrix lacks FAIL or skip cells")
	}
	if md := ScaleSourceMarkdown([]CommittedScale{{ScaleStudy: s, Path: "reports/x/scale.json"}}); !strings.Contains(md, "Test GPU") || strings.Contains(md, "CPU-only") {
		t.Errorf("source: %s", md)
	}
}

func TestCommittedFilter(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	committed := committedFilter(root)
	if committed("reports/latest/results.json") || committed("reports/x-latest/scale.json") {
		t.Error("scratch reports count as committed")
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skip("not a git work tree: every non-scratch path counts")
	}
	if committed("reports/zz-not-tracked-" + randomID() + "/results.json") {
		t.Error("an untracked report counts as committed")
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "reports").Output()
	if err != nil || len(out) == 0 {
		t.Skip("no tracked reports")
	}
	f := strings.SplitN(strings.TrimSpace(string(out)), "\n", 2)[0]
	if !committed(f) || !committed(filepath.Dir(f)) {
		t.Errorf("tracked %s (or its folder) does not count as committed", f)
	}
}
