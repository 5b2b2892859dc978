package nb

import (
	"strconv"

	"github.com/go-echarts/go-echarts/v2/opts"
)

// MaxLegendSeries is the most series a chart lists in a plain legend row
// under its plot. A chart with more (the convergence chart of a GPU run has
// 15 implementations, the scale charts 14) gets a scrolling legend column to
// the right of the plot, and draws only a chosen few series at first; the
// others stay in the legend, one click away.
const MaxLegendSeries = 8

// legendWidth is the room (px) the side legend takes right of the plot.
const legendWidth = 240

// seriesLegend lays out the legend of a chart whose series are names (in
// order). Up to MaxLegendSeries: one row at the bottom, every series shown,
// and grid as given. More: a vertical scrolling legend at the right, the
// grid's right margin widened to hold it, and only the series for which
// show returns true drawn at first (show nil: all; if show picks none, all
// are drawn). It returns the legend, the grid and how many series start
// hidden.
func seriesLegend(names []string, show func(string) bool, grid opts.Grid) (opts.Legend, opts.Grid, int) {
	if len(names) <= MaxLegendSeries {
		return opts.Legend{Show: opts.Bool(true), Top: "bottom", Type: "scroll"}, grid, 0
	}
	lg := opts.Legend{Show: opts.Bool(true), Type: "scroll", Orient: "vertical", Right: "8", Top: grid.Top, Bottom: "20",
		TextStyle: &opts.TextStyle{FontSize: 11}}
	grid.Right = strconv.Itoa(legendWidth)
	if grid.Bottom == "" || grid.Bottom == "70" || grid.Bottom == "90" {
		grid.Bottom = "50" // no legend row under the plot any more
	}
	if show == nil {
		return lg, grid, 0
	}
	selected := map[string]bool{}
	hidden := 0
	for _, n := range names {
		on := show(n)
		selected[n] = on
		if !on {
			hidden++
		}
	}
	if hidden == len(names) {
		return lg, grid, 0
	}
	lg.Selected = selected
	return lg, grid, hidden
}
