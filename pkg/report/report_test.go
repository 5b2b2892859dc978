package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

func TestThresholdsForCourseTable(t *testing.T) {
	cases := []struct {
		cc           string
		silver, gold float64
		calibrated   bool
	}{
		{"7.5", 0.22, 0.38, true},
		{"8.0", 0.20, 0.35, false},
		{"8.9", 0.20, 0.35, false},
		{"12.0", 0.20, 0.35, false},
		{"9.0", 0.15, 0.28, false},
		{"10.0", 0.15, 0.28, false},
	}
	for _, c := range cases {
		th, ok := ThresholdsFor(c.cc)
		if !ok || th.Silver != c.silver || th.Gold != c.gold || th.Calibrated != c.calibrated {
			t.Errorf("ThresholdsFor(%s) = %+v, %v; want %v/%v calibrated=%v", c.cc, th, ok, c.silver, c.gold, c.calibrated)
		}
	}
	if _, ok := ThresholdsFor("8.6"); ok {
		t.Error("8.6 has no column in the course table, want ok=false")
	}
}

func TestComputeTiers(t *testing.T) {
	run := fixtureRun(true)
	got := map[string]TierRow{}
	for _, r := range run.Tiers {
		got[r.Implementation] = r
	}
	want := map[string]string{
		"gpu-thread-per-row": TierPass,   // the baseline cannot beat itself
		"gpu-warp-per-row":   TierGold,   // 0.30 x DRAM >= 0.28, CV 1 %
		"gpu-jittery":        TierSilver, // 0.30 x DRAM but CV 8 %
		"gpu-thrust-cub":     TierBronze, // faster than the baseline, write budget not checked
		"gpu-broken":         TierNone,   // fails tiny
	}
	if len(got) != len(want) {
		t.Fatalf("%d tier rows, want %d (GPU implementations only): %+v", len(got), len(want), run.Tiers)
	}
	for name, tier := range want {
		if got[name].Tier != tier {
			t.Errorf("%s: tier %q, want %q (why: %s)", name, got[name].Tier, tier, got[name].Why)
		}
	}
	if f := float64(got["gpu-warp-per-row"].Fraction); math.Abs(f-0.30) > 1e-9 {
		t.Errorf("warp per row fraction %v, want 0.30 (1200 GB/s over 4000 GB/s)", f)
	}
	if cv := float64(got["gpu-jittery"].CV); math.Abs(cv-0.08) > 1e-9 {
		t.Errorf("jittery CV %v, want 0.08", cv)
	}
	if w := got["gpu-jittery"].Why; !strings.Contains(w, "CV under 5%") {
		t.Errorf("jittery why %q should name the CV requirement", w)
	}
	if w := got["gpu-thrust-cub"].Why; !strings.Contains(w, "not checked") {
		t.Errorf("thrust why %q should name the write budget", w)
	}
	if w := got["gpu-broken"].Why; !strings.Contains(w, "tiny is failed") {
		t.Errorf("broken why %q should name the failing case", w)
	}
	r := got["gpu-warp-per-row"]
	if r.Calibrated || r.Column != "9.0, 10.0" || float64(r.Silver) != 0.15 || float64(r.Gold) != 0.28 {
		t.Errorf("warp per row column %+v, want uncalibrated 9.0, 10.0 at 0.15/0.28", r)
	}

	// A compute capability without a column stops at bronze and says so.
	run.GPU.ComputeCapability = "8.6"
	for _, r := range ComputeTiers(run, TierInput{Baseline: "gpu-thread-per-row", WriteBudget: map[string]string{"gpu-warp-per-row": "met"}}) {
		if r.Implementation == "gpu-warp-per-row" && (r.Tier != TierBronze || !strings.Contains(r.Why, "no column")) {
			t.Errorf("cc 8.6: %+v, want bronze with a 'no column' reason", r)
		}
	}
	// Without a GPU context there are no tiers.
	if rows := ComputeTiers(fixtureRun(false), TierInput{}); rows != nil {
		t.Errorf("no GPU: %d tier rows, want none", len(rows))
	}
}

func TestWriteReadRoundTripAndRerender(t *testing.T) {
	for _, withGPU := range []bool{false, true} {
		dir := t.TempDir()
		run := fixtureRun(withGPU)
		if err := Write(dir, run); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if want := "convergence.csv,correctness.csv,index.html,results.json,stages.csv,tiers.csv,timing.csv"; strings.Join(names, ",") != want {
			t.Fatalf("report dir holds %v, want exactly %s (no temporary files)", names, want)
		}
		back, err := Read[Run](filepath.Join(dir, JSONFile))
		if err != nil {
			t.Fatal(err)
		}
		j1, _ := Encode(run)
		j2, _ := Encode(back)
		if !bytes.Equal(j1, j2) {
			t.Fatal("results.json does not round-trip")
		}
		// Re-rendering from results.json gives the same page, byte for byte.
		page, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
		again, err := RenderHTML(back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(page, again) {
			t.Fatal("index.html re-rendered from results.json differs from the original")
		}
		// Every table reads back into the rows results.json holds.
		rows, err := ReadTable[Check](filepath.Join(dir, CorrectnessCSVFile))
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			rows[i].Top = run.Correctness[i].Top // lists stay in the JSON
			if r := rows[i]; r.Status == StatusFailed && r.Spearman.Valid() {
				t.Errorf("failed row has a Spearman value %v, want empty", r.Spearman)
			}
		}
		j1, _ = json.Marshal(rows)
		j2, _ = json.Marshal(run.Correctness)
		if !bytes.Equal(j1, j2) {
			t.Errorf("correctness.csv reads back as\n%s\nwant\n%s", j1, j2)
		}
		timings, err := ReadTable[TimingRow](filepath.Join(dir, TimingCSVFile))
		if err != nil || len(timings) != len(run.Timings) || timings[0].Timing.MedianMs != run.Timings[0].Timing.MedianMs || timings[0].Identity != run.Timings[0].Identity {
			t.Errorf("timing.csv: %v, %+v", err, timings)
		}
		wantStages := len(run.CopyRows) + len(run.Stages)
		for _, tm := range run.Timings {
			wantStages += len(tm.Stages)
		}
		if stages, err := ReadTable[StageRow](filepath.Join(dir, StagesCSVFile)); err != nil || len(stages) != wantStages {
			t.Errorf("stages.csv: %d rows, want %d: %v", len(stages), wantStages, err)
		}
		if tiers, err := ReadTable[TierRow](filepath.Join(dir, TiersCSVFile)); err != nil || len(tiers) != len(run.Tiers) {
			t.Errorf("tiers.csv: %d rows, want %d: %v", len(tiers), len(run.Tiers), err)
		}
	}
}

func TestHTMLSections(t *testing.T) {
	page, err := RenderHTML(fixtureRun(false))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	// The embedded chart library itself mentions tags in strings; check the page around it.
	outside := strings.Replace(s, echartsJS, "", 1)
	if len(outside) == len(s) {
		t.Fatal("page does not embed the chart library")
	}
	for _, want := range []string{
		"loaded 16589 nodes and 94931 edges (dropped 42 self-loops, 0 duplicates); 1525 dangling",
		`id="correctness-table"`, `id="convergence-table"`, `id="top-table"`, `id="timing-table"`,
		"J93-2004", "Penn Treebank", "(no metadata for this id)",
		`id="` + ChartConvergence + `"`, `"type":"log"`,
		"GPU rows skipped: CUDA library libprlab_cuda.so not found",
		"ad409b91a9f3c7e185ec380f5f08251949d61fc0cbe9a9845d13695f28b5880b",
		"Exercise variant (t0-nodangling: no dangling redistribution; expected to fail where a case has dangling nodes): t0-nodangling",
		`id="summary"`, `id="correctness-matrix"`, `id="` + ChartTime + `"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(s, `id="stage-table"`) || strings.Contains(s, ChartXDRAM) {
		t.Error("page without GPU results shows GPU tables")
	}
	// Every style value reached the page (html/template writes ZgotmplZ for a CSS value it refuses), and
	// the matrix's pass cells carry their colour.
	if strings.Contains(outside, "ZgotmplZ") {
		t.Error("page holds ZgotmplZ: a style value was refused by html/template")
	}
	if !strings.Contains(s, `class="cell-pass" style="padding:2px 6px;text-align:center;border:1px solid #fff;white-space:nowrap;background:#dff0df;color:#11661b"`) {
		t.Error("the correctness matrix's pass cells lack their colour")
	}
	// Chart ids are element ids and JavaScript-safe names.
	for _, id := range []string{ChartTime, ChartRoofline, ChartConvergence, ChartXDRAM} {
		if !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(id) {
			t.Errorf("chart id %q is not a JavaScript identifier", id)
		}
	}
	if !strings.Contains(s, `var id = "`+ChartConvergence+`";`) {
		t.Error("page lacks the convergence chart's draw script")
	}
	// The summary comes before every table.
	if i, j := strings.Index(s, `id="summary"`), strings.Index(outside, "<table"); i < 0 || j < 0 || i > strings.Index(s, "<table") {
		t.Errorf("summary at %d, first table at %d: the summary must come first", i, j)
	}
	// Offline: no external script, stylesheet, image or font reference.
	for _, bad := range []string{"<script src", "<link ", "<img ", "@import", "go-echarts-assets", "cdn."} {
		if strings.Contains(outside, bad) {
			t.Errorf("page contains %q: it must work offline", bad)
		}
	}
	// The exercise variant fails by design and must not spoil the gates.
	if !strings.Contains(s, "✔ every gate passed") {
		t.Error("summary does not say every gate passed although only the exercise variant fails")
	}

	gpage, err := RenderHTML(fixtureRun(true))
	if err != nil {
		t.Fatal(err)
	}
	g := string(gpage)
	for _, want := range []string{
		`id="stage-table"`, `id="end-to-end-table"`, `id="tier-table"`, `id="` + ChartXDRAM + `"`,
		"NVIDIA H200, compute capability 9.0", "copy, 128 MiB (DRAM)", "<td>stage alone</td><td>spmv, warp per row</td>",
		"9.0, 10.0 (uncalibrated)", `<span class="gold">gold</span>`, "host syncs/iter",
		"✘ 1 row(s) failed a gate", "<li>gpu-broken on tiny: failed", `id="` + ChartRoofline + `"`, "Next change:",
	} {
		if !strings.Contains(g, want) {
			t.Errorf("GPU page lacks %q", want)
		}
	}
	if strings.Contains(g, "GPU rows skipped") {
		t.Error("GPU page says GPU rows were skipped")
	}
}

func TestSanitizeNonFiniteResult(t *testing.T) {
	run := fixtureRun(false)
	run.Results = append(run.Results, pagerank.Result{Implementation: "t1-multicore-f32", Case: "star", Iterations: 3,
		Residuals: []float64{0.5, math.NaN(), math.Inf(1)}, Sums: []float64{1, 1, math.NaN()}})
	b, err := Encode(run)
	if err != nil {
		t.Fatalf("a NaN residual must not make results.json unwritable: %v", err)
	}
	back, err := Decode[Run](b, "results.json")
	if err != nil {
		t.Fatal(err)
	}
	r := back.Results[len(back.Results)-1]
	if len(r.Residuals) != 1 || len(r.Sums) != 2 || !strings.Contains(r.Err, "residual became non-finite at index 1") {
		t.Errorf("sanitized result %+v", r)
	}
}

func TestReadJSONRejectsBadInput(t *testing.T) {
	good, err := Encode(fixtureRun(true))
	if err != nil {
		t.Fatal(err)
	}
	replace := func(old, new string) []byte {
		if !bytes.Contains(good, []byte(old)) {
			t.Fatalf("fixture JSON lacks %q", old)
		}
		return bytes.Replace(good, []byte(old), []byte(new), 1)
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "results.json: empty file"},
		{"whitespace", []byte(" \n\t"), "results.json: empty file"},
		{"truncated", good[:len(good)/2], "results.json"},
		{"syntax", []byte("{\n \"schema\": \"prlab/results/v1\",\n \"name\": x\n}"), "results.json:3:"},
		{"array", []byte("[1,2]"), "results.json:1:"},
		{"no schema", []byte(`{"name":"x"}`), "schema: missing"},
		{"other schema", replace(`"schema": "prlab/results/v1"`, `"schema": "prlab/results/v0"`), `schema: "prlab/results/v0" is not supported`},
		{"wrong type", replace(`"n": 6,`, `"n": "six",`), "results.json:49:14: cases.n: want int, got JSON string"},
		{"unknown field", replace(`"name": "fixture",`, `"name": "fixture", "extra": 1,`), `unknown field "extra"`},
		{"bad status", replace(`"status": "pass"`, `"status": "maybe"`), `correctness[0].status: "maybe" is not one of pass, fail, failed, skipped`},
		{"unknown implementation", replace(`"implementation": "t0-oracle"`, `"implementation": "t9-nope"`), `"t9-nope" is not in implementations`},
		{"bad checksum", replace(`ad409b91a9f3c7e185ec380f5f08251949d61fc0cbe9a9845d13695f28b5880b`, `XYZ`), `environment.datasets[0].sha256: "XYZ"`},
		{"bad kind", replace(`"kind": "cpu"`, `"kind": "tpu"`), `implementations[0].kind: "tpu"`},
		{"trailing data", append(append([]byte{}, good...), []byte("{}")...), "after top-level value"},
		{"non-UTF-8", replace(`"fixture"`, "\"fix\xffture\""), "results.json:3:14: not valid UTF-8"},
		{"BOM", append([]byte("\xef\xbb\xbf"), good...), ""},
	}
	for _, c := range cases {
		_, err := Decode[Run](c.data, "results.json")
		checkErrContains(t, c.name, err, c.want)
	}
	if _, err := Read[Run](t.TempDir()); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := Read[Run](filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

func TestReadCSVRejectsBadInput(t *testing.T) {
	tables, err := RunCSV(fixtureRun(true))
	if err != nil {
		t.Fatal(err)
	}
	good := tables[CorrectnessCSVFile]
	records, err := csv.NewReader(bytes.NewReader(good)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := strings.Join(records[0], ",")
	cols := records[0]
	col := func(name string) int {
		for i, c := range cols {
			if c == name {
				return i
			}
		}
		t.Fatalf("no column %q", name)
		return -1
	}
	// setCell replaces one cell of data line k (1-based line k+1 in the file).
	setCell := func(k int, name, value string) string {
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		for i, rec := range records {
			rec = append([]string{}, rec...)
			if i == k {
				rec[col(name)] = value
			}
			w.Write(rec)
		}
		w.Flush()
		return buf.String()
	}
	cases := []struct {
		name, data, want string
	}{
		{"empty", "", "correctness.csv: empty file"},
		{"header only", header + "\n", ""}, // valid: no rows
		{"missing column", strings.Replace(string(good), ",spearman,", ",rho,", 1), `correctness.csv:1: header: missing column "spearman"`},
		{"bad number", setCell(3, "spearman", "abc"), `correctness.csv:4: column spearman: want a number or an empty cell, got "abc"`},
		{"bad int", setCell(2, "n", "six"), `correctness.csv:3: column n:`},
		{"bad bool", setCell(2, "sum_pass", "maybe"), `correctness.csv:3: column sum_pass:`},
		{"bad status", setCell(1, "status", "ok"), `correctness.csv:2: column status: "ok"`},
		{"no implementation", setCell(5, "implementation", ""), `correctness.csv:6: column implementation: empty`},
		{"short line", header + "\ntiny,t0-oracle\n", "correctness.csv:2"},
	}
	for _, c := range cases {
		_, err := DecodeTable[Check]([]byte(c.data), "correctness.csv")
		checkErrContains(t, c.name, err, c.want)
	}
}

// TestHTMLCollapsesGPUSkippedRows: GPU rows skipped for the run-wide reason
// are summarised in one line per table instead of one row per case.
func TestHTMLCollapsesGPUSkippedRows(t *testing.T) {
	run := fixtureRun(false)
	why := run.GPUSkipped
	run.Implementations = append(run.Implementations, Impl{Name: "gpu-x", Label: "GPU x", Kind: KindGPU, Precision: pagerank.Float32, Reason: why})
	for _, k := range run.Cases {
		run.Correctness = append(run.Correctness, Check{Case: k.Name, Identity: Identity{Implementation: "gpu-x", Label: "GPU x", Kind: KindGPU},
			Outcome: Outcome{Status: StatusSkipped, Reason: why}, ErrOverTol: NaN, MaxRelErr: NaN, SumAndSpearman: Unvalidated(NaN)})
	}
	run.Convergence = append(run.Convergence, Convergence{Identity: Identity{Implementation: "gpu-x", Label: "GPU x", Kind: KindGPU}, Tolerance: 1e-6,
		Outcome: Outcome{Status: StatusSkipped, Reason: why}, FinalResidual: NaN, SumAndSpearman: Unvalidated(NaN)})
	page, err := RenderHTML(run)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	// Once each in the summary, under the matrix, under the folded table and in the GPU section, never per row.
	if n := strings.Count(s, why); n != 4 {
		t.Errorf("the skip reason appears %d times, want 4", n)
	}
	if !strings.Contains(s, "1 GPU implementations not shown: skipped on every case because "+why) {
		t.Error("no summary line for the skipped GPU rows")
	}
	if !strings.Contains(s, "every gate that ran passed: ") {
		t.Error("summary does not say that some rows were skipped")
	}
	for _, table := range []string{"correctness-table", "convergence-table"} {
		i := strings.Index(s, `id="`+table+`"`)
		j := strings.Index(s[i:], "</table>")
		if i < 0 || j < 0 || strings.Contains(s[i:i+j], "GPU x") {
			t.Errorf("%s still lists the skipped GPU rows", table)
		}
	}
}

func TestTopGuardQuantifiesTheTransposeCheck(t *testing.T) {
	run := &Run{Graph: GraphSummary{Nodes: 100, Edges: 500}, Top: []TopRow{{InDegree: 40, OutDegree: 2}, {InDegree: 3, OutDegree: 1}}}
	g := topGuard(run)
	for _, want := range []string{"mean in-degree 21.5", "mean out-degree 1.5", "mean degree is 5.00", "not transposed", "1 of them are cited less often"} {
		if !strings.Contains(g, want) {
			t.Errorf("guard %q lacks %q", g, want)
		}
	}
	run.Top = []TopRow{{InDegree: 1, OutDegree: 80}}
	if g := topGuard(run); !strings.Contains(g, "check the edge direction") {
		t.Errorf("transposed graph not flagged: %q", g)
	}
	// Ties are no verdict: a symmetric (undirected) graph, a graph no larger
	// than the top list, and means within the margin.
	for _, c := range []struct {
		nodes int
		top   []TopRow
		want  string
	}{
		{100, []TopRow{{InDegree: 7, OutDegree: 7}, {InDegree: 3, OutDegree: 3}}, "looks symmetric (undirected)"},
		{2, []TopRow{{InDegree: 1, OutDegree: 4}, {InDegree: 4, OutDegree: 1}}, "are all 2 nodes"},
		{100, []TopRow{{InDegree: 10, OutDegree: 11}}, "within a factor 1.25"},
	} {
		run.Graph.Nodes, run.Top = c.nodes, c.top
		g := topGuard(run)
		if !strings.Contains(g, c.want) || strings.Contains(g, "check the edge direction") || strings.Contains(g, "not transposed") {
			t.Errorf("guard %q: want %q and no direction verdict", g, c.want)
		}
	}
}

// A run of synthetic cases only (no real graph: --cases tiny,star) names
// those cases in its heading and summary, says that nothing was timed, and
// draws no empty summary table.
func TestHTMLCorrectnessOnlyRun(t *testing.T) {
	run := fixtureRun(false)
	run.Graph = GraphSummary{}
	run.Cases = []CaseSummary{{Name: "tiny", N: 6, NNZ: 9}, {Name: "star", N: 10001, NNZ: 10000, Dangling: 1}}
	run.Timings, run.Convergence, run.Top = nil, nil, nil
	page, err := RenderHTML(run)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, want := range []string{"<h1>prlab: PageRank on tiny, star (correctness only)</h1>", "Performance on tiny, star (correctness only)",
		"Only synthetic cases ran (the real graph, case aan or --graph's, was not among --cases)"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	i := strings.Index(s, `id="summary"`)
	j := strings.Index(s[i:], `<h2 id="performance"`)
	if i < 0 || j < 0 || strings.Contains(s[i:i+j], "µs / iteration") || strings.Contains(s[i:i+j], "(0 nodes") {
		t.Errorf("the summary of a correctness-only run shows the timing table or a 0-node graph:\n%s", s[i:i+max(j, 0)])
	}
	if !strings.Contains(s, "Not run: the real graph") || strings.Contains(s, "Case real: ,") || strings.Contains(s, `id="load-line"`) {
		t.Error("the real-graph section of a correctness-only run is not replaced by its not-run note")
	}
	if got := (&Run{Graph: GraphSummary{Name: "aan"}}).Subject(); got != "aan" {
		t.Errorf("Subject of a run with the real graph = %q, want aan", got)
	}
}
