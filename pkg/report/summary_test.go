package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// TestSummaryOfTheH200Run checks the summary against the committed H200 run
// 2 (reports/h200-2026-11-30-run2), whose numbers are known: gpu-persistent
// at 0.2070080 ms per 50 iterations, the thread-per-row baseline at 1.5605440
// ms, t1-multicore-f32 at 2.409355 ms, an empty launch 3.35 µs, grid.sync()
// 1.0173 µs, cluster.sync() 0.3196 µs, 1,024,876 bytes per iteration against
// 62,914,560 bytes of L2.
func TestSummaryOfTheH200Run(t *testing.T) {
	run := committedRun(t, "h200-2026-11-30-run2")
	s := Summarize(run)
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.4f, want %.4f", what, got, want)
		}
	}
	if s.BestGPU == nil || s.BestGPU.Implementation != "gpu-persistent" || s.Library == nil || s.Library.Implementation != "gpu-cusparse-reordered" ||
		s.Base == nil || s.BestCPU == nil || s.BestCPU.Implementation != "t1-multicore-f32" {
		t.Fatalf("best GPU %+v, library %+v, CPU %+v", s.BestGPU, s.Library, s.BestCPU)
	}
	near("best µs/iter", s.BestGPU.UsPerIter, 0.2070080*1000/50, 1e-3)
	near("vs baseline", s.BestGPU.VsBaseline, 1.5605440/0.2070080, 1e-3)
	near("vs CPU", s.BestGPU.VsCPU, 2.409355/0.2070080, 1e-3)
	near("launch cost", s.Ceilings.LaunchUs, 3.35, 0.01)
	near("grid.sync", s.Ceilings.GridSyncUs, 1.0173, 1e-3)
	near("DRAM floor", s.BestGPU.Floor.DRAMUs, 1024876/(3614.2215*1e3), 1e-3)
	if s.BestGPU.Floor.Bound != BoundL2 || s.Base.Floor.Bound != BoundLaunch || !s.GatesOK || len(s.Failures) != 0 {
		t.Errorf("bounds %s / %s, gates %v %v", s.BestGPU.Floor.Bound, s.Base.Floor.Bound, s.GatesOK, s.Failures)
	}
	// The next change: a grid.sync() (1.02 µs) replaced by a cluster.sync()-cheap barrier (0.32 µs): 4.14 - 0.70 = 3.44 µs.
	if !strings.Contains(s.Next, "about 3.44 µs per iteration (17% less)") {
		t.Errorf("next change: %s", s.Next)
	}
	// The split adds up (0.07 + 1.02 + 0.28 + 2.77 = 4.14), and the next
	// change quotes the same rest; gpu-cluster's own 8.66 µs is explained.
	for _, want := range []string{"4.14 µs per iteration = 0.07 µs launches (1 launch per 50 iterations × 3.35 µs) + 1.02 µs one grid.sync() + 0.28 µs its 1,024,876 bytes at the DRAM copy rate + 2.77 µs the rest",
		"Bound: latency (L2-resident)", "169 GB/s, 7.73 µs"} {
		if !strings.Contains(s.BoundLine, want) {
			t.Errorf("bound line lacks %q: %s", want, s.BoundLine)
		}
	}
	for _, want := range []string{"(2.77 µs of latency, 0.28 µs of bytes)", "gpu-cluster, which does use cluster.sync(), takes 8.66 µs", "its rest is 7.99 µs"} {
		if !strings.Contains(s.Next, want) {
			t.Errorf("next change lacks %q: %s", want, s.Next)
		}
	}
	f := s.BestGPU.Floor
	near("launches + barrier + DRAM bytes + rest", f.LaunchUs+f.BarrierUs+f.DRAMUs+f.RestUs(), s.BestGPU.UsPerIter, 1e-9)
	if s.GraphName != "aan — ACL Anthology Network citation graph" {
		t.Errorf("graph name %q", s.GraphName)
	}
	if !strings.Contains(s.Finding, "fits in the 60 MiB L2") || !strings.Contains(s.Finding, "9 of 14 are launch/barrier-bound") {
		t.Errorf("finding: %s", s.Finding)
	}
}

// TestSummaryOfACPURun: without a GPU the summary names the best CPU row, its
// speed-up over the oracle, and an Amdahl bound from GOMAXPROCS.
func TestSummaryOfACPURun(t *testing.T) {
	run := fixtureRun(false)
	s := Summarize(run)
	if s.BestGPU != nil || s.BestCPU == nil {
		t.Fatalf("best GPU %+v, CPU %+v", s.BestGPU, s.BestCPU)
	}
	if !strings.Contains(s.Finding, "No GPU row ran here") || !strings.Contains(s.Next, "perfect scaling") {
		t.Errorf("finding %q, next %q", s.Finding, s.Next)
	}
	if strings.Contains(s.Skipped, "/tmp/") {
		t.Errorf("skip line names a machine path: %s", s.Skipped)
	}
}

// A tiny graph's times keep 3 significant figures (or go to ns) instead of
// rounding to "0 µs".
func TestMicrosKeepsThreeFigures(t *testing.T) {
	for us, want := range map[float64]string{12345.6: "12346 µs", 412.4: "412 µs", 4.1449: "4.14 µs", 12.84: "12.8 µs", 0.4123: "412 ns", 0.00325: "3.25 ns", 0: "0 µs"} {
		if got := micros(us); got != want {
			t.Errorf("micros(%g) = %q, want %q", us, got, want)
		}
	}
	run := fixtureRun(false)
	for i := range run.Timings { // the same rows, a thousand times faster: a tiny graph
		run.Timings[i].Timing.MedianMs /= 1e4
	}
	s := Summarize(run)
	for _, text := range []string{s.Finding, s.Next} {
		if strings.Contains(text, " 0 µs") || strings.Contains(text, "(0.0 µs)") || strings.Contains(text, " 0.0 µs") {
			t.Errorf("a time rounded to zero: %s", text)
		}
	}
	if !strings.Contains(s.Next, "perfect scaling") {
		t.Errorf("next change: %s", s.Next)
	}
}

// TestDecompositionAddsUp: the printed parts sum to the printed total even
// when rounding each part alone would not (0.333 × 3 parts).
func TestDecompositionAddsUp(t *testing.T) {
	f := Floor{MeasuredUs: 1.0, Launches: 1, LaunchUs: 0.333, BarrierUs: 0.333, Barrier: "grid.sync()", DRAMUs: 0.333, Bytes: 1000}
	got := Decomposition("x", f, Ceilings{LaunchUs: 0.333})
	want := "x's 1.00 µs per iteration = 0.33 µs launches (1 launch per iteration × 0.33 µs) + 0.33 µs one grid.sync() + 0.33 µs its 1,000 bytes at the DRAM copy rate + 0.01 µs the rest"
	if !strings.HasPrefix(got, want) {
		t.Errorf("got  %s\nwant %s…", got, want)
	}
	for l, want := range map[float64]string{0.02: "1 launch per 50 iterations", 1: "1 launch per iteration", 3: "3 launches per iteration", 0.3: "0.3 launches per iteration"} {
		if got := launchRate(l); got != want {
			t.Errorf("launchRate(%v) = %q, want %q", l, got, want)
		}
	}
}

func TestDesignFloorNamesTheBound(t *testing.T) {
	c := Ceilings{DRAMGBps: 1000, IterCopyGBps: 100, L2Bytes: 1 << 20, LaunchUs: 3}
	row := func(launches float64, bytes int64, ms float64) TimingRow {
		return TimingRow{Identity: Identity{Implementation: "x", Kind: KindGPU}, Outcome: Outcome{Status: StatusPass}, BytesPerIteration: bytes, LaunchesPerIteration: launches,
			Timing: pagerank.Timing{Iterations: 1, MedianMs: ms}}
	}
	for _, tc := range []struct {
		launches float64
		bytes    int64
		ms       float64
		want     string
	}{
		{5, 1000, 0.020, BoundLaunch},       // 15 of 20 µs are launches
		{1, 1000, 0.020, BoundL2},           // fits in L2, 3 of 20 µs launches
		{1, 100 << 20, 0.200, BoundDRAM},    // 100 MiB do not fit
		{0, 1000, 0.020, BoundL2},           // no launch at all
		{1, 1000, math.NaN(), BoundUnknown}, // not timed
	} {
		if f := c.DesignFloor(row(tc.launches, tc.bytes, tc.ms)); f.Bound != tc.want {
			t.Errorf("%v launches, %d bytes, %v ms: %s, want %s", tc.launches, tc.bytes, tc.ms, f.Bound, tc.want)
		}
	}
	if f := c.DesignFloor(row(5, 1000, 0.020)); math.Abs(f.LaunchUs-15) > 1e-12 || math.Abs(f.DRAMUs-0.001) > 1e-12 || math.Abs(f.L2Us-0.01) > 1e-12 {
		t.Errorf("floor %+v", f)
	}
}

// optionOf is c's ECharts option as go-echarts writes it, its JavaScript
// functions (formatters) replaced by null.
func optionOf(t *testing.T, c *Chart) map[string]any {
	t.Helper()
	if _, err := c.HTML(); err != nil {
		t.Fatal(err)
	}
	raw := string(c.Chart.(interface{ JSONNotEscaped() template.HTML }).JSONNotEscaped())
	raw = regexp.MustCompile(`"__f__.*?__f__"`).ReplaceAllString(raw, "null")
	var v map[string]any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("option is not JSON: %v", err)
	}
	return v
}

// scaleFixture2 is a small scale study: two CPU and eleven GPU
// implementations on three R-MAT graphs; gpu-naive is slower than the CPU on
// the smallest and fails on the largest, gpu-cluster is always skipped.
func scaleFixture2() *ScaleStudy {
	s := &ScaleStudy{StudyHeader: StudyHeader{Name: "fixture", GPU: &GPUContext{Name: "Test GPU", ComputeCapability: "9.0"}}}
	impls := []string{"t1-multicore-f64", "t1-multicore-f32", "gpu-naive", "gpu-a", "gpu-b", "gpu-c", "gpu-d", "gpu-e", "gpu-f", "gpu-g", "gpu-h", "gpu-best", "gpu-cluster"}
	for i, nnz := range []int{1000, 10000, 100000} {
		name := fmt.Sprintf("rmat%d", 10+i)
		s.Graphs = append(s.Graphs, ScaleGraph{Family: FamilyRMAT, Name: name, GraphSize: GraphSize{NNZ: nnz}})
		cpu := float64(nnz) / 100
		for j, im := range impls {
			r := ScaleRow{Family: FamilyRMAT, Graph: name, GraphSize: GraphSize{NNZ: nnz}, Identity: Identity{Implementation: im, Kind: KindGPU}, Outcome: Outcome{Status: StatusPass}}
			ms := cpu / float64(2+j)
			switch {
			case strings.HasPrefix(im, "t1"):
				r.Kind, ms = KindCPU, cpu
			case im == "gpu-naive":
				ms = cpu * []float64{2, 0.5, 0.25}[i]
				if i == 2 {
					r.Status, r.Reason = StatusFail, "|sum−1| 0.04 > 0.002"
				}
			case im == "gpu-cluster":
				r.Status, r.Reason, ms = StatusSkipped, "graph needs too much shared memory", math.NaN()
			}
			r.MsPerIter, r.FloorFraction = F(ms), F(0.1)
			r.SpeedupVsCPU = F(math.NaN())
			if r.Kind == KindGPU {
				r.SpeedupVsCPU = F(cpu / ms)
			}
			s.Rows = append(s.Rows, r)
		}
	}
	return s
}

func TestScaleChartsDrawCPUAndTheFastestGPUs(t *testing.T) {
	s := scaleFixture2()
	if b := BestScaleGPU(s, FamilyRMAT); b != "gpu-best" {
		t.Fatalf("best GPU %q, want gpu-best", b)
	}
	legend := func(v map[string]any) map[string]any {
		lg := v["legend"].(map[string]any)
		if lg["type"] != "plain" {
			t.Errorf("legend type %v, want plain (never paged)", lg["type"])
		}
		return lg["selected"].(map[string]any)
	}
	sel := legend(optionOf(t, ScaleChart(s, ScaleTime)))
	// Drawn: the CPU rows and the three fastest GPU designs on rmat12 (gpu-best, gpu-h, gpu-g).
	for im, want := range map[string]bool{"t1-multicore-f32": true, "gpu-best": true, "gpu-h": true, "gpu-g": true, "gpu-f": false, "gpu-naive": false} {
		if sel[im] != want {
			t.Errorf("time chart: %s drawn %v, want %v (%v)", im, sel[im], want, sel)
		}
	}
	if _, ok := sel["gpu-cluster"]; ok {
		t.Error("a series for an implementation that never passed")
	}
	sel = legend(optionOf(t, ScaleChart(s, ScaleSpeedup)))
	if sel["break-even (1×)"] != true || sel["gpu-best"] != true || sel["t1-multicore-f32"] != nil {
		t.Errorf("speed-up chart draws %v", sel)
	}
	lines := strings.Join(ScaleFindings(s), "\n")
	for _, want := range []string{"`gpu-best`", "`gpu-naive` beats it only from rmat11 on", "**`gpu-naive` fails** on 1 of 3 graphs (rmat12)", "**`gpu-cluster` is skipped** on 3 of 3 graphs"} {
		if !strings.Contains(lines, want) {
			t.Errorf("findings lack %q:\n%s", want, lines)
		}
	}
	if h := ScaleFindingsHTML(s); !strings.Contains(string(h), "<b><code>gpu-naive</code> fails</b>") {
		t.Errorf("findings HTML: %s", h)
	}
}

func TestColoursAreFixedPerImplementation(t *testing.T) {
	if ImplColour("gpu-fused") == ImplColour("gpu-graph") || ImplColour("gpu-fused") != ImplColour("gpu-fused (grid)") {
		t.Error("colours are not one per implementation")
	}
	if ImplColour("some-new-design") != ImplColour("some-new-design") {
		t.Error("an unknown name's colour is not stable")
	}
	seen := map[string]string{}
	for n, c := range implColours {
		if o, ok := seen[c]; ok {
			t.Errorf("%s and %s share colour %s", n, o, c)
		}
		seen[c] = n
	}
}

func TestConvergenceLegendOnAGPURun(t *testing.T) {
	run := &Run{Graph: GraphSummary{Name: "g"}}
	for i := 0; i < 12; i++ {
		name, kind := fmt.Sprintf("gpu-%d", i), KindGPU
		if i < 2 {
			name, kind = fmt.Sprintf("t%d", i), KindCPU
		}
		run.Implementations = append(run.Implementations, Impl{Name: name, Kind: kind})
		run.Results = append(run.Results, pagerank.Result{Implementation: name, Case: "g", Mode: pagerank.Tolerance, Residuals: []float64{1, 0.1}})
		if kind == KindGPU {
			run.Timings = append(run.Timings, TimingRow{Identity: Identity{Implementation: name, Kind: kind}, Outcome: Outcome{Status: StatusPass},
				Timing: pagerank.Timing{Iterations: 10, MedianMs: float64(20 - i)}})
		}
	}
	if b := BestGPUTiming(run); b != "gpu-11" {
		t.Fatalf("best GPU %q", b)
	}
	c := ConvergenceChart(run)
	o := optionOf(t, c)
	lg := o["legend"].(map[string]any)
	sel := lg["selected"].(map[string]any)
	if lg["type"] != "plain" || lg["orient"] != "vertical" || sel["gpu-11"] != true || sel["gpu-3"] != false || sel["t0"] != true {
		t.Errorf("convergence legend: %v", lg)
	}
	// The legend sits right of the plot in one column: the grid leaves it
	// legendRoom px and the chart is tall enough for 12 lines of 26 px.
	grid := o["grid"].([]any)[0].(map[string]any)
	if grid["right"] != fmt.Sprint(legendRoom) || lg["right"] != "6" {
		t.Errorf("convergence grid %v, legend right %v: the legend is not beside the plot", grid, lg["right"])
	}
	if c.Height != "460px" || sideLegendHeight(21) != "656px" {
		t.Errorf("heights %s (12 lines), %s (21 lines), want 460px and 656px", c.Height, sideLegendHeight(21))
	}
}

// TestRooflineNamesEachDesign: every measured point of the roofline carries
// its design's name as a label (the one-launch designs share their bytes per
// iteration), on alternating sides within a column of equal bytes, and the
// floor marker is a second, unlabelled series of the same name (one legend
// entry).
func TestRooflineNamesEachDesign(t *testing.T) {
	run := &Run{Graph: GraphSummary{Name: "g"}, CopyRows: []pagerank.Stage{{Name: "copy 128 MiB", Kind: pagerank.StageCopyDRAM, Bytes: 128 << 20, GBps: 3000}}}
	for i, name := range []string{"gpu-graph", "gpu-cluster-dsmem"} {
		run.Timings = append(run.Timings, TimingRow{Identity: Identity{Implementation: name, Kind: KindGPU}, Outcome: Outcome{Status: StatusPass}, BytesPerIteration: 1024876,
			Timing: pagerank.Timing{Iterations: 10, MedianMs: 0.04 + 0.01*float64(i)}})
	}
	c := RooflineChart(run)
	if c == nil {
		t.Fatal("no roofline")
	}
	labelled := map[string]int{}
	for _, x := range optionOf(t, c)["series"].([]any) {
		s := x.(map[string]any)
		name := s["name"].(string)
		if lb, ok := s["label"].(map[string]any); ok && lb["show"] == true {
			// Same bytes: the faster (gpu-graph) named on the right, the next on the left.
			if want := map[string]string{"gpu-graph": "right", "gpu-cluster-dsmem": "left"}[name]; lb["formatter"] != "{a}" || lb["position"] != want || lb["color"] != ImplColour(name) {
				t.Errorf("%s: label %v, want position %q", name, lb, want)
			}
			labelled[name]++
		}
	}
	if labelled["gpu-graph"] != 1 || labelled["gpu-cluster-dsmem"] != 1 || len(labelled) != 2 {
		t.Errorf("labelled series %v, want one per design and no ceiling", labelled)
	}
	// The browser places the names (TestBrowserRooflineNamesDoNotOverlap);
	// the time axis starts at the decade under the lowest point (4 µs).
	if !strings.Contains(c.OptionJS, "s.labelLayout = layout") || !strings.Contains(c.OptionJS, fmt.Sprintf("chart.getWidth() - %d", legendRoom)) {
		t.Errorf("roofline OptionJS lacks the label layout or the legend's room:\n%s", c.OptionJS)
	}
	if y := optionOf(t, c)["yAxis"].([]any)[0].(map[string]any); y["min"] != 1.0 {
		t.Errorf("time axis min %v, want 1 (the decade under 4 µs)", y["min"])
	}
	if ImplColour("gpu-graph") == ImplColour("gpu-cluster-dsmem") {
		t.Error("gpu-graph and gpu-cluster-dsmem share a colour")
	}
}

func TestShortReasonNamesNoMachinePath(t *testing.T) {
	for in, want := range map[string]string{
		"libprlab_cuda.so not loaded: PRLAB_CUDA_LIB=/work/x/build/libprlab_cuda.so does not exist. Build it with `make cuda-lib`": "libprlab_cuda.so not loaded: PRLAB_CUDA_LIB=…/build/libprlab_cuda.so does not exist. Build it with `make cuda-lib`",
		"libprlab_cuda.so not loaded; tried /tmp/go-build1/b001/exe/libprlab_cuda.so (not found). Build it on a CUDA host":         "the CUDA library libprlab_cuda.so is not built here (or not found). Build it on a CUDA host",
		"graph needs 117440588 bytes of shared memory": "graph needs 117440588 bytes of shared memory",
		"cudabind: GPU unavailable (implementation unavailable here): gpu-cluster: graph needs 117440588 bytes of shared memory per block in a cluster of 8 (the device allows 232448)": "graph needs 117440588 bytes of shared memory per block in a cluster of 8 (the device allows 232448) (so the implementation is unavailable here)",
		"cudabind: GPU unavailable (implementation unavailable here)": "cudabind: GPU unavailable (implementation unavailable here)",
	} {
		if got := ShortReason(in); got != want {
			t.Errorf("ShortReason(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSummaryGroupsOneFailureCause: the committed out-of-memory check
// (reports/h200-2026-11-30/oom: every GPU allocation fails) has 30 failed GPU
// rows (10 designs on tiny and aan, and converging on aan) with one cause;
// the summary says so in one line, not 30.
func TestSummaryGroupsOneFailureCause(t *testing.T) {
	run := committedRun(t, "h200-2026-11-30/oom")
	s := Summarize(run)
	if s.GatesOK || len(s.Failures) != 2 || !strings.HasPrefix(s.Failures[0], "30 rows (gpu-naive, gpu-thread-per-row,") ||
		!strings.Contains(s.Failures[0], "on tiny, aan, converging on aan): failed: ") || !strings.Contains(s.Failures[0], "out of memory") {
		t.Errorf("gates %q, failures %q", s.Gates, s.Failures)
	}
}

// The time chart names a grid panel only when the study has grid rows:
// scaleFixture has one (rmat and grid256), scaleFixture2 is R-MAT only.
func TestScaleChartNamesTheGridPanelOnlyWithGrids(t *testing.T) {
	subtitle := func(s *ScaleStudy) string {
		return optionOf(t, ScaleChart(s, ScaleTime))["title"].(map[string]any)["subtext"].(string)
	}
	const panels = "left: R-MAT, right: 2-D grid"
	if sub := subtitle(scaleFixture()); !strings.Contains(sub, panels) {
		t.Errorf("a study with grid rows: subtitle %q lacks %q", sub, panels)
	}
	if sub := subtitle(scaleFixture2()); strings.Contains(sub, "grid") {
		t.Errorf("an R-MAT-only study: subtitle %q names a grid panel", sub)
	}
	if n := len(ScaleFamilies(scaleFixture2())); n != 1 {
		t.Errorf("R-MAT-only study has %d families, want 1", n)
	}
}

// A speed-up reads as one in words: never "1.7× the oracle", which reads as
// a time.
func TestTimesFaster(t *testing.T) {
	for x, want := range map[float64]string{1.734: "1.73× faster than", 1: "1.00× faster than", 0.8: "1.25× slower than"} {
		if got := timesFaster(x, 2); got != want {
			t.Errorf("timesFaster(%g) = %q, want %q", x, got, want)
		}
	}
}
