package nb

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/prlab/prlab/pkg/report"
)

// ChartClass is the CSS class of every chart container (report.ChartClass);
// the browser test looks for a drawn <canvas> inside one.
const ChartClass = report.ChartClass

// LibraryHTML returns an HTML fragment that loads the vendored Apache ECharts
// (report.EChartsJS, about 1 MB) into window.echarts, and a status line that
// says whether it ran. Display it once per notebook, in a cell that runs
// before any chart (the notebooks' setup cell does).
//
// Why a wrapper: the classic Notebook page (and nbconvert's classic
// template) loads RequireJS, which defines a global AMD `define`. ECharts'
// UMD header then registers itself as an anonymous AMD module instead of
// setting window.echarts, and every chart fails with "echarts is not
// defined". The library is therefore evaluated inside a function whose
// parameters `define`, `exports` and `module` shadow the globals with
// undefined, with `this` bound to window, so the UMD takes its browser-global
// branch in Jupyter Notebook, JupyterLab (no RequireJS) and a plain page alike.
// Nothing is fetched from the network.
func LibraryHTML() string {
	id := "prlab-echarts-" + randomID()
	var b strings.Builder
	b.Grow(len(report.EChartsJS()) + 1024)
	// Jupyter runs the scripts of saved outputs only in a trusted notebook;
	// the classic Notebook and JupyterLab trust it in different places.
	fmt.Fprintf(&b, `<div id="%s" style="font:12px sans-serif;color:#a00">%s: charts below stay blank. Jupyter runs the scripts of saved outputs only in a trusted notebook: run the notebook (Run All), or trust it (classic Notebook: File &rarr; Trust Notebook; JupyterLab: command palette, Ctrl+Shift+C &rarr; Trust Notebook; shell: <code>jupyter trust NOTEBOOK.ipynb</code>).</div>`, id, LibraryNotRun)
	b.WriteString("\n<script type=\"text/javascript\">\n(function (define, exports, module) {\nif (window.echarts && window.echarts.init) { return; }\n")
	b.WriteString(report.EChartsJS())
	b.WriteString("\n}).call(window);\n")
	// JupyterLab may run the script before it attaches the output to the page: retry.
	fmt.Fprintf(&b, `(function () { var n = 0; (function mark() { var e = document.getElementById(%q); if (e && window.echarts) { e.style.color = "#666"; e.textContent = "ECharts " + window.echarts.version + " loaded inline (offline)."; } else if (++n < 100) { setTimeout(mark, 100); } })(); })();`, id)
	b.WriteString("\n</script>\n")
	return b.String()
}

// LibraryNotRun starts LibraryHTML's status line while its script has not
// run (an untrusted notebook); once it ran the line says "ECharts <version>
// loaded inline (offline).".
const LibraryNotRun = "ECharts (inline, offline) did not run here"

// Snippeter is any go-echarts chart (charts.Line, charts.Bar, ...).
type Snippeter = report.Snippeter

// ChartHTML renders a go-echarts chart with report.Chart's fragment (the
// same <div> and drawing <script> as the pages) under a fresh element id:
// it waits up to 20 s for window.echarts (loaded once by LibraryHTML), so
// cell order and page load order do not matter. height is a CSS length
// such as "420px"; the width follows the output area.
func ChartHTML(c Snippeter, height string) (string, error) {
	return str((&report.Chart{ID: "chart_nb_" + randomID(), Height: height, Chart: c}).HTML())
}

func randomID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
