package report

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// findChromium returns Debian's chromium (or another Chrome) on PATH. Without
// one the browser tests skip locally, but fail under CI (CI=true), where
// .ci/run installs it.
func findChromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found, but CI is set: .ci/run must install it (apt-get install -y chromium)")
	}
	t.Skip("chromium not found: install it with `apt-get install -y chromium` to run the browser test")
	return ""
}

// canvasStat is what the page reports about one chart: its canvas, its
// ECharts option and its drawn text.
type canvasStat struct {
	ID      string   `json:"id"`
	Width   int      `json:"w"`
	Height  int      `json:"h"`
	Drawn   int      `json:"drawn"`   // pixels that differ from the white background
	Colored int      `json:"colored"` // saturated pixels (series lines and bars, not grey axes or text)
	Series  []int    `json:"series"`  // data length of every series in the chart's option
	Legends []string `json:"legends"` // type of every legend ("plain", "scroll")
	// Outside lists every text the chart drew (axis labels and names, titles,
	// legend entries, data labels) whose box leaves the chart's area.
	Outside []string `json:"outside"`
	// Overlaps lists every two data labels (a text attached to a drawn
	// element: a point's or a bar's name) whose boxes overlap.
	Overlaps []string `json:"overlaps"`
	// Labels counts the data labels the overlap check measured (a width > 0).
	Labels int `json:"labels"`
	// Short counts those measured under 8 px tall: without a CJK font headless Chromium 156 measures 4 px
	// lines, which no layout or overlap check can work with.
	Short int `json:"short"`
}

// countPixels runs in the page: for every chart container, the canvas's
// non-background and saturated pixel counts, the series and legends of its
// ECharts option, and every text element (zrender's display list) whose
// bounding box, in canvas coordinates, is not inside the chart.
const countPixels = `Array.from(document.querySelectorAll('div.prlab-chart')).map(div => {
  const c = div.querySelector('canvas');
  const inst = window.echarts && window.echarts.getInstanceByDom(div);
  const o = inst ? inst.getOption() : {};
  const series = (o.series || []).map(s => (s.data || []).length);
  const legends = (o.legend || []).map(l => l.type || 'plain');
  const outside = [], overlaps = [], labels = [];
  let short = 0; // data labels under 8 px tall: no font with zrender's measuring glyph (国)
  if (inst) {
    const W = inst.getWidth(), H = inst.getHeight();
    inst.getZr().storage.getDisplayList(true).forEach(el => {
      if ((el.type !== 'tspan' && el.type !== 'text') || el.invisible || !el.style || !el.style.text) return;
      const r = el.getBoundingRect().clone();
      el.updateTransform && el.updateTransform();
      if (el.transform) r.applyTransform(el.transform);
      if (r.width > 0 && (r.x < -1 || r.y < -1 || r.x + r.width > W + 1 || r.y + r.height > H + 1)) {
        outside.push(String(el.style.text) + ' at ' + [r.x, r.y, r.width, r.height].map(Math.round).join(','));
      }
      // A data label is a text whose parent is attached to a drawn element.
      if ((el.__hostTarget || (el.parent && el.parent.__hostTarget)) && r.width > 0) {
        labels.push({t: String(el.style.text), r: r});
        if (r.height < 8) short++;
      }
    });
    labels.forEach((a, i) => labels.slice(i + 1).forEach(b => {
      const dx = Math.min(a.r.x + a.r.width, b.r.x + b.r.width) - Math.max(a.r.x, b.r.x);
      const dy = Math.min(a.r.y + a.r.height, b.r.y + b.r.height) - Math.max(a.r.y, b.r.y);
      if (dx > 1 && dy > 1) overlaps.push(a.t + ' and ' + b.t + ' (' + Math.round(dx) + 'x' + Math.round(dy) + ' px)');
    }));
  }
  if (!c) return {id: div.id, w: 0, h: 0, drawn: 0, colored: 0, series: series, legends: legends, outside: outside, overlaps: overlaps, labels: labels.length, short: short};
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let drawn = 0, colored = 0;
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i], g = d[i+1], b = d[i+2], a = d[i+3];
    if (a === 0 || (r > 250 && g > 250 && b > 250)) continue;
    drawn++;
    if (Math.max(r, g, b) - Math.min(r, g, b) > 60) colored++;
  }
  return {id: div.id, w: c.width, h: c.height, drawn: drawn, colored: colored, series: series, legends: legends, outside: outside, overlaps: overlaps, labels: labels.length, short: short};
})`

// pageOrder runs in the page: the top of the summary and of the correctness
// section, in page pixels (-1 when missing).
const pageOrder = `(() => {
  const top = id => { const e = document.getElementById(id); return e ? e.getBoundingClientRect().top + window.scrollY : -1; };
  return {summary: top('summary'), correctness: top('correctness')};
})()`

// browserCheck loads page (a file path) in headless chromium and returns the
// canvas statistics of its charts, after checking that the page sent no
// request other than its own file and threw no JavaScript exception. When
// shot is not empty, a full-page screenshot is written there.
func browserCheck(t *testing.T, page, shot string) []canvasStat {
	t.Helper()
	exe := findChromium(t)
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	pageURL := "file://" + filepath.ToSlash(abs)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Headless, // --headless
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()), // a fresh profile every run
		chromedp.WindowSize(1200, 900),
	)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()

	var mu sync.Mutex
	var requests, exceptions []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests = append(requests, e.Request.URL)
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			msg := fmt.Sprintf("%s at line %d:%d", d.Text, d.LineNumber+1, d.ColumnNumber+1)
			if d.Exception != nil {
				msg += ": " + d.Exception.Description
			}
			exceptions = append(exceptions, msg)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(pageURL)); err != nil {
		t.Fatalf("navigate %s: %v", pageURL, err)
	}
	// ECharts paints on the next animation frame; wait until every chart
	// container holds a canvas with something on it.
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	if _, err := chromedp.Run(wctx, chromedp.Poll[bool](`(`+countPixels+`).every(s => s.drawn > 0)`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("charts never drew: %v; JavaScript exceptions: %q", err, exceptions)
	}
	stats, err := chromedp.Run(ctx, chromedp.Evaluate[[]canvasStat](countPixels))
	if err != nil {
		t.Fatal(err)
	}
	order, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]float64](pageOrder))
	if err != nil {
		t.Fatal(err)
	}
	switch sum, cor := order["summary"], order["correctness"]; {
	case sum < 0:
		t.Errorf("%s has no element with id=summary", page)
	case cor >= 0 && sum > cor:
		t.Errorf("%s: the summary (y = %.0f) is below the correctness section (y = %.0f)", page, sum, cor)
	}
	if shot != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(shot, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", shot)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, u := range requests {
		if u != pageURL && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page requested %s: a report must make no network request", u)
		}
	}
	if len(requests) == 0 {
		t.Error("saw no request at all, not even the page itself: the network listener is not working")
	}
	for _, e := range exceptions {
		t.Errorf("JavaScript exception: %s", e)
	}
	return stats
}

// screenshotPath is where a test writes a screenshot: $PRLAB_SCREENSHOT_DIR/name, or "" (none).
func screenshotPath(name string) string {
	if dir := os.Getenv("PRLAB_SCREENSHOT_DIR"); dir != "" {
		return filepath.Join(dir, name)
	}
	return ""
}

// assertCharts checks that exactly the charts named in want are on the page
// and that each drew its axes and its data series.
func assertCharts(t *testing.T, stats []canvasStat, want ...string) {
	t.Helper()
	got := map[string]canvasStat{}
	for _, s := range stats {
		got[s.ID] = s
	}
	if len(stats) != len(want) {
		t.Errorf("page has %d charts %v, want %v", len(stats), stats, want)
	}
	for _, id := range want {
		s, ok := got[id]
		switch {
		case !ok:
			t.Errorf("chart %s missing from the page", id)
		case s.Width < 400 || s.Height < 120:
			t.Errorf("chart %s canvas is %dx%d, want at least 400x120", id, s.Width, s.Height)
		case s.Drawn < s.Width*s.Height/200:
			t.Errorf("chart %s drew %d non-background pixels of %d, want at least 0.5%%", id, s.Drawn, s.Width*s.Height)
		case s.Colored < 50:
			t.Errorf("chart %s drew %d coloured (series) pixels, want at least 50: axes only, no data?", id, s.Colored)
		case len(s.Series) == 0 || slices.Contains(s.Series, 0):
			t.Errorf("chart %s: series data lengths %v, want every series with data", id, s.Series)
		default:
			t.Logf("chart %s: %dx%d canvas, %d pixels drawn, %d in series colours, series lengths %v", id, s.Width, s.Height, s.Drawn, s.Colored, s.Series)
		}
		for _, l := range s.Legends {
			if l != "plain" {
				t.Errorf("chart %s has a %q legend: a paginated legend hides entries; want plain", id, l)
			}
		}
		for _, o := range s.Outside {
			t.Errorf("chart %s draws text outside its area: %s", id, o)
		}
		for _, o := range s.Overlaps {
			t.Errorf("chart %s prints two names over each other: %s", id, o)
		}
	}
}

func TestBrowserDrawsChartsOffline(t *testing.T) {
	for _, c := range []struct {
		name   string
		gpu    bool
		charts []string
	}{
		{"cpu-only", false, []string{ChartTime, ChartConvergence}},
		{"with-gpu", true, []string{ChartTime, ChartRoofline, ChartXDRAM, ChartConvergence}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := Write(dir, fixtureRun(c.gpu)); err != nil {
				t.Fatal(err)
			}
			stats := browserCheck(t, filepath.Join(dir, HTMLFile), screenshotPath("fixture-"+c.name+".png"))
			assertCharts(t, stats, c.charts...)
		})
	}
}

// TestBrowserRealReport checks a report generated by `prlab report` when
// PRLAB_REPORT_HTML names its index.html (e.g. reports/latest/index.html).
func TestBrowserRealReport(t *testing.T) {
	page := os.Getenv("PRLAB_REPORT_HTML")
	if page == "" {
		t.Skip("set PRLAB_REPORT_HTML to a generated index.html to check it in the browser")
	}
	run, err := Read[Run](filepath.Join(filepath.Dir(page), JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	assertCharts(t, browserCheck(t, page, screenshotPath("report.png")), wantCharts(run)...)
}

// wantCharts are the charts index.html draws for run.
func wantCharts(run *Run) []string {
	var want []string
	for _, c := range []struct {
		id    string
		chart *Chart
	}{{ChartTime, TimeChart(run)}, {ChartRoofline, RooflineChart(run)}, {ChartXDRAM, XDRAMChart(run)}, {ChartConvergence, ConvergenceChart(run)}} {
		if c.chart != nil {
			want = append(want, c.id)
		}
	}
	return want
}

// TestBrowserCommittedReports re-renders every committed report
// (reports/*/results.json and reports/*/scale.json) with this code and
// checks each page in the browser: summary first, every chart drew every
// series, no paginated legend, no text outside a chart.
func TestBrowserCommittedReports(t *testing.T) {
	findChromium(t)
	n := browserCommitted(t, JSONFile, Read[Run], RenderHTML, wantCharts)
	n += browserCommitted(t, ScaleJSONFile, Read[ScaleStudy], RenderScaleHTML, func(s *ScaleStudy) []string {
		var want []string
		for _, m := range []ScaleMetric{ScaleTime, ScaleSpeedup, ScaleFloor} {
			if ScaleChart(s, m) != nil {
				want = append(want, m.ID)
			}
		}
		return want
	})
	if n == 0 {
		t.Skip("no committed report under reports/")
	}
}

// browserCommitted re-renders every committed reports/*/file and
// reports/*/*/file (read, then render) in a subtest and checks the page in
// the browser for the charts want names; it returns how many it found.
func browserCommitted[T any](t *testing.T, file string, read func(string) (*T, error), render func(*T) ([]byte, error), want func(*T) []string) int {
	paths, _ := filepath.Glob("../../reports/*/" + file)
	deeper, _ := filepath.Glob("../../reports/*/*/" + file)
	paths = append(paths, deeper...)
	for _, p := range paths {
		name := strings.ReplaceAll(strings.TrimPrefix(filepath.Dir(p), "../../reports/"), "/", "-")
		t.Run(name, func(t *testing.T) {
			doc, err := read(p)
			if err != nil {
				t.Fatal(err)
			}
			page, err := render(doc)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), HTMLFile)
			if err := os.WriteFile(out, page, 0o644); err != nil {
				t.Fatal(err)
			}
			assertCharts(t, browserCheck(t, out, screenshotPath("committed-"+name+".png")), want(doc)...)
		})
	}
	return len(paths)
}

// TestBrowserSeesTextOutsideAChart is the control for assertCharts' overflow
// check: an axis name pushed past the bottom edge must be reported.
func TestBrowserSeesTextOutsideAChart(t *testing.T) {
	findChromium(t)
	c := TimeChart(fixtureRun(false))
	bar := c.Chart.(*charts.Bar)
	bar.SetGlobalOptions(charts.WithXAxisOpts(opts.XAxis{Type: "log", Name: "a name pushed below the chart", NameLocation: "middle", NameGap: 400, Min: 1}))
	frag, err := c.HTML()
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "control.html")
	html := "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><script>" + echartsJS + "</script></head><body><div id=\"summary\"></div>" + string(frag) + "</body></html>"
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	stats := browserCheck(t, page, "")
	if len(stats) != 1 || len(stats[0].Outside) == 0 {
		t.Fatalf("the overflow check missed an axis name drawn 400 px below the axis: %+v", stats)
	}
	if !strings.Contains(strings.Join(stats[0].Outside, ";"), "a name pushed below the chart") {
		t.Errorf("reported %v, want the pushed axis name", stats[0].Outside)
	}
}

// TestBrowserRooflineNamesDoNotOverlap: on run4's roofline (18 designs, 8
// of them in one column of 1,024,876 bytes, and names of neighbouring
// columns reaching into each other) no two design names overlap at a wide
// and at a narrow page; and with every design moved onto one point the check
// sees their names overlap without the label layout (the control) and the
// layout still separates them. zrender measures a line's height as the width
// of a CJK glyph (国): without a CJK font Debian's headless Chromium 156
// measures 4 px lines, and the test fails naming the font to install (the CI
// installs fonts-wqy-microhei).
func TestBrowserRooflineNamesDoNotOverlap(t *testing.T) {
	findChromium(t)
	run, err := Read[Run](filepath.Join("..", "..", "reports", "h200-2026-12-02-run4", JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	page := func(c *Chart, width string) string {
		frag, err := c.HTML()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "roofline.html")
		html := "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><script>" + echartsJS + "</script></head><body style=\"width:" + width + "\"><div id=\"summary\"></div>" + string(frag) + "</body></html>"
		if err := os.WriteFile(p, []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, width := range []string{"1000px", "700px"} {
		stats := browserCheck(t, page(RooflineChart(run), width), screenshotPath("roofline-"+width+".png"))
		if len(stats) == 1 && stats[0].Short > 0 {
			t.Fatalf("%d of %d names measured under 8 px tall: the browser has no CJK font (apt-get install -y fonts-wqy-microhei)", stats[0].Short, stats[0].Labels)
		}
		if len(stats) != 1 || stats[0].Labels < 18 || len(stats[0].Overlaps) > 0 {
			t.Errorf("%s wide: %v; want 18 names measured, none overlapping", width, stats)
		}
	}
	// The control: every design moved onto one point (the same bytes and time). Drawn without the label
	// layout, names on one side of one point print over each other whatever the fonts; with it, none do.
	one := *run
	one.Timings = append([]TimingRow(nil), run.Timings...)
	first := -1
	for i, tr := range one.Timings {
		if tr.Kind != KindGPU || tr.Status != StatusPass || tr.BytesPerIteration <= 0 {
			continue
		}
		if first < 0 {
			first = i
		}
		one.Timings[i].Timing, one.Timings[i].BytesPerIteration = one.Timings[first].Timing, one.Timings[first].BytesPerIteration
	}
	bare := RooflineChart(&one)
	bare.OptionJS = ""
	stats := browserCheck(t, page(bare, "1000px"), "")
	if len(stats) != 1 || len(stats[0].Overlaps) == 0 {
		t.Fatalf("without its label layout the names of designs on one point overlap nowhere? %+v", stats)
	}
	if with := browserCheck(t, page(RooflineChart(&one), "1000px"), screenshotPath("roofline-one-point.png")); len(with) != 1 || len(with[0].Overlaps) > 0 {
		t.Errorf("the names of designs on one point overlap with the label layout: %v", with)
	}
	t.Logf("without the label layout: %s", strings.Join(stats[0].Overlaps, "; "))
}
