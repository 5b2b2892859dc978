package report

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
)

// The incremental page's charts give every series its implementation's
// colour (ImplColour), as every other chart does: the committed H200 study
// drew gpu-cusparse green on one chart and red on the other, against its
// blue everywhere else.
func TestIncrementalChartsUseImplementationColours(t *testing.T) {
	s, err := Read[IncrementalStudy](filepath.Join("..", "..", "reports", "incremental-h200-2026-12-02", IncrementalJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	speed, iter := IncrementalSpeedupLine(s), IncrementalIterationsLine(s)
	if speed == nil || iter == nil {
		t.Fatal("no chart drawn from the committed study")
	}
	checked := 0
	for chart, series := range map[string][]charts.SingleSeries{"speed-up": speed.MultiSeries, "iterations": iter.MultiSeries} {
		for _, x := range series {
			if strings.HasPrefix(x.Name, "break-even") {
				continue
			}
			impl := ""
			for _, im := range []string{"gpu-cusparse", "gpu-warp-per-row"} {
				if strings.Contains(x.Name, im) {
					impl = im
				}
			}
			if impl == "" || x.LineStyle == nil || x.ItemStyle == nil {
				t.Errorf("%s chart: series %q: no implementation of the study or no colour set", chart, x.Name)
				continue
			}
			if want := ImplColour(impl); x.LineStyle.Color != want || x.ItemStyle.Color != want {
				t.Errorf("%s chart: series %q line %q, points %q; want %s's colour %s", chart, x.Name, x.LineStyle.Color, x.ItemStyle.Color, impl, want)
			}
			checked++
		}
	}
	if checked != 8 { // speed-up: 2 workloads x 2 implementations; iterations: warm and cold x 2
		t.Errorf("%d series checked, want 8", checked)
	}
}

// The incremental page's wide tables scroll in their own box, as the other
// pages' do: the committed H200 study's random-batch table (16 columns) made
// the whole page scroll sideways at 1400 px.
func TestIncrementalWideTablesScrollInTheirBox(t *testing.T) {
	s, err := Read[IncrementalStudy](filepath.Join("..", "..", "reports", "incremental-h200-2026-12-02", IncrementalJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	page, err := RenderIncrementalHTML(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"by-year-table", "random-table", "batch-table"} {
		if !strings.Contains(string(page), `<div class="scroll"><table id="`+id+`">`) {
			t.Errorf("table %s is not in a scroll box", id)
		}
	}
	if !strings.Contains(string(page), ".scroll { overflow-x: auto;") {
		t.Error("the page has no .scroll style")
	}
}

// A skipped incremental row (a GPU tier without the CUDA library) has no ρ:
// the comparison shows "—" for it, not "rerun 0.000000 (gate 0.999)".
func TestIncrementalSkippedRowHasNoSpearman(t *testing.T) {
	path := filepath.Join("..", "..", "reports", "incremental-h200-2026-12-02", IncrementalJSONFile)
	a, err := Read[IncrementalStudy](path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Read[IncrementalStudy](path)
	for i := range b.Rows {
		b.Rows[i].Status, b.Rows[i].Reason, b.Rows[i].WarmCheck = StatusSkipped, "the CUDA library is not built", GateCheck{}
	}
	v := Compare(EvidenceOfIncremental(a, path), EvidenceOfIncremental(b, path), Options{})
	n := 0
	for _, g := range v.Gates {
		if g.Gate == GateSpearman || g.Gate == GateSum {
			n++
			if g.Pass || g.Rerun != "—" {
				t.Errorf("%s: rerun %q, pass %v; want — and a failed gate", g, g.Rerun, g.Pass)
			}
		}
	}
	if n == 0 {
		t.Error("no ρ or sum gate compared")
	}
}

// A skipped row of the by-year and random-batch tables (a GPU tier without
// the CUDA library) shows "—" for its iterations and times, not measured
// zeros ("0 0 0.000 0.000"), and points to the skip reason the summary
// gives once instead of repeating it; a measured row keeps its numbers.
func TestIncrementalSkippedRowShowsNoTimes(t *testing.T) {
	s, err := Read[IncrementalStudy](filepath.Join("..", "..", "reports", "incremental-h200-2026-12-02", IncrementalJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Rows {
		if s.Rows[i].Implementation == "gpu-cusparse" {
			// as a run without a GPU records it: no times but the batch's rebuild
			nan := F(math.NaN())
			s.Rows[i] = IncrementalRow{BatchID: BatchID{Workload: s.Rows[i].Workload, Batch: s.Rows[i].Batch}, Year: s.Rows[i].Year, Identity: s.Rows[i].Identity,
				BatchKind: s.Rows[i].BatchKind, Outcome: Outcome{Status: StatusSkipped, Reason: "the CUDA library is not built"}, BuildMs: s.Rows[i].BuildMs,
				UpdateMs: nan, LoadMs: nan, IncrementalMs: nan, RecomputeMs: nan, Speedup: nan}
		}
	}
	s.GPUSkipped = "the CUDA library is not built"
	page, err := RenderIncrementalHTML(s)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), s.GPUSkipped); n != 1 {
		t.Errorf("the GPU skip reason is on the page %d times, want once (the summary); each row says \"no GPU here\"", n)
	}
	// 26 + 2 rows skipped, none failed: the summary counts them apart, green.
	if want := `<span class="pass">28 of 56 rows pass</span> (28 skipped) every gate`; !strings.Contains(string(page), want) {
		t.Errorf("summary does not say %q", want)
	}
	dash := `<td class="num">—</td><td class="num">—</td><td class="num">—</td><td class="num">—</td>`
	for _, id := range []string{"by-year-table", "random-table"} {
		p := string(page)
		i := strings.Index(p, `<table id="`+id+`">`)
		if i < 0 {
			t.Fatalf("no %s", id)
		}
		table := p[i : i+strings.Index(p[i:], "</table>")]
		var skipped, measured int
		for _, row := range strings.Split(table, "<tr>") {
			switch {
			case strings.Contains(row, "<code>gpu-cusparse</code>"):
				skipped++
				if !strings.Contains(row, dash) || strings.Contains(row, ">0.000<") || !strings.Contains(row, "no GPU here (the reason is above)") {
					t.Errorf("%s: skipped row shows numbers: %.400s", id, row)
				}
			case strings.Contains(row, "<code>gpu-warp-per-row</code>"):
				measured++
				if strings.Contains(row, dash) {
					t.Errorf("%s: measured row shows dashes: %.400s", id, row)
				}
			}
		}
		if skipped == 0 || measured == 0 {
			t.Errorf("%s: %d skipped and %d measured rows, want both", id, skipped, measured)
		}
	}
}
