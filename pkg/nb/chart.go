package nb

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"html"
	"html/template"
	"regexp"
	"strings"

	"github.com/go-echarts/go-echarts/v2/render"

	"github.com/prlab/prlab/pkg/report"
)

// ChartClass is the CSS class of every chart container LibraryHTML and
// ChartHTML write; the browser test looks for a drawn <canvas> inside one.
const ChartClass = "prlab-chart"

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
	fmt.Fprintf(&b, `<div id="%s" style="font:12px sans-serif;color:#a00">ECharts (inline, offline) did not run here: charts below stay blank. In Jupyter, trust the notebook (File &rarr; Trust Notebook, or <code>jupyter trust</code>) and run this cell again.</div>`, id)
	b.WriteString("\n<script type=\"text/javascript\">\n(function (define, exports, module) {\nif (window.echarts && window.echarts.init) { return; }\n")
	b.WriteString(report.EChartsJS())
	b.WriteString("\n}).call(window);\n")
	// JupyterLab may run the script before it attaches the output to the page: retry.
	fmt.Fprintf(&b, `(function () { var n = 0; (function mark() { var e = document.getElementById(%q); if (e && window.echarts) { e.style.color = "#666"; e.textContent = "ECharts " + window.echarts.version + " loaded inline (offline)."; } else if (++n < 100) { setTimeout(mark, 100); } })(); })();`, id)
	b.WriteString("\n</script>\n")
	return b.String()
}

// funcMarker is go-echarts' marker around JavaScript functions in options
// (the pattern of render.pat).
var funcMarker = regexp.MustCompile(`(__f__")|("__f__)|(__f__)`)

// jsFunc matches one marked JavaScript function in go-echarts' JSON.
var jsFunc = regexp.MustCompile(`__f__.*?__f__`)

// Snippeter is any go-echarts chart (charts.Line, charts.Bar, ...).
type Snippeter interface {
	RenderSnippet() render.ChartSnippet
}

// ChartHTML renders a go-echarts chart as a <div> and a <script> that draws
// it with window.echarts (loaded once per page by LibraryHTML). The script
// waits up to 20 s for the library, so cell order and page load order do not
// matter; if the library never appears the div says so instead of staying
// blank. height is a CSS length such as "420px"; the width follows the output
// area (100 %). The chart's option object is go-echarts' own JSON; go-echarts
// panics on a template error, which is returned as an error here.
func ChartHTML(c Snippeter, height string) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("render chart: %v", p)
		}
	}()
	s := c.RenderSnippet() // also runs the chart's Validate hooks, once
	option := strings.TrimSpace(s.Option)
	if j, ok := c.(interface{ JSONNotEscaped() template.HTML }); ok {
		// go-echarts' snippet option HTML-escapes before it strips the markers
		// of JavaScript functions (opts.FuncOpts), which leaves a formatter as
		// a quoted string; strip them from the raw JSON instead.
		raw := string(j.JSONNotEscaped())
		for _, fn := range jsFunc.FindAllString(raw, -1) {
			if strings.Contains(fn, `\"`) {
				return "", fmt.Errorf("render chart: a JavaScript function in the options uses double quotes, which JSON escapes into invalid JavaScript; use single quotes: %.80s", fn)
			}
		}
		option = strings.TrimSpace(funcMarker.ReplaceAllString(raw, ""))
	}
	option = strings.TrimSuffix(option, ";")
	// Inside <script>, "</" could end the element early; "<\/" is the same JS string.
	option = strings.ReplaceAll(option, "</", `<\/`)
	if option == "" {
		return "", fmt.Errorf("render chart: go-echarts returned an empty option")
	}
	if height == "" {
		height = "420px"
	}
	id := "prlab-chart-" + randomID()
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="%s" id="%s" style="width:100%%;max-width:1000px;height:%s;"></div>`, ChartClass, id, html.EscapeString(height))
	b.WriteString("\n<script type=\"text/javascript\">\n(function () {\n")
	fmt.Fprintf(&b, "var id = %q;\nvar option = %s;\n", id, option)
	b.WriteString(`function draw() {
  var el = document.getElementById(id);
  if (!el || !window.echarts) { return false; }
  var chart = window.echarts.getInstanceByDom(el) || window.echarts.init(el, null, { renderer: "canvas" });
  chart.setOption(option);
  if (window.ResizeObserver) { new ResizeObserver(function () { chart.resize(); }).observe(el); }
  return true;
}
if (draw()) { return; }
var tries = 0;
var timer = setInterval(function () {
  if (draw()) { clearInterval(timer); return; }
  if (++tries > 200) {
    clearInterval(timer);
    var el = document.getElementById(id);
    if (el) { el.textContent = "ECharts is not loaded on this page: run the notebook's setup cell (nb.Setup) first."; }
  }
}, 100);
})();
</script>
`)
	return b.String(), nil
}

func randomID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
