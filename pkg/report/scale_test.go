package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

func scaleFixture() *ScaleStudy {
	row := func(graph, family string, scale, nnz int, impl, kind string, ms float64) ScaleRow {
		r := ScaleRow{Family: family, Scale: scale, Graph: graph, GraphSize: GraphSize{N: 1 << scale, NNZ: nnz}, Identity: Identity{Implementation: impl, Kind: kind, Precision: pagerank.Float32}, Outcome: Outcome{Status: StatusPass}, Reference: "t0-oracle", ErrOverTol: 0.01, SumMinus1: 1e-7, Spearman: 1,
			Timing: pagerank.NewTiming(10, 1, []float64{10 * ms, 10 * ms, 10 * ms}, "wall"), MsPerIter: F(ms),
			GTEPS: F(GTEPS(nnz, ms)), NsPerEdge: F(ms * 1e6 / float64(nnz)), FloorBytes: 1000, CopyRow: "copy", CopyGBps: 100,
			FloorMs: 1e-5, FloorFraction: F(1e-5 / ms), SpeedupVsCPU: NaN}
		return r
	}
	gpu := row("rmat16", FamilyRMAT, 16, 1000000, "gpu-x", KindGPU, 0.05)
	gpu.SpeedupVsCPU = 20
	gpu17 := row("rmat17", FamilyRMAT, 17, 2000000, "gpu-x", KindGPU, 0.06)
	gpu17.SpeedupVsCPU = 40
	skipped := row("rmat16", FamilyRMAT, 16, 1000000, "t0-oracle", KindCPU, 1)
	skipped.Status, skipped.Reason, skipped.MsPerIter, skipped.Timing = StatusSkipped, "t0-oracle skipped from this size on", NaN, pagerank.Timing{}
	return &ScaleStudy{StudyHeader: StudyHeader{Schema: ScaleSchema, Name: "scale-test", Env: Environment{Date: "2026-01-01T00:00:00Z", CPUCores: 2}}, Complete: true,
		Protocol: ScaleProtocol{Damping: 0.85, MinScale: 16, MaxScale: 16, Grid: true, BudgetS: 60, OracleRule: "stated"},
		Plan:     []string{"plan: 2 graphs"},
		Bandwidth: []pagerank.Stage{{Name: "CPU memcpy, 1 MiB, 1 goroutine", Ms: 0.1, Bytes: 2 << 20, GBps: 20.97152},
			{Name: "weird", Ms: math.NaN(), Bytes: 1}},
		Graphs: []ScaleGraph{{Family: FamilyRMAT, Scale: 16, Name: "rmat16", GraphSize: GraphSize{N: 65536, NNZ: 1000000}, Reference: "t1-multicore-f64", ReferenceNote: "oracle skipped"},
			{Family: FamilyGrid, Scale: 16, Name: "grid256", GraphSize: GraphSize{N: 65536, NNZ: 261120}, Reference: "t0-oracle", BuildMs: math.Inf(1)},
			{Family: FamilyRMAT, Scale: 17, Name: "rmat17", GraphSize: GraphSize{N: 131072, NNZ: 2000000}, Reference: "t0-oracle"}},
		Rows: []ScaleRow{row("rmat16", FamilyRMAT, 16, 1000000, "t1-multicore-f32", KindCPU, 1), gpu, skipped,
			row("grid256", FamilyGrid, 16, 261120, "t1-multicore-f32", KindCPU, 0.2),
			row("rmat17", FamilyRMAT, 17, 2000000, "t1-multicore-f32", KindCPU, 2.4), gpu17},
		Goals: []Goal{{Name: "g", Target: "t", Measured: "m", Value: NaN, Limit: 1.9, Status: GoalNotMeasured}},
	}
}

func TestScaleRoundTripAndPage(t *testing.T) {
	s := scaleFixture()
	dir := t.TempDir()
	if err := WriteScale(dir, s); err != nil {
		t.Fatal(err)
	}
	back, err := Read[ScaleStudy](filepath.Join(dir, ScaleJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if back.Rows[1].SpeedupVsCPU != 20 || back.Rows[0].SpeedupVsCPU.Valid() || back.Graphs[1].BuildMs != 0 || back.Bandwidth[1].Ms != 0 {
		t.Errorf("read back %+v", back.Rows[1])
	}
	rows, err := ReadTable[ScaleRow](filepath.Join(dir, ScaleRowsCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 || rows[0].MsPerIter != 1 || rows[0].GTEPS != 1 || rows[0].Timing.Iterations != s.Rows[0].Timing.Iterations || rows[0].Identity != s.Rows[0].Identity {
		t.Errorf("%s rows %+v", ScaleRowsCSVFile, rows)
	}
	for file, want := range map[string]int{ScaleGraphsCSVFile: 3, ScaleBandwidthCSVFile: 2, ScaleGoalsCSVFile: 1} {
		if b, err := os.ReadFile(filepath.Join(dir, file)); err != nil || bytes.Count(b, []byte("\n"))-1 != want {
			t.Errorf("%s: %v, want %d rows:\n%s", file, err, want, b)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for _, want := range []string{ChartScaleTime, ChartScaleSpeedup, ChartScaleFloor, "oracle skipped", "t0-oracle skipped from this size on",
		"not measured", "grid256", "10 x 3", "20.00x", "s of a 60 s budget</p>"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("page lacks %q", want)
		}
	}
	if bytes.Contains(page, []byte("http://")) && !bytes.Contains(page, []byte("echarts")) {
		t.Error("page refers to the network")
	}
}

// A study timed with --rung says so in the page's header instead of a
// budget it did not apply.
func TestScalePageHeaderSaysTheFixedRung(t *testing.T) {
	s := scaleFixture()
	s.Protocol.Rung = "50x5"
	dir := t.TempDir()
	if err := WriteScale(dir, s); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	if want := []byte(" s, every row timed as 50 iterations × 5 runs after one warm-up (--rung 50x5, no time budget)</p>"); !bytes.Contains(page, want) {
		t.Errorf("page lacks %q", want)
	}
	if bytes.Contains(page, []byte("s budget</p>")) {
		t.Error("a --rung study's header names a time budget")
	}
}

// A study from before protocol.rung was recorded is read as a --rung study
// only when its rows say so: one protocol for every timed row (a CPU row's
// K-1 iterations counted as K) that is no step of the budget's ladder.
func TestScaleFixedRungFromRows(t *testing.T) {
	timed := func(s *ScaleStudy, it, warm, runs int) *ScaleStudy {
		for i := range s.Rows {
			if len(s.Rows[i].Timing.RunsMs) == 0 {
				continue
			}
			k := it
			if s.Rows[i].Kind == KindCPU {
				k-- // the difference of a K- and a 1-iteration run
			}
			s.Rows[i].Timing = pagerank.NewTiming(k, warm, make([]float64, runs), "wall")
		}
		return s
	}
	for _, c := range []struct {
		name string
		s    *ScaleStudy
		want string
	}{
		{"fixture: every row 10x3, a ladder step", scaleFixture(), ""},
		{"every row 50x5, one warm-up", timed(scaleFixture(), 50, 1, 5), "50x5"},
		{"every row the course protocol", timed(scaleFixture(), 50, 3, 10), ""},
		{"every row 20x5, a ladder step", timed(scaleFixture(), 20, 1, 5), ""},
		{"every row 7x2", timed(scaleFixture(), 7, 1, 2), "7x2"},
		{"one row differs", func() *ScaleStudy {
			s := timed(scaleFixture(), 50, 1, 5)
			s.Rows[1].Timing = pagerank.NewTiming(20, 1, make([]float64, 5), "cuda-events")
			return s
		}(), ""},
		{"recorded", func() *ScaleStudy { s := scaleFixture(); s.Protocol.Rung = "10x3"; return s }(), "10x3"},
	} {
		got := ""
		if r := c.s.FixedRung(); r != nil {
			got = r.String()
		}
		if got != c.want {
			t.Errorf("%s: FixedRung() = %q, want %q", c.name, got, c.want)
		}
	}
	// The committed study of propagation blocking ran --rung 50x5 before
	// protocol.rung existed (its README and logs/scale.log say so).
	s, err := Read[ScaleStudy](filepath.Join("..", "..", "reports", "h200-scale-propblock-2026-12-02", ScaleJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if r := s.FixedRung(); s.Protocol.Rung != "" || r == nil || *r != (ScaleRung{50, 1, 5}) {
		t.Errorf("propblock study: protocol.rung %q, FixedRung %v; want \"\" and 50x5 after one warm-up", s.Protocol.Rung, r)
	}
	page, err := RenderScaleHTML(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{" s, every row timed as 50 iterations × 5 runs after one warm-up (--rung 50x5, no time budget)</p>", "<td>every row 50 iterations × 5 runs after one warm-up (--rung 50x5: no row fitted"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("propblock page lacks %q", want)
		}
	}
	if bytes.Contains(page, []byte("s budget</p>")) || bytes.Contains(page, []byte("where the budget allows")) {
		t.Error("propblock page names a time budget it did not apply")
	}
}

func TestScaleReadersReject(t *testing.T) {
	good, err := Encode(scaleFixture())
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ data, want string }{
		"empty":   {"", "empty file"},
		"schema":  {`{"schema": "prlab/results/v1"}`, "not supported"},
		"unknown": {strings.Replace(string(good), `"name":`, `"nmae": 1, "name":`, 1), "unknown field"},
		"status":  {strings.Replace(string(good), `"status": "skipped"`, `"status": "maybe"`, 1), "rows[2].status"},
		"graph":   {strings.Replace(string(good), `"graph": "grid256"`, `"graph": "nope"`, 1), "not in graphs"},
		"goal":    {strings.Replace(string(good), `"status": "not measured"`, `"status": "perhaps"`, 1), "goals[0].status"},
		"rung":    {strings.Replace(string(good), `"budget_s": 60,`, `"budget_s": 60, "rung": "50 x 5",`, 1), `protocol.rung: "50 x 5", want ITERATIONSxRUNS`},
	} {
		_, err := Decode[ScaleStudy]([]byte(c.data), "scale.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	tables, _ := ScaleCSV(scaleFixture())
	bad := strings.Replace(string(tables[ScaleGoalsCSVFile]), ",not measured,", ",perhaps,", 1)
	if _, err := DecodeTable[Goal]([]byte(bad), ScaleGoalsCSVFile); err == nil || !strings.Contains(err.Error(), ScaleGoalsCSVFile+`:2: column status: "perhaps"`) {
		t.Errorf("bad goal status: %v", err)
	}
	if _, err := DecodeTable[ScaleRow]([]byte("family,foo\n"), ScaleRowsCSVFile); err == nil || !strings.Contains(err.Error(), "missing column") {
		t.Errorf("bad header: %v", err)
	}
}

// The compressed-stream floor: the rows table shows its fraction (— for a
// report from before it was computed) and the findings say which floor the
// fastest GPU row beats.
func TestScaleCodeFloor(t *testing.T) {
	s := scaleFixture()
	table := ScaleRowsTable(s)
	if !strings.Contains(table, ">code-floor fraction</th>") {
		t.Errorf("no code-floor column: %s", table)
	}
	if f := strings.Join(ScaleFindings(s), "\n"); strings.Contains(f, "compressed-stream floor") {
		t.Errorf("findings name a code floor the report has none of: %s", f)
	}
	for i := range s.Rows { // 0.06 ms on rmat17: byte floor 0.02 ms, code floor 0.012 ms
		r := &s.Rows[i]
		if !r.MsPerIter.Valid() {
			continue
		}
		r.FloorMs, r.CodeFloorBytes, r.CodeFloorMs = 0.02, 600, 0.012
		r.FloorFraction, r.CodeFloorFraction = r.FloorMs/r.MsPerIter, r.CodeFloorMs/r.MsPerIter
	}
	// Every timed row's — becomes its fraction (5 of 6: the skipped row has no time).
	after := ScaleRowsTable(s)
	if d := strings.Count(table, ">—</td>") - strings.Count(after, ">—</td>"); d != 5 || !strings.Contains(after, ">0.200</td>") {
		t.Errorf("%d cells got a code-floor fraction, want 5 (rmat17's gpu-x 0.012/0.06 = 0.200): %s", d, after)
	}
	want := "0.333 of the byte floor (byte floor = the 1,000 bytes one iteration must move / the measured copy rate, 100 GB/s = 0.02 ms; 1 = at the floor) and 0.200 of the compressed-stream floor (600 bytes: the 16-bit column code's 2 bytes per edge in place of 4, 0.012 ms); it beats neither floor"
	if f := ScaleFindings(s)[0]; !strings.Contains(f, want) {
		t.Errorf("finding %q\nwant it to contain %q", f, want)
	}
	for _, c := range []struct {
		floor, code F
		want        string
	}{{1.5, 0.9, "it beats the byte floor, not the compressed-stream floor"}, {2, 1.2, "it beats both floors"}, {0.3, 0.2, "it beats neither floor"}} {
		if got := beaten(ScaleRow{FloorFraction: c.floor, CodeFloorFraction: c.code}); got != c.want {
			t.Errorf("fractions %v, %v: %q, want %q", c.floor, c.code, got, c.want)
		}
	}
}
