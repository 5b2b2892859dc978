package report

import (
	"path/filepath"
	"testing"
)

// TestBrowserDrawsScaleCharts loads the scale page in headless chromium
// (offline: the page may request nothing but itself) and checks that its
// three charts drew axes and data series.
func TestBrowserDrawsScaleCharts(t *testing.T) {
	dir := t.TempDir()
	if err := WriteScale(dir, scaleFixture()); err != nil {
		t.Fatal(err)
	}
	stats := browserCheck(t, filepath.Join(dir, HTMLFile), screenshotPath("scale-fixture.png"))
	assertCharts(t, stats, ChartScaleTime, ChartScaleSpeedup, ChartScaleFloor)
}

// TestBrowserDrawsCPUBaselineCharts: the scale page with the committed
// 2-core CPU baseline attached (--gap-csv) draws its two charts too.
func TestBrowserDrawsCPUBaselineCharts(t *testing.T) {
	dir := t.TempDir()
	s := scaleFixture()
	if err := AttachCPUBaseline(s, dir, committedBaseline); err != nil {
		t.Fatal(err)
	}
	if err := WriteScale(dir, s); err != nil {
		t.Fatal(err)
	}
	stats := browserCheck(t, filepath.Join(dir, HTMLFile), screenshotPath("scale-cpu-baseline.png"))
	assertCharts(t, stats, ChartScaleTime, ChartScaleSpeedup, ChartScaleFloor, ChartGapVsT1, ChartT1Scaling)
}
