package report

import (
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// The CPU baseline: prlab's multi-core CPU tier (T1) against the GAP
// benchmark suite's pr_spmv (sbeamer/gapbs, Jacobi pull PageRank in
// float32) on the same graph files and host, and T1's thread scaling, as
// scripts/gap-vs-t1.sh writes them (scripts/gap_vs_t1_csv.py). The two CSVs
// are the unit on disk; the scale page and notebook 05 draw them.
const (
	GapVsT1File   = "gap-vs-t1.csv"
	T1ScalingFile = "t1-scaling.csv"
)

// Chart element ids of the CPU-baseline charts.
const (
	ChartGapVsT1   = "chart_gap_vs_t1"
	ChartT1Scaling = "chart_t1_scaling"
)

// GapVsT1Row is one line of gap-vs-t1.csv: one graph file at one thread
// count, GAP's pr_spmv beside one T1 precision. Times are ms per iteration
// (GAP: median of its 5 trials of 20 iterations, trial seconds x 1000 / 20;
// T1: the scale study's median, setup excluded); Ratio = T1 / GAP (below 1:
// prlab is faster); ns per edge = ms per iteration x 1e6 / that side's edge
// count; read/build/load seconds are each side's parse + CSR build of the
// same .el file.
type GapVsT1Row struct {
	Graph string `csv:"graph"`
	GraphSize
	Threads         int    `csv:"threads"`
	GapMsPerIter    F      `csv:"gap_ms_per_iter"`
	T1MsPerIter     F      `csv:"t1_ms_per_iter"`
	Ratio           F      `csv:"ratio"`
	Host            string `csv:"host"`
	Date            string `csv:"date"`
	T1Impl          string `csv:"t1_impl"`
	GapMsMin        F      `csv:"gap_ms_min"`
	GapMsMax        F      `csv:"gap_ms_max"`
	T1MsMin         F      `csv:"t1_ms_min"`
	T1MsMax         F      `csv:"t1_ms_max"`
	GapNsPerEdge    F      `csv:"gap_ns_per_edge"`
	T1NsPerEdge     F      `csv:"t1_ns_per_edge"`
	GapN            int    `csv:"gap_n"`
	GapNNZ          int    `csv:"gap_nnz"`
	EdgesMatch      string `csv:"edges_match"` // "yes", "NO", or "" when a count is missing
	GapReadS        F      `csv:"gap_read_s"`
	GapBuildS       F      `csv:"gap_build_s"`
	PrlabLoadBuildS F      `csv:"prlab_load_build_s"`
	PrlabCommit     string `csv:"prlab_commit"`
	GapRev          string `csv:"gap_rev"`
}

// T1ScalingRow is one line of t1-scaling.csv: one T1 precision on one graph
// at one worker count, ms per iteration, its speed-up over 1 worker and over
// the float64 oracle (T0, 1 worker), and GAP at the same thread count.
type T1ScalingRow struct {
	Graph string `csv:"graph"`
	GraphSize
	Impl                string `csv:"impl"`
	Workers             int    `csv:"workers"`
	T1MsPerIter         F      `csv:"t1_ms_per_iter"`
	T1MsMin             F      `csv:"t1_ms_min"`
	T1MsMax             F      `csv:"t1_ms_max"`
	SpeedupVs1Worker    F      `csv:"speedup_vs_1_worker"`
	T0MsPerIter         F      `csv:"t0_ms_per_iter"`
	SpeedupVsT0         F      `csv:"speedup_vs_t0"`
	GapMsPerIter        F      `csv:"gap_ms_per_iter"`
	GapSpeedupVs1Thread F      `csv:"gap_speedup_vs_1_thread"`
	Host                string `csv:"host"`
	Date                string `csv:"date"`
}

// CPUBaseline is the two CSVs of one gap-vs-t1.sh run, read from Dir.
type CPUBaseline struct {
	Dir     string // the directory they were read from, as given
	GapVsT1 []GapVsT1Row
	Scaling []T1ScalingRow
}

// ReadCPUBaseline reads dir/gap-vs-t1.csv and dir/t1-scaling.csv. It
// returns nil and no error when dir holds neither; a file that is present
// but malformed is an error naming the file, line and column. A missing
// t1-scaling.csv (a run at one thread count) leaves Scaling empty.
func ReadCPUBaseline(dir string) (*CPUBaseline, error) {
	b := &CPUBaseline{Dir: dir}
	var found bool
	for _, f := range []struct {
		name string
		read func(data []byte, name string) error
	}{
		{GapVsT1File, func(data []byte, name string) (err error) {
			b.GapVsT1, err = decodeCSVRows[GapVsT1Row](data, name, csvHeaderOf(GapVsT1Row{}))
			return err
		}},
		{T1ScalingFile, func(data []byte, name string) (err error) {
			b.Scaling, err = decodeCSVRows[T1ScalingRow](data, name, csvHeaderOf(T1ScalingRow{}))
			return err
		}},
	} {
		path := filepath.Join(dir, f.name)
		data, err := readRegular(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		found = true
		if err := f.read(data, path); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, nil
	}
	if len(b.GapVsT1) == 0 {
		return nil, fmt.Errorf("%s: missing or empty beside %s", filepath.Join(dir, GapVsT1File), T1ScalingFile)
	}
	return b, nil
}

// HasCPUBaseline reports whether dir holds a gap-vs-t1.csv.
func HasCPUBaseline(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, GapVsT1File))
	return err == nil && st.Mode().IsRegular()
}

// MaxThreads is the largest thread count of the comparison rows.
func (b *CPUBaseline) MaxThreads() int {
	t := 0
	for _, r := range b.GapVsT1 {
		t = max(t, int(r.Threads))
	}
	return t
}

// Host is the host of the comparison ("" when the rows disagree).
func (b *CPUBaseline) Host() string {
	if len(b.GapVsT1) == 0 {
		return ""
	}
	h := b.GapVsT1[0].Host
	for _, r := range b.GapVsT1 {
		if r.Host != h {
			return ""
		}
	}
	return h
}

// AtMaxThreads are the comparison rows at the largest thread count, in file
// order (graph, then precision).
func (b *CPUBaseline) AtMaxThreads() []GapVsT1Row {
	t := b.MaxThreads()
	var out []GapVsT1Row
	for _, r := range b.GapVsT1 {
		if int(r.Threads) == t {
			out = append(out, r)
		}
	}
	return out
}

// gapName is GAP's series name in the comparison chart.
const gapName = "GAP pr_spmv (f32)"

// gapColour is GAP's colour: a grey-blue no implementation uses.
const gapColour = "#5b7083"

// GapVsT1Chart draws, for every graph at the largest thread count, GAP's
// and each T1 precision's time per iteration per edge (ns per edge, so
// graphs of every size share one axis) as grouped bars; the tooltip gives
// ms per iteration and T1 / GAP. nil when no row has a time.
func GapVsT1Chart(b *CPUBaseline) *Chart {
	if b == nil {
		return nil
	}
	rows := b.AtMaxThreads()
	var graphs, impls []string
	for _, r := range rows {
		if !slices.Contains(graphs, r.Graph) {
			graphs = append(graphs, r.Graph)
		}
		if r.T1MsPerIter.Valid() && !slices.Contains(impls, r.T1Impl) {
			impls = append(impls, r.T1Impl)
		}
	}
	type cell struct {
		v  F
		ms F
		ok bool
	}
	gap := make([]cell, len(graphs))
	t1 := map[string][]cell{}
	for _, im := range impls {
		t1[im] = make([]cell, len(graphs))
	}
	drawn := false
	for _, r := range rows {
		i := slices.Index(graphs, r.Graph)
		if r.GapNsPerEdge.Valid() && !gap[i].ok {
			gap[i], drawn = cell{r.GapNsPerEdge, r.GapMsPerIter, true}, true
		}
		if r.T1NsPerEdge.Valid() {
			t1[r.T1Impl][i], drawn = cell{r.T1NsPerEdge, r.T1MsPerIter, true}, true
		}
	}
	if !drawn {
		return nil
	}
	labels := make([]string, len(graphs))
	for i, g := range graphs {
		labels[i] = g
		for _, r := range rows {
			if r.Graph == g && r.NNZ > 0 {
				labels[i] = fmt.Sprintf("%s (%s edges)", g, shortCount(int64(r.NNZ)))
				break
			}
		}
	}
	bars := func(cs []cell, colour string) []opts.BarData {
		out := make([]opts.BarData, len(cs))
		for i, c := range cs {
			if !c.ok {
				out[i] = opts.BarData{Value: "-"}
				continue
			}
			out[i] = opts.BarData{Value: sig3(float64(c.v)), ItemStyle: &opts.ItemStyle{Color: colour},
				Name: fmt.Sprintf("%.4g ms per iteration", float64(c.ms))}
		}
		return out
	}
	bar := charts.NewBar()
	title := fmt.Sprintf("T1 against GAP pr_spmv on the same files, %d threads", b.MaxThreads())
	sub := "time per iteration / edges (ns per edge; lower is faster); the same .el file for both, the same host and run"
	if h := b.Host(); h != "" {
		sub += "\n" + h
	}
	bar.SetGlobalOptions(baseInit(), charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: title, Subtitle: sub,
			SubtitleStyle: &opts.TextStyle{FontSize: 12, LineHeight: 17, Color: "#666666"}}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", AxisLabel: &opts.AxisLabel{Interval: "0"}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "ns per edge", NameLocation: "middle", NameGap: 40}),
		charts.WithGridOpts(opts.Grid{Left: "30", Right: "20", Top: "92", Bottom: "70", ContainLabel: opts.Bool(true)}),
		charts.WithLegendOpts(plainLegend(nil, false)),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item", Formatter: opts.FuncOpts(
			"function (p) { return p.marker + p.seriesName + '<br/>' + p.value + ' ns per edge' + (p.data && p.data.name ? '<br/>' + p.data.name : ''); }")}),
	)
	bar.SetXAxis(labels)
	bar.AddSeries(gapName, bars(gap, gapColour), charts.WithItemStyleOpts(opts.ItemStyle{Color: gapColour}),
		charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top", FontSize: 10}))
	for _, im := range impls {
		data := bars(t1[im], ImplColour(im))
		for i := range data {
			if g := gap[i]; g.ok && t1[im][i].ok && g.ms > 0 {
				data[i].Name += fmt.Sprintf(", %.3g× GAP's time", float64(t1[im][i].ms/g.ms))
			}
		}
		bar.AddSeries(im, data, charts.WithItemStyleOpts(opts.ItemStyle{Color: ImplColour(im)}),
			charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top", FontSize: 10}))
	}
	return &Chart{ID: ChartGapVsT1, Height: "440px", Chart: bar}
}

// shortCount writes an edge count as 95k, 65M, 1.1G.
func shortCount(x int64) string {
	v := float64(x)
	switch {
	case v >= 1e9:
		return strconv.FormatFloat(sig3(v/1e9), 'g', -1, 64) + "G"
	case v >= 1e6:
		return strconv.FormatFloat(sig3(v/1e6), 'g', -1, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(sig3(v/1e3), 'g', -1, 64) + "k"
	}
	return strconv.FormatInt(x, 10)
}

// T1ScalingChart draws the speed-up over 1 thread against the thread count
// (one category per count, so 1, 2, 4, 8, 16 are evenly spaced: a log2
// axis) for each T1 precision and GAP on every graph of t1-scaling.csv,
// with the linear ideal dotted. T1 keeps its implementation's colour, GAP
// its grey-blue; the graphs differ by line type (the first solid, then
// dashed, dotted). nil without rows at two or more worker counts.
func T1ScalingChart(b *CPUBaseline) *Chart {
	if b == nil || len(b.Scaling) == 0 {
		return nil
	}
	var graphs, impls []string
	var counts []int
	for _, r := range b.Scaling {
		if !slices.Contains(graphs, r.Graph) {
			graphs = append(graphs, r.Graph)
		}
		if !slices.Contains(impls, r.Impl) {
			impls = append(impls, r.Impl)
		}
		if !slices.Contains(counts, int(r.Workers)) {
			counts = append(counts, int(r.Workers))
		}
	}
	if len(counts) < 2 {
		return nil
	}
	slices.Sort(counts)
	cats := make([]string, len(counts))
	for i, c := range counts {
		cats[i] = strconv.Itoa(c)
	}
	lineTypes := []string{"solid", "dashed", "dotted"}
	line := charts.NewLine()
	sub := "speed-up over the same code at 1 thread (higher is better); dotted grey: linear"
	if h := b.Host(); h != "" {
		sub += "\n" + h
	}
	line.SetGlobalOptions(baseInit(), charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "Thread scaling: T1 and GAP pr_spmv", Subtitle: sub,
			SubtitleStyle: &opts.TextStyle{FontSize: 12, LineHeight: 17, Color: "#666666"}}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "threads (T1: --workers, GAP: OMP_NUM_THREADS)",
			NameLocation: "middle", NameGap: 26}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "speed-up over 1 thread (×)", NameLocation: "middle", NameGap: 36, Min: 0}),
		// Left: the rotated axis name's room (containLabel counts only the tick labels; one-digit ticks leave
		// the name 36 px left of the axis, its 12 px line height half of it further out)
		charts.WithGridOpts(opts.Grid{Left: "40", Right: fmt.Sprint(legendRoom), Top: "92", Bottom: "40", ContainLabel: opts.Bool(true)}),
		charts.WithLegendOpts(plainLegend(nil, true)),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item", Formatter: opts.FuncOpts(
			"function (p) { return p.marker + p.seriesName + '<br/>' + p.name + ' threads: ' + p.value + '×'; }")}),
	)
	line.SetXAxis(cats)
	add := func(name, colour, lt string, vals map[int]float64) {
		if len(vals) == 0 {
			return
		}
		pts := make([]opts.LineData, len(counts))
		for i, c := range counts {
			if v, ok := vals[c]; ok {
				pts[i] = opts.LineData{Value: sig3(v)}
			} else {
				pts[i] = opts.LineData{Value: "-"}
			}
		}
		line.AddSeries(name, pts, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), ConnectNulls: opts.Bool(true)}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 2, Color: colour, Type: lt}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: colour}))
	}
	for gi, g := range graphs {
		lt := lineTypes[gi%len(lineTypes)]
		gapVals := map[int]float64{}
		for _, im := range impls {
			vals := map[int]float64{}
			for _, r := range b.Scaling {
				if r.Graph != g || r.Impl != im {
					continue
				}
				if r.SpeedupVs1Worker.Valid() {
					vals[int(r.Workers)] = float64(r.SpeedupVs1Worker)
				}
				if r.GapSpeedupVs1Thread.Valid() {
					gapVals[int(r.Workers)] = float64(r.GapSpeedupVs1Thread)
				}
			}
			add(im+" · "+g, ImplColour(im), lt, vals)
		}
		add("GAP · "+g, gapColour, lt, gapVals)
	}
	ideal := map[int]float64{}
	for _, c := range counts {
		ideal[c] = float64(c)
	}
	add("linear", "#888888", "dotted", ideal)
	return &Chart{ID: ChartT1Scaling, Height: "460px", Chart: line}
}

// CPUBaselineTable is the comparison at the largest thread count as an
// HTML table, one row per graph: n, nnz, GAP's time per iteration with its
// spread, each T1 precision's with its spread and T1 / GAP, ns per edge of
// GAP and of the faster T1, whether both counted the same edges, and both
// sides' load + build seconds of the file.
func CPUBaselineTable(b *CPUBaseline) template.HTML {
	if b == nil {
		return ""
	}
	rows := b.AtMaxThreads()
	var graphs, impls []string
	for _, r := range rows {
		if !slices.Contains(graphs, r.Graph) {
			graphs = append(graphs, r.Graph)
		}
		if !slices.Contains(impls, r.T1Impl) {
			impls = append(impls, r.T1Impl)
		}
	}
	num := func(f F, format string) string {
		if !f.Valid() {
			return "—"
		}
		return fmt.Sprintf(format, float64(f))
	}
	spread := func(med, lo, hi F) string {
		if !med.Valid() {
			return "—"
		}
		return fmt.Sprintf("%.4g <span class=\"reason\">(%s–%s)</span>", float64(med), num(lo, "%.4g"), num(hi, "%.4g"))
	}
	var sb strings.Builder
	sb.WriteString(`<div class="scroll"><table id="gap-vs-t1-table"><tr><th>graph</th><th>n</th><th>nnz</th><th>threads</th><th>GAP ms/iter (min–max)</th>`)
	for _, im := range impls {
		fmt.Fprintf(&sb, `<th><code>%s</code> ms/iter (min–max)</th><th>÷ GAP</th>`, template.HTMLEscapeString(im))
	}
	sb.WriteString(`<th>ns/edge GAP | T1 best</th><th>same edges</th><th>load + build s GAP | prlab</th></tr>`)
	for _, g := range graphs {
		var first *GapVsT1Row
		best := NaN
		for i := range rows {
			r := &rows[i]
			if r.Graph != g {
				continue
			}
			if first == nil {
				first = r
			}
			if r.T1NsPerEdge.Valid() && (!best.Valid() || r.T1NsPerEdge < best) {
				best = r.T1NsPerEdge
			}
		}
		fmt.Fprintf(&sb, `<tr><td>%s</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%s</td>`,
			template.HTMLEscapeString(g), first.N, first.NNZ, first.Threads, spread(first.GapMsPerIter, first.GapMsMin, first.GapMsMax))
		for _, im := range impls {
			i := slices.IndexFunc(rows, func(r GapVsT1Row) bool { return r.Graph == g && r.T1Impl == im })
			if i < 0 {
				sb.WriteString(`<td class="num">—</td><td class="num">—</td>`)
				continue
			}
			r := rows[i]
			fmt.Fprintf(&sb, `<td class="num">%s</td><td class="num">%s</td>`, spread(r.T1MsPerIter, r.T1MsMin, r.T1MsMax), num(r.Ratio, "%.3g×"))
		}
		fmt.Fprintf(&sb, `<td class="num">%s | %s</td><td>%s</td><td class="num">%s | %s</td></tr>`,
			num(first.GapNsPerEdge, "%.3g"), num(best, "%.3g"), template.HTMLEscapeString(first.EdgesMatch),
			num(first.GapReadS+first.GapBuildS, "%.3g"), num(first.PrlabLoadBuildS, "%.3g"))
	}
	sb.WriteString(`</table></div><p class="note">÷ GAP = T1's time per iteration / GAP's (below 1: T1 is faster). Times are medians; the spread is the fastest and slowest run.</p>`)
	return template.HTML(sb.String())
}

// CPUBaselineHTML is the CPU-baseline section's body: where the CSVs come
// from, the comparison chart and table, the scaling chart.
func CPUBaselineHTML(b *CPUBaseline) (template.HTML, error) {
	if b == nil {
		return "", nil
	}
	var sb strings.Builder
	rev := ""
	if len(b.GapVsT1) > 0 {
		r := b.GapVsT1[0]
		rev = fmt.Sprintf("; %s, prlab commit <code>%s</code>, GAP <code>%s</code>", template.HTMLEscapeString(r.Date),
			template.HTMLEscapeString(r.PrlabCommit), template.HTMLEscapeString(ShortRev(r.GapRev)))
	}
	fmt.Fprintf(&sb, `<p class="note">From <code>%s</code> and <code>%s</code> in <code>%s</code> (<code>scripts/gap-vs-t1.sh</code>: GAP's <code>pr_spmv -f FILE.sg -i 20 -t 0 -n 5</code> and prlab's T1 rows of <code>prlab scale --graph FILE.el --workers N</code> on the same exported file%s). GAP's pr_spmv is the same Jacobi pull iteration in float32 over its incoming CSR, OpenMP <code>schedule(dynamic, 16384)</code>; it does not redistribute the dangling mass. Both exclude their graph build and T1 its per-run setup.</p>`,
		GapVsT1File, T1ScalingFile, template.HTMLEscapeString(b.Dir), rev)
	for _, c := range []*Chart{GapVsT1Chart(b), T1ScalingChart(b)} {
		if c == nil {
			continue
		}
		h, err := c.HTML()
		if err != nil {
			return "", err
		}
		sb.WriteString(string(h))
		if c.ID == ChartGapVsT1 {
			sb.WriteString(string(CPUBaselineTable(b)))
		}
	}
	return template.HTML(sb.String()), nil
}

// ShortRev shortens a 40-hex commit to 12 characters; anything else is kept.
func ShortRev(r string) string {
	if len(r) == 40 && strings.Trim(r, "0123456789abcdef") == "" {
		return r[:12]
	}
	return r
}

// AttachCPUBaseline reads the CPU-baseline CSVs a scale page draws into
// s.CPUBaseline: from dir when given (an error when it holds no
// gap-vs-t1.csv), else from the directory s recorded (s.CPUBaselineDir,
// relative to reportDir), else from reportDir itself when it holds them;
// none found without a dir is no error. s.CPUBaselineDir becomes dir
// relative to reportDir (slash-separated), so a later re-render finds it.
func AttachCPUBaseline(s *ScaleStudy, reportDir, dir string) error {
	if dir == "" && s.CPUBaselineDir != "" {
		dir = filepath.Join(reportDir, filepath.FromSlash(s.CPUBaselineDir))
		if !HasCPUBaseline(dir) {
			return fmt.Errorf("%s: recorded as the CPU baseline (cpu_baseline_dir %q) but holds no %s: pass --gap-csv DIR", dir, s.CPUBaselineDir, GapVsT1File)
		}
	}
	if dir == "" {
		if !HasCPUBaseline(reportDir) {
			return nil
		}
		dir = reportDir
	}
	if !HasCPUBaseline(dir) {
		return fmt.Errorf("%s: no %s (written by scripts/gap-vs-t1.sh)", dir, GapVsT1File)
	}
	b, err := ReadCPUBaseline(dir)
	if err != nil {
		return err
	}
	rel := dir
	if absR, err1 := filepath.Abs(reportDir); err1 == nil {
		if absD, err2 := filepath.Abs(dir); err2 == nil {
			if r, err3 := filepath.Rel(absR, absD); err3 == nil {
				rel = r
			}
		}
	}
	rel = filepath.ToSlash(rel)
	b.Dir = rel
	s.CPUBaseline, s.CPUBaselineDir = b, rel
	return nil
}
