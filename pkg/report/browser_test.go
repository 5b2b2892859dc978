package report

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
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

// canvasStat is what the page reports about one chart's canvas.
type canvasStat struct {
	ID      string `json:"id"`
	Width   int    `json:"w"`
	Height  int    `json:"h"`
	Drawn   int    `json:"drawn"`   // pixels that differ from the white background
	Colored int    `json:"colored"` // saturated pixels (series lines and bars, not grey axes or text)
}

// countPixels runs in the page: for every chart container, the canvas's
// non-background and saturated pixel counts.
const countPixels = `Array.from(document.querySelectorAll('div[id^="chart_"]')).map(div => {
  const c = div.querySelector('canvas');
  if (!c) return {id: div.id, w: 0, h: 0, drawn: 0, colored: 0};
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let drawn = 0, colored = 0;
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i], g = d[i+1], b = d[i+2], a = d[i+3];
    if (a === 0 || (r > 250 && g > 250 && b > 250)) continue;
    drawn++;
    if (Math.max(r, g, b) - Math.min(r, g, b) > 60) colored++;
  }
  return {id: div.id, w: c.width, h: c.height, drawn: drawn, colored: colored};
})`

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
		case s.Width < 400 || s.Height < 200:
			t.Errorf("chart %s canvas is %dx%d, want at least 400x200", id, s.Width, s.Height)
		case s.Drawn < s.Width*s.Height/200:
			t.Errorf("chart %s drew %d non-background pixels of %d, want at least 0.5%%", id, s.Drawn, s.Width*s.Height)
		case s.Colored < 300:
			t.Errorf("chart %s drew %d coloured (series) pixels, want at least 300: axes only, no data?", id, s.Colored)
		default:
			t.Logf("chart %s: %dx%d canvas, %d pixels drawn, %d in series colours", id, s.Width, s.Height, s.Drawn, s.Colored)
		}
	}
}

func TestBrowserDrawsChartsOffline(t *testing.T) {
	for _, c := range []struct {
		name   string
		gpu    bool
		charts []string
	}{
		{"cpu-only", false, []string{ChartConvergence}},
		{"with-gpu", true, []string{ChartConvergence, ChartXDRAM}},
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
	run, err := ReadJSON(filepath.Join(filepath.Dir(page), JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ChartConvergence}
	if run.GPU != nil {
		want = append(want, ChartXDRAM)
	}
	assertCharts(t, browserCheck(t, page, screenshotPath("report.png")), want...)
}
