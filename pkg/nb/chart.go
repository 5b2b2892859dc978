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
	// The library sits alone in the element marked LibraryAttr, the same
	// bytes in every notebook (the status line's id is outside it), so that
	// tools/nbrun.py can move it into one shared file of the HTML exports and
	// leave it out of the committed notebooks.
	b.WriteString("\n<script type=\"text/javascript\" " + LibraryAttr + ">\n(function (define, exports, module) {\nif (window.echarts && window.echarts.init) { return; }\n")
	b.WriteString(report.EChartsJS())
	b.WriteString("\n}).call(window);\n</script>\n")
	// JupyterLab may run the script before it attaches the output to the page: retry.
	fmt.Fprintf(&b, `<script type="text/javascript">(function () { var n = 0; (function mark() { var e = document.getElementById(%q); if (e && window.echarts) { e.style.color = "#666"; e.textContent = "ECharts " + window.echarts.version + " loaded (offline)."; } else if (e && window.%s) { e.textContent = %q; } else if (++n < 100) { setTimeout(mark, 100); } })(); })();</script>`,
		id, LibraryOmittedFlag, LibraryOmitted)
	b.WriteString("\n")
	return b.String()
}

// LibraryAttr marks the <script> element of LibraryHTML that holds ECharts
// (wrapper and library, about 1 MB, byte-identical in every notebook).
// tools/nbrun.py finds it by this attribute: the HTML export loads it from
// one shared file (reports/notebooks/assets/prlab-echarts-HASH.js) and the
// committed notebook replaces it by a script that sets LibraryOmittedFlag.
const LibraryAttr = "data-prlab-echarts"

// LibraryOmittedFlag is the window property that the committed notebooks'
// stand-in for the library sets; LibraryHTML's status line then says
// LibraryOmitted instead of waiting for ECharts.
const LibraryOmittedFlag = "prlabEChartsOmitted"

// LibraryOmitted is the status line of a committed notebook opened trusted
// without running it: the library is not saved there (it would add 1 MB to
// every notebook in git).
const LibraryOmitted = "ECharts is not saved in the committed notebook (1 MB each): charts below stay blank until you run the notebook (Run All); reports/notebooks/NAME.html shows them as committed."

// LibraryNotRun starts LibraryHTML's status line while its script has not
// run (an untrusted notebook); once it ran the line says "ECharts <version>
// loaded (offline).". LibraryOmitted replaces it in a committed notebook opened trusted.
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
