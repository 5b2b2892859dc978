package nb

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/prlab/prlab/pkg/report"
)

// TestNotebooksInJupyterLab opens every notebook in a real JupyterLab front
// end (3.6.8, tools/jlab, served by Debian 12's jupyterlab_server on
// jupyter_server; loopback only, a random port and token) in headless
// Chromium and, for each one:
//
//  1. as saved in git (not signed with this server's key, so untrusted):
//     the setup cell says that ECharts did not run, and no chart draws;
//  2. clears the outputs and chooses Run > Run All Cells in the menu bar,
//     waits until the GoNB kernel numbered every code cell and is idle, and
//     asserts: no error or stderr output in any cell, no JavaScript
//     exception on the page, the setup cell says ECharts loaded, every
//     table the outputs hold is rendered with rows (and scrolls sideways in
//     its own box when wider than the output), and every chart's canvas
//     drew its series (pixel count);
//  3. saves (JupyterLab signs what it ran), opens it again without running
//     anything: trusted now, the saved outputs' scripts run, the setup cell
//     says ECharts loaded and every chart draws again;
//  4. opens the same outputs in a changed copy (no signature matches):
//     untrusted, the setup cell says how to trust it in JupyterLab, every
//     chart area says why it is blank (report.ChartNotDrawn), tables render.
//
// Each notebook runs on a copy (copyNotebook); the kernel spec, the signing
// key and JupyterLab's settings live in a temporary Jupyter data dir, so
// nothing outside the test's folders changes. PRLAB_LAB_TEST_NB picks
// notebooks (comma-separated names, default all of notebooks/[0-9]*.ipynb);
// PRLAB_NOTEBOOK_SCREENSHOT_DIR saves one screenshot per notebook and step.
func TestNotebooksInJupyterLab(t *testing.T) {
	root := browserTestRoot(t, EnvLabTest, "(make notebooks-lab-test) to run the notebooks in JupyterLab + headless Chromium")
	var names []string
	if s := os.Getenv("PRLAB_LAB_TEST_NB"); s != "" {
		names = strings.Split(s, ",")
	} else {
		paths, _ := filepath.Glob(filepath.Join(root, "notebooks", "[0-9]*.ipynb"))
		for _, p := range paths {
			names = append(names, strings.TrimSuffix(filepath.Base(p), ".ipynb"))
		}
	}
	if len(names) == 0 {
		t.Fatal("no notebooks/[0-9]*.ipynb")
	}
	build := filepath.Join(root, "build", "jlab")
	if b := os.Getenv("PRLAB_JLAB_BUILD"); b != "" {
		build = b
	}
	if _, err := os.Stat(filepath.Join(build, "bundle.js")); err != nil {
		t.Fatalf("no JupyterLab front end in %s: run make jlab first", build)
	}
	chromium, python := browserTestTools(t)

	// A private Jupyter data dir: the "gonb" kernel spec for this checkout
	// (tools/nbkernel, as make kernel writes it) and the notary's key.
	jdir := t.TempDir()
	data := filepath.Join(jdir, "data")
	gonb := filepath.Join(root, "bin", "gonb")
	spec := exec.Command("go", "run", "./tools/nbkernel", "-gonb", gonb, "-root", root, "-dir", filepath.Join(data, "kernels"))
	spec.Dir = root
	if out, err := spec.CombinedOutput(); err != nil {
		t.Fatalf("write the gonb kernel spec (run make kernel first): %v\n%s", err, out)
	}

	env := []string{"JUPYTER_DATA_DIR=" + data, "JUPYTER_RUNTIME_DIR=" + filepath.Join(jdir, "runtime"),
		"PRLAB_JLAB_BUILD=" + build, "PRLAB_JLAB_STATE=" + filepath.Join(jdir, "lab")}
	base, token := startJupyter(t, root, jdir, "jupyterlab server", env, func(port int, token string) *exec.Cmd {
		// timeout bounds the server's life even if this test process is killed.
		return exec.Command("timeout", "-k", "10", "45m", python, filepath.Join(root, "tools", "jlab", "main.py"),
			"--ServerApp.ip=127.0.0.1", fmt.Sprintf("--ServerApp.port=%d", port), "--ServerApp.port_retries=0",
			"--ServerApp.token="+token, "--ServerApp.password=", "--ServerApp.open_browser=False",
			"--ServerApp.root_dir="+root, "--allow-root")
	})

	ctx := newBrowser(t, chromium, filepath.Join(jdir, "chromium"))
	// Headless, the window never has the focus; JupyterLab's current widget
	// (which the notebook menus act on) follows the focus. Emulate it.
	if _, err := chromedp.Call(ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	// JavaScript exceptions nobody caught, from JupyterLab or an output's script.
	var mu sync.Mutex
	var exceptions, consoleErrors []string
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventConsoleAPICalled); ok && e.Type == runtime.ConsoleAPICalledTypeError {
			var parts []string
			for _, a := range e.Args {
				if a.Description != "" {
					parts = append(parts, a.Description)
				} else {
					parts = append(parts, string(a.Value))
				}
			}
			mu.Lock()
			consoleErrors = append(consoleErrors, tail(strings.Join(parts, " "), 300))
			mu.Unlock()
		}
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				msg = d.Exception.Description
			}
			mu.Lock()
			exceptions = append(exceptions, fmt.Sprintf("%s (%s:%d)", tail(msg, 300), d.URL, d.LineNumber))
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			mu.Lock()
			defer mu.Unlock()
			t.Logf("browser console errors (JupyterLab's and the outputs'): %q", consoleErrors)
		}
	})
	takeExceptions := func() []string {
		mu.Lock()
		defer mu.Unlock()
		e := exceptions
		exceptions = nil
		return e
	}
	shots := os.Getenv("PRLAB_NOTEBOOK_SCREENSHOT_DIR")
	// screenshot saves the page; with charts, one more per chart, scrolled to it.
	screenshot := func(t *testing.T, name string) {
		if shots == "" {
			return
		}
		save := func(file string) {
			if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
				p := filepath.Join(shots, file+".png")
				_ = os.WriteFile(p, png, 0o644)
				t.Logf("screenshot: %s", p)
			}
		}
		save(name)
		n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.jp-OutputArea .`+ChartClass+`').length`))
		for i := 0; i < n; i++ {
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(document.querySelectorAll('.jp-OutputArea .`+ChartClass+`')[%d].scrollIntoView({block: 'center'}), true)`, i))); err == nil {
				time.Sleep(500 * time.Millisecond)
				save(fmt.Sprintf("%s-chart%d", name, i+1))
			}
		}
	}

	for i, name := range names {
		t.Run(name, func(t *testing.T) {
			copyName := copyNotebook(t, root, name, "zz-lab-test")
			open := func(step, file string) labNotebook {
				// A fresh workspace per opening: JupyterLab restores no other tab.
				url := fmt.Sprintf("%s/lab/workspaces/prlab-%d-%s/tree/notebooks/%s?token=%s", base, i, step, file, token)
				if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
					t.Fatalf("open %s: %v", strings.Split(url, "?")[0], err)
				}
				if !poll(ctx, labReadyJS, 120*time.Second) {
					st := labState(t, ctx)
					t.Fatalf("%s: the notebook did not open with an idle GoNB kernel in 120 s (state %+v)", step, st)
				}
				return labState(t, ctx)
			}
			defer func() {
				// Stop the notebook's kernel before the next notebook.
				_, _ = chromedp.Run(ctx, chromedp.Evaluate[bool](`window.jupyterapp.serviceManager.sessions.shutdownAll().then(function () { return true; })`, chromedp.EvalAwaitPromise))
			}()

			// 1. As committed: untrusted, saved scripts do not run.
			st := open("saved", copyName)
			if st.Trusted {
				t.Errorf("saved notebook opened as trusted; it is not signed with this server's key")
			}
			switch {
			case st.Outputs == 0:
				t.Logf("saved without outputs: nothing to check before running")
			case !strings.Contains(st.Setup, LibraryNotRun):
				t.Errorf("untrusted, before running: setup cell says %q, want the message that ECharts did not run (%q)", st.Setup, LibraryNotRun)
			}
			if n := len(chartPixelsNow(t, ctx)); n != 0 {
				t.Errorf("untrusted, before running: %d chart canvases exist; the saved scripts must not run", n)
			}
			checkTables(t, st, false)
			screenshot(t, name+"-1-untrusted")
			takeExceptions() // JupyterLab's own start-up is not what this test judges

			// 2. Clear, Run All through the menu bar, check every output.
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs').then(function () { return true; })`, chromedp.EvalAwaitPromise)); err != nil {
				t.Fatal(err)
			}
			runMenu, err := chromedp.Run(ctx, chromedp.Evaluate[int](labRunMenuJS))
			if err != nil || runMenu < 1 {
				t.Fatalf("no Run menu in the menu bar (%d, %v)", runMenu, err)
			}
			start := time.Now()
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#jp-MainMenu .lm-MenuBar-item:nth-child(%d)`, runMenu)))); err != nil {
				t.Fatalf("open the Run menu: %v", err)
			}
			item, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(function () { var e = document.querySelector('.lm-Menu-item[data-command="runmenu:run-all"]'); return e ? e.className : 'none: ' + Array.from(document.querySelectorAll('.lm-Menu .lm-Menu-item')).map(function (m) { return m.getAttribute('data-command') + '=' + m.textContent; }).join('; ') + ' bar: ' + document.querySelector('#jp-MainMenu').outerHTML.slice(0, 600); })()`))
			if err != nil || strings.HasPrefix(item, "none") || strings.Contains(item, "lm-mod-disabled") {
				t.Fatalf("Run > Run All Cells is missing or disabled (%q, %v); JupyterLab's current widget: %+v", item, err, labState(t, ctx))
			}
			// Lumino's menus act on the item under the mouse: move there, then click.
			xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(function () { var r = document.querySelector('.lm-Menu-item[data-command="runmenu:run-all"]').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`))
			if err != nil || len(xy) != 2 {
				t.Fatalf("Run All Cells menu item position: %v %v", xy, err)
			}
			if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[0], xy[1]), chromedp.MouseClickXY(xy[0], xy[1])); err != nil {
				t.Fatalf("Run > Run All Cells: %v", err)
			}
			if !poll(ctx, labStartedJS, 60*time.Second) {
				t.Fatalf("Run > Run All Cells started nothing in 60 s (state %+v)", labState(t, ctx))
			}
			if !poll(ctx, labDoneJS, 10*time.Minute) {
				t.Fatalf("Run All did not finish in 10 min (state %+v)", labState(t, ctx))
			}
			ran := labState(t, ctx)
			t.Logf("Run All: %d code cells in %d s", ran.Code, int(time.Since(start).Seconds()))
			if len(ran.Errors) > 0 {
				t.Errorf("cells show errors: %q", ran.Errors)
			}
			if !strings.HasPrefix(ran.Setup, "ECharts ") || !strings.Contains(ran.Setup, "loaded (offline)") {
				t.Errorf("after Run All: setup cell says %q, want \"ECharts <version> loaded (offline).\"", ran.Setup)
			}
			checkTables(t, ran, true)
			checkCharts(t, ctx, "after Run All", ran.Charts)
			screenshot(t, name+"-2-ran")
			if e := takeExceptions(); len(e) > 0 {
				t.Errorf("JavaScript exceptions during Run All: %q", e)
			}

			// 3. Save (signed: JupyterLab ran every output), open again: trusted.
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.jupyterapp.commands.execute('docmanager:save').then(function () { return true; })`, chromedp.EvalAwaitPromise)); err != nil {
				t.Fatal(err)
			}
			if !poll(ctx, `(function () { `+labNotebookJS+`return !prlabNotebook().context.model.dirty; })()`, 30*time.Second) {
				t.Fatal("save did not finish in 30 s")
			}
			again := open("trusted", copyName)
			if !again.Trusted {
				t.Errorf("reopened after saving in JupyterLab: not trusted")
			}
			if !strings.Contains(again.Setup, "loaded (offline)") {
				t.Errorf("trusted, before running: setup cell says %q, want ECharts loaded", again.Setup)
			}
			checkCharts(t, ctx, "trusted, before running", again.Charts)
			checkTables(t, again, true)
			screenshot(t, name+"-3-trusted")
			if e := takeExceptions(); len(e) > 0 {
				t.Errorf("JavaScript exceptions on the trusted notebook: %q", e)
			}

			// 4. The same outputs in a changed file (its signature no longer
			// matches: untrusted), as a reader gets a notebook run elsewhere:
			// the setup cell's message, and every chart says why it is blank.
			other := untrustedCopy(t, root, copyName)
			fresh := open("untrusted", other)
			if fresh.Trusted {
				t.Errorf("%s opened as trusted; its content differs from what JupyterLab signed", other)
			}
			if !strings.HasPrefix(fresh.Setup, LibraryNotRun) || !strings.Contains(fresh.Setup, "JupyterLab: command palette") {
				t.Errorf("untrusted, run elsewhere: setup cell says %q, want %q… with JupyterLab's way to trust", fresh.Setup, LibraryNotRun)
			}
			if n := len(chartPixelsNow(t, ctx)); n != 0 {
				t.Errorf("untrusted, run elsewhere: %d chart canvases exist; the scripts must not run", n)
			}
			if fresh.NotDrawn != fresh.Charts {
				t.Errorf("untrusted, run elsewhere: %d of %d chart areas say %q", fresh.NotDrawn, fresh.Charts, report.ChartNotDrawn)
			}
			checkTables(t, fresh, true)
			screenshot(t, name+"-4-untrusted")
		})
	}
}

// labRunMenuJS is the place (1-based) of the menu bar's "Run" menu, 0 if none.
const labRunMenuJS = `Array.from(document.querySelectorAll('#jp-MainMenu .lm-MenuBar-item')).findIndex(function (e) { return e.textContent.trim() === 'Run'; }) + 1`

// labNotebookJS defines prlabNotebook(): the notebook panel in JupyterLab's
// main area (the test opens one at a time), or null.
const labNotebookJS = `function prlabNotebook() {
  var app = window.jupyterapp; if (!app || !app.shell) { return null; }
  var it = app.shell.widgets('main'), w;
  while ((w = it.next()) !== undefined) { if (w.content && w.sessionContext && w.context) { return w; } }
  return null;
}
`

// labReadyJS: the notebook is open and its kernel is idle.
const labReadyJS = `(function () {
  ` + labNotebookJS + `var w = prlabNotebook();
  if (!w || !w.context.isReady) { return false; }
  var s = w.sessionContext.session, k = s && s.kernel;
  return !!k && k.status === 'idle' && k.connectionStatus === 'connected';
})()`

// labStartedJS: the kernel is busy or a code cell has a number.
const labStartedJS = `(function () {
  ` + labNotebookJS + `var w = prlabNotebook(), k = w && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && (k.status === 'busy' || w.content.widgets.some(function (c) { return c.model.type === 'code' && c.model.executionCount !== null; }));
})()`

// labDoneJS: every code cell has an execution count and the kernel is idle.
const labDoneJS = `(function () {
  ` + labNotebookJS + `var w = prlabNotebook(), k = w.sessionContext.session && w.sessionContext.session.kernel;
  var cells = w.content.widgets.filter(function (c) { return c.model.type === 'code'; });
  return !!k && k.status === 'idle' && cells.every(function (c) { return c.model.executionCount !== null; });
})()`

// labStateJS reads the open notebook: kernel, trust, the setup cell's
// ECharts line, error outputs, and the tables and charts the outputs hold
// (counted in the output data) and show (counted in the page).
const labStateJS = `(function () {
  ` + labNotebookJS + `var w = prlabNotebook();
  if (!w) { return JSON.stringify({widget: window.jupyterapp ? 'no notebook in ' + document.title : 'no JupyterLab'}); }
  var k = w.sessionContext.session && w.sessionContext.session.kernel;
  var cells = w.content.widgets.filter(function (c) { return c.model.type === 'code'; });
  var st = {widget: w.id, path: w.context.path, kernel: k ? k.name + '/' + k.status : '', code: cells.length,
    counted: cells.filter(function (c) { return c.model.executionCount !== null; }).length,
    trusted: cells.every(function (c) { return c.model.trusted; }), outputs: 0, errors: [], charts: 0, tables: 0, shownTables: [], notDrawn: 0, setup: ''};
  cells.forEach(function (c, i) {
    c.model.outputs.toJSON().forEach(function (o) {
      st.outputs++;
      if (o.output_type === 'error') { st.errors.push('cell ' + i + ': ' + o.ename + ': ' + o.evalue); }
      if (o.output_type === 'stream' && o.name === 'stderr') { st.errors.push('cell ' + i + ' stderr: ' + String(o.text).slice(0, 400)); }
      var html = o.data && o.data['text/html'];
      if (html) {
        html = Array.isArray(html) ? html.join('') : String(html);
        st.charts += html.split('class="` + ChartClass + `"').length - 1;
        st.tables += html.split('class="prlab-table"').length - 1;
      }
    });
  });
  document.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]').forEach(function (e) {
    st.errors.push('shown as stderr: ' + e.innerText.slice(0, 400));
  });
  // A table wider than its output must sit in a box that scrolls sideways
  // (pkg/report wraps each in overflow-x:auto; the sanitizer must keep it).
  w.content.node.querySelectorAll('table.prlab-table').forEach(function (tb) {
    var out = tb.closest('.jp-OutputArea-output'), scrolls = false;
    for (var e = tb.parentElement; e && e !== out; e = e.parentElement) {
      if (/auto|scroll/.test(getComputedStyle(e).overflowX)) { scrolls = true; }
    }
    st.shownTables.push({rows: tb.querySelectorAll('tbody tr').length, height: tb.offsetHeight,
      wide: !!out && tb.offsetWidth > out.clientWidth, scrolls: scrolls,
      outputScrolls: !!out && /auto|scroll/.test(getComputedStyle(out).overflowX)});
  });
  w.content.node.querySelectorAll('.jp-OutputArea .` + ChartClass + `').forEach(function (c) {
    if (c.textContent.indexOf("` + report.ChartNotDrawn + `") === 0) { st.notDrawn++; }
  });
  // LibraryHTML's status line (JupyterLab's sanitizer drops its id when untrusted).
  var lib = Array.from(w.content.node.querySelectorAll('.jp-OutputArea-output div')).find(function (d) { return /^ECharts /.test(d.textContent); });
  st.setup = lib ? lib.textContent : '';
  return JSON.stringify(st);
})()`

// labNotebook is what labStateJS reads.
type labNotebook struct {
	Widget, Path, Kernel, Setup string
	Code, Counted, Outputs      int
	Trusted                     bool
	Errors                      []string
	Charts, Tables, NotDrawn    int
	ShownTables                 []struct {
		Rows, Height                 int
		Wide, Scrolls, OutputScrolls bool
	}
}

func labState(t *testing.T, ctx context.Context) labNotebook {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](labStateJS))
	if err != nil {
		t.Fatalf("read the notebook's state: %v", err)
	}
	var st labNotebook
	if err := json.Unmarshal([]byte(s), &st); err != nil {
		t.Fatalf("notebook state %s: %v", s, err)
	}
	return st
}

// untrustedCopy writes notebooks/NAME-untrusted.ipynb, the notebook
// copyName with one metadata key more (so no signature matches it), removed
// at the end of the test; it returns the new file's name.
func untrustedCopy(t *testing.T, root, copyName string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "notebooks", copyName))
	if err != nil {
		t.Fatal(err)
	}
	var nb map[string]any
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatalf("%s: %v", copyName, err)
	}
	meta, _ := nb["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		nb["metadata"] = meta
	}
	meta["prlab_test"] = "a copy whose signature does not match"
	out, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSuffix(copyName, ".ipynb") + "-untrusted.ipynb"
	path := filepath.Join(root, "notebooks", name)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(path) })
	return name
}

// checkTables: every table in the outputs' data is in the page, with rows,
// and a table wider than its output scrolls sideways: in its own box
// (pkg/report's tables; JupyterLab's sanitizer must keep that box's style)
// or, for outputs written before those tables (ownBox false), at least with
// the whole output.
func checkTables(t *testing.T, st labNotebook, ownBox bool) {
	t.Helper()
	if len(st.ShownTables) != st.Tables {
		t.Errorf("outputs hold %d tables, the page shows %d", st.Tables, len(st.ShownTables))
	}
	for i, tb := range st.ShownTables {
		if tb.Rows == 0 || tb.Height < 20 {
			t.Errorf("table %d rendered with %d rows, %d px high", i, tb.Rows, tb.Height)
		}
		if tb.Wide && !tb.Scrolls && (ownBox || !tb.OutputScrolls) {
			t.Errorf("table %d is wider than its output and its own box does not scroll sideways (the output does: %v)", i, tb.OutputScrolls)
		}
	}
}

// checkCharts: every chart in the outputs' data drew (chartPixels).
func checkCharts(t *testing.T, ctx context.Context, when string, want int) {
	t.Helper()
	counts := chartPixels(t, ctx, want, 30*time.Second)
	drawn := 0
	for _, n := range counts {
		if n > 1000 {
			drawn++
		}
	}
	if drawn != want || len(counts) != want {
		t.Errorf("%s: %d of %d charts drew their series (drawn pixels per canvas %v)", when, drawn, want, counts)
	} else if want > 0 {
		t.Logf("%s: %d charts drawn (pixels %v)", when, want, counts)
	}
}

// chartPixelsNow is one reading of pixelsJS: one count per chart canvas.
func chartPixelsNow(t *testing.T, ctx context.Context) []int {
	t.Helper()
	counts, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](pixelsJS))
	if err != nil {
		t.Fatal(err)
	}
	return counts
}
