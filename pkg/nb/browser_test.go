package nb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestNotebookInBrowser does what a user does: it starts the classic Jupyter
// Notebook server on 127.0.0.1 with a token, opens a notebook in headless
// Chromium, chooses Cell > Run All, waits until the GoNB kernel has run every
// cell, checks that no cell shows an error, and checks that the ECharts
// canvas of the notebook's chart has drawn pixels.
//
// The notebook is a copy (notebooks/zz-browser-test-*.ipynb, removed at the
// end; copyNotebook), so the server's autosave never touches a committed notebook.
// PRLAB_NOTEBOOK_TEST_NB picks the notebook (default 04-dangling-exercise);
// PRLAB_NOTEBOOK_SCREENSHOT=path.png saves a screenshot of the page.
func TestNotebookInBrowser(t *testing.T) {
	root := browserTestRoot(t, EnvBrowserTest, "(make notebooks-test) to run the notebook in Jupyter + headless Chromium")
	name := os.Getenv("PRLAB_NOTEBOOK_TEST_NB")
	if name == "" {
		name = "04-dangling-exercise"
	}
	copyName := copyNotebook(t, root, name, "zz-browser-test")

	chromium, python := browserTestTools(t)

	// The server: classic Notebook, loopback only, a random token, no browser.
	jdir := t.TempDir()
	base, token := startJupyter(t, root, jdir, "jupyter notebook", []string{"JUPYTER_RUNTIME_DIR=" + filepath.Join(jdir, "runtime")},
		func(port int, token string) *exec.Cmd {
			return exec.Command(python, "-m", "notebook", "--no-browser",
				"--ip=127.0.0.1", fmt.Sprintf("--port=%d", port), "--port-retries=0",
				"--NotebookApp.token="+token, "--NotebookApp.password=",
				"--NotebookApp.notebook_dir="+root, "--allow-root")
		})

	ctx := newBrowser(t, chromium, filepath.Join(jdir, "chromium"))

	url := fmt.Sprintf("%s/notebooks/notebooks/%s?token=%s", base, copyName, token)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`#notebook-container`)),
	); err != nil {
		t.Fatalf("open %s: %v", strings.Split(url, "?")[0], err)
	}
	if !poll(ctx, `!!(window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected() && document.querySelector('#kernel_indicator_icon.kernel_idle_icon'))`, 120*time.Second) {
		state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({jupyter: typeof window.Jupyter, kernel: !!(window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel), connected: !!(window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected()), indicator: (document.querySelector('#kernel_indicator_icon') || {}).className, title: document.title})`))
		t.Fatalf("the GoNB kernel did not start (no idle kernel after 120 s): page state %s %v", state, err)
	}

	// Forget the committed outputs and execution counts, so that "every code
	// cell has a number" below means this run numbered it.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`Jupyter.notebook.clear_all_output(); Jupyter.notebook.get_cells().forEach(function (c) { if (c.cell_type === "code") { c.set_input_prompt(null); } }); true`)); err != nil {
		t.Fatal(err)
	}
	// Run All, through the menu as a user would.
	start := time.Now()
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#celllink`)),
		chromedp.Click(chromedp.CSS(`#run_all_cells > a`)),
	); err != nil {
		t.Fatalf("Cell > Run All: %v", err)
	}
	// Done when every code cell has an execution count and the kernel is idle.
	const doneJS = `(function () {
  var cells = Jupyter.notebook.get_cells().filter(function (c) { return c.cell_type === "code"; });
  var ran = cells.every(function (c) { return typeof c.input_prompt_number === "number"; });
  return ran && !!document.querySelector('#kernel_indicator_icon.kernel_idle_icon');
})()`
	if !poll(ctx, doneJS, 10*time.Minute) {
		prompts, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`Jupyter.notebook.get_cells().map(function (c) { return String(c.input_prompt_number); }).join(",")`))
		t.Fatalf("Run All did not finish in 10 min (execution counts %s)", prompts)
	}
	t.Logf("Run All: %d s", int(time.Since(start).Seconds()))

	// No cell may show an error (GoNB reports failures as error outputs).
	errs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('.output_error, .output_stderr')).map(function (e) { return e.innerText.slice(0, 400); })`))
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Errorf("cells show errors: %q", errs)
	}

	// Give ECharts a moment, then count drawn pixels on every chart canvas.
	counts := chartPixels(t, ctx, 1, 30*time.Second)
	if shot := os.Getenv("PRLAB_NOTEBOOK_SCREENSHOT"); shot != "" {
		if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			_ = os.WriteFile(shot, png, 0o644)
			t.Logf("screenshot: %s", shot)
		}
	}
	if len(counts) == 0 {
		t.Fatalf("no ECharts canvas in .%s after Run All", ChartClass)
	}
	for i, n := range counts {
		if n < 1000 {
			t.Errorf("chart %d: only %d drawn (non-background) pixels", i, n)
		}
	}
	t.Logf("charts: %d, drawn pixels per chart: %v", len(counts), counts)
}

// copyNotebook copies notebooks/NAME.ipynb to notebooks/PREFIX-PID-NAME.ipynb
// (a server's autosave must never touch a committed notebook) and removes
// the copy and its checkpoint at the end of the test; it returns the copy's
// file name.
func copyNotebook(t *testing.T, root, name, prefix string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "notebooks", name+".ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	copyName := fmt.Sprintf("%s-%d-%s.ipynb", prefix, os.Getpid(), name)
	copyPath := filepath.Join(root, "notebooks", copyName)
	if err := os.WriteFile(copyPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.Remove(copyPath)
		// The server's checkpoint of the copy (File > Save writes one).
		os.Remove(filepath.Join(root, "notebooks", ".ipynb_checkpoints", strings.TrimSuffix(copyName, ".ipynb")+"-checkpoint.ipynb"))
	})
	return copyName
}

// startJupyter starts a Jupyter server (what names it in messages) on
// 127.0.0.1 at a free port with a random token, both passed to command,
// which returns the server's command line. The server runs in root with env
// and PYTHONNOUSERSITE=1 added to this process's environment, in its own
// process group, logging to jdir/server.log; the whole group stops at the
// end of the test (the kernels are its grandchildren): SIGTERM, SIGKILL
// after 10 s, and if the test failed, the log's tail goes to the test log.
// It returns the server's base URL and token once /api/status answers
// (90 s at most).
func startJupyter(t *testing.T, root, jdir, what string, env []string, command func(port int, token string) *exec.Cmd) (base, token string) {
	t.Helper()
	port := freePort(t)
	token = randomHex(t, 24)
	srv := command(port, token)
	srv.Env = append(append(os.Environ(), env...), "PYTHONNOUSERSITE=1")
	srv.Dir = root
	logPath := filepath.Join(jdir, "server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	srv.Stdout, srv.Stderr = logf, logf
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := srv.Start(); err != nil {
		t.Fatalf("start %s (%s): %v", what, strings.Join(srv.Args, " "), err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-srv.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-srv.Process.Pid, syscall.SIGKILL)
			<-done
		}
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("%s log (tail):\n%s", what, tail(string(b), 6000))
		}
	})
	base = fmt.Sprintf("http://127.0.0.1:%d", port)
	waitHTTP(t, base+"/api/status?token="+token, 90*time.Second)
	return base, token
}

// newBrowser starts Debian's chromium headless with the flags this machine
// needs (no sandbox as root; no background networking, which the closed
// network here refuses) and a fresh user-data-dir; it stops with the test.
func newBrowser(t *testing.T, chromium, userDataDir string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.UserDataDir(userDataDir),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 1600),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() { cancelC(); cancelA() })
	return ctx
}

// pixelsJS counts, per ECharts canvas inside a chart container, the pixels
// that are drawn and not (near) white background.
const pixelsJS = `Array.from(document.querySelectorAll('.` + ChartClass + ` canvas')).map(function (cv) {
  var w = cv.width, h = cv.height; if (!w || !h) { return 0; }
  var d = cv.getContext('2d').getImageData(0, 0, w, h).data, n = 0;
  for (var i = 0; i < d.length; i += 4) { if (d[i+3] > 0 && (d[i] < 240 || d[i+1] < 240 || d[i+2] < 240)) { n++; } }
  return n;
})`

// chartPixels waits until at least want chart canvases have each drawn more
// than 1000 pixels (or timeout passes) and returns the counts.
func chartPixels(t *testing.T, ctx context.Context, want int, timeout time.Duration) []int {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		counts, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](pixelsJS))
		if err != nil {
			t.Fatal(err)
		}
		drawn := 0
		for _, n := range counts {
			if n > 1000 {
				drawn++
			}
		}
		if drawn >= want || time.Now().After(deadline) {
			return counts
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// TestChartUnderRequireJS is the RequireJS trap in isolation: a page that,
// like the classic Notebook, has a global AMD define before ECharts loads.
// LibraryHTML must still set window.echarts (not register an AMD module),
// and ChartHTML must draw. Runs wherever Debian's chromium is installed.
func TestChartUnderRequireJS(t *testing.T) {
	chromium := ""
	for _, n := range []string{os.Getenv("PRLAB_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if n == "" {
			continue
		}
		if p, err := exec.LookPath(n); err == nil {
			chromium = p
			break
		}
	}
	if chromium == "" {
		t.Skip("no chromium (apt-get install chromium)")
	}
	chart, err := ChartHTML(lineChart(), "300px")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	page := `<!doctype html><html><body>
<script>window.amdCalls = 0; window.define = function () { window.amdCalls++; }; window.define.amd = { jQuery: true };</script>
` + chart + LibraryHTML() + `</body></html>`
	path := filepath.Join(dir, "page.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t, chromium, filepath.Join(dir, "chromium"))
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path)); err != nil {
		t.Fatal(err)
	}
	counts := chartPixels(t, ctx, 1, 20*time.Second)
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(typeof window.echarts) + "/" + window.amdCalls`))
	if err != nil {
		t.Fatal(err)
	}
	if state != "object/0" {
		t.Errorf("typeof echarts / AMD define calls = %s, want object/0 (ECharts registered with RequireJS instead of setting window.echarts)", state)
	}
	if len(counts) != 1 || counts[0] < 1000 {
		t.Errorf("chart drawn pixels %v, want one chart with > 1000 (the chart script ran before the library: it must wait)", counts)
	}
}

// TestExportedNotebookHTML opens every static export in $PRLAB_NB_OUT
// (default reports/notebooks, written by make notebooks) from disk in headless Chromium and checks that
// each chart it holds has drawn pixels, with no server and no network.
func TestExportedNotebookHTML(t *testing.T) {
	root := browserTestRoot(t, EnvBrowserTest, "(make notebooks-test) after make notebooks")
	dir := os.Getenv("PRLAB_NB_OUT") // make notebooks-test passes its NB_OUT
	if dir == "" {
		dir = filepath.Join("reports", "notebooks")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	if len(pages) == 0 {
		t.Fatalf("no %s/*.html: run make notebooks first", dir)
	}
	chromium := findExe(t, "PRLAB_CHROMIUM", "chromium", "chromium-browser", "google-chrome")
	ctx := newBrowser(t, chromium, filepath.Join(t.TempDir(), "chromium"))
	total := 0
	defer func() {
		if total == 0 {
			t.Error("no chart in any export: the notebooks draw at least the convergence and exercise charts")
		}
	}()
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Count(string(b), `class="`+ChartClass+`"`)
		total += want
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+p)); err != nil {
			t.Fatal(err)
		}
		counts := chartPixels(t, ctx, want, 20*time.Second)
		drawn := 0
		for _, n := range counts {
			if n > 1000 {
				drawn++
			}
		}
		if drawn != want {
			t.Errorf("%s: %d of %d charts drawn (pixels %v)", filepath.Base(p), drawn, want, counts)
		} else {
			t.Logf("%s: %d charts drawn (pixels %v)", filepath.Base(p), want, counts)
		}
	}
}

// poll evaluates the JavaScript expression js every 250 ms until it is true
// (true) or timeout passes (false).
func poll(ctx context.Context, js string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err == nil && v {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func findExe(t *testing.T, env string, names ...string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Fatalf("none of %v on PATH (apt-get install chromium), or set %s", names, env)
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func waitHTTP(t *testing.T, url string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		resp, err := http.Get(url)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("notebook server not up at %s after %s: %v", strings.Split(url, "?")[0], timeout, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
