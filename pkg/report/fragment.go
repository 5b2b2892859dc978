package report

import (
	"fmt"
	"html"
	"html/template"
	"regexp"
	"strings"

	"github.com/go-echarts/go-echarts/v2/render"
)

// The presentation layer: every table, chart and finding of a page is an
// HTML fragment built here, and both the pages (index.html, the scale page)
// and the notebooks (pkg/nb wraps the same fragments for GoNB cells) show
// those fragments. A fragment carries its own inline styles, so it looks the
// same inside a page, the classic Notebook, JupyterLab and a printed PDF.

// ChartClass is the CSS class of every chart container ChartHTML writes; the
// browser tests look for a drawn <canvas> inside one.
const ChartClass = "prlab-chart"

// ChartNotDrawn is the line a chart's div holds until its script draws it.
const ChartNotDrawn = "Chart not drawn: its script has not run here (in Jupyter, a notebook that is not trusted; see the setup cell)."

// Snippeter is any go-echarts chart (charts.Line, charts.Bar, ...).
type Snippeter interface {
	RenderSnippet() render.ChartSnippet
}

// Chart is one chart of a page: its element id (a valid JavaScript
// identifier prefix, "chart_..."), the go-echarts chart and its CSS height.
type Chart struct {
	ID     string
	Height string // CSS length, e.g. "420px"
	Chart  Snippeter
	// OptionJS is JavaScript run on the chart's `option` before it is drawn,
	// once per page, for what go-echarts' option types cannot hold (a
	// labelLayout function); "" for none.
	OptionJS string
}

// funcMarker is go-echarts' marker around JavaScript functions in options
// (the pattern of render.pat).
var funcMarker = regexp.MustCompile(`(__f__")|("__f__)|(__f__)`)

// jsFunc matches one marked JavaScript function in go-echarts' JSON.
var jsFunc = regexp.MustCompile(`__f__.*?__f__`)

// HTML renders the chart as a <div id=ID> and a <script> that draws it with
// window.echarts: at once where the page has loaded ECharts (index.html
// inlines it in <head>), else by retrying (a notebook loads it once in its
// setup cell; after 20 s without it the div says so, and the script keeps
// trying every second). Where the script never runs the div holds
// ChartNotDrawn instead of staying blank. The width follows the container (100 %, at most 1000 px).
// go-echarts panics on a template error, which is returned as an error here.
func (c *Chart) HTML() (out template.HTML, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("render chart %s: %v", c.ID, p)
		}
	}()
	s := c.Chart.RenderSnippet() // also runs the chart's Validate hooks, once
	option := strings.TrimSpace(s.Option)
	if j, ok := c.Chart.(interface{ JSONNotEscaped() template.HTML }); ok {
		// go-echarts' snippet option HTML-escapes before it strips the markers
		// of JavaScript functions (opts.FuncOpts), which leaves a formatter as
		// a quoted string; strip them from the raw JSON instead.
		raw := string(j.JSONNotEscaped())
		for _, fn := range jsFunc.FindAllString(raw, -1) {
			if strings.Contains(fn, `\"`) {
				return "", fmt.Errorf("render chart %s: a JavaScript function in the options uses double quotes, which JSON escapes into invalid JavaScript; use single quotes: %.80s", c.ID, fn)
			}
		}
		option = strings.TrimSpace(funcMarker.ReplaceAllString(raw, ""))
	}
	option = strings.TrimSuffix(option, ";")
	// Inside <script>, "</" could end the element early; "<\/" is the same JS string.
	option = strings.ReplaceAll(option, "</", `<\/`)
	if option == "" {
		return "", fmt.Errorf("render chart %s: go-echarts returned an empty option", c.ID)
	}
	height := c.Height
	if height == "" {
		height = "420px"
	}
	var b strings.Builder
	// The line inside the div is what a reader sees where the script does not
	// run (a notebook that Jupyter does not trust); draw() replaces it.
	fmt.Fprintf(&b, `<div class="%s" id="%s" style="width:100%%;max-width:1000px;height:%s;margin:6px 0 14px 0;break-inside:avoid;"><div style="font:12px sans-serif;color:#888;padding:8px 0">%s</div></div>`,
		ChartClass, html.EscapeString(c.ID), html.EscapeString(height), ChartNotDrawn)
	b.WriteString("\n<script type=\"text/javascript\">\n(function () {\n")
	fmt.Fprintf(&b, "var id = %q;\nvar option = %s;\n", c.ID, option)
	if c.OptionJS != "" {
		b.WriteString(strings.ReplaceAll(c.OptionJS, "</", `<\/`) + "\n")
	}
	b.WriteString(`function draw() {
  var el = document.getElementById(id);
  if (!el || !window.echarts) { return false; }
  var chart = window.echarts.getInstanceByDom(el);
  if (!chart) { el.textContent = ""; chart = window.echarts.init(el, null, { renderer: "canvas" }); }
  chart.setOption(option);
  if (window.ResizeObserver) { new ResizeObserver(function () { chart.resize(); }).observe(el); }
  return true;
}
if (draw()) { return; }
// Not yet: every 100 ms for 20 s, then say so and keep trying every second
// (JupyterLab 4 may attach the setup cell, which loads ECharts, much later).
var tries = 0;
(function retry() {
  if (draw()) { return; }
  if (++tries === 200) {
    var el = document.getElementById(id);
    if (el) { el.textContent = "ECharts is not loaded on this page yet: run the notebook's setup cell (nb.Setup)."; }
  }
  setTimeout(retry, tries < 200 ? 100 : 1000);
})();
})();
</script>
`)
	return template.HTML(b.String()), nil
}
