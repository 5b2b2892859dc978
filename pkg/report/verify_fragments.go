package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// The fragments of a verification: verify.html and notebook 06 show the
// same ones (pkg/nb wraps them).

// ChartVerifyRatio is the element id of the ratio chart.
const ChartVerifyRatio = "chart_verify_ratio"

// r3 rounds to 3 decimals for a chart (0 for a non-finite value).
func r3(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*1000) / 1000
}

// VerifyParagraphHTML is the verification's course-style paragraph and
// its notes.
func VerifyParagraphHTML(v *Verification) string {
	color := "#11661b"
	if !v.Pass {
		color = "#b00020"
	}
	s := fmt.Sprintf(`<p style="font:14px/1.45 sans-serif;max-width:1000px;border-left:4px solid %s;padding:6px 12px;background:#f6f8fa">%s</p>`, color, escape(v.Paragraph))
	for _, n := range v.Notes {
		s += Para("Note: %s", n)
	}
	return s
}

// VerifyGatesHTML counts the gates by kind (held, failed) and then
// lists every failed gate with its table, case, implementation and both values.
func VerifyGatesHTML(v *Verification) string {
	t := &Table{Caption: "Correctness gates", Header: []string{"gate", "held", "failed"}, Align: []string{"l", "r", "r"}}
	var order []string
	held, failed := map[string]int{}, map[string]int{}
	for _, g := range v.Gates {
		if !slices.Contains(order, g.Gate) {
			order = append(order, g.Gate)
		}
		if g.Pass {
			held[g.Gate]++
		} else {
			failed[g.Gate]++
		}
	}
	for _, g := range order {
		st := "pass"
		if failed[g] > 0 {
			st = "fail"
		}
		t.Add(st, g, fmt.Sprint(held[g]), fmt.Sprint(failed[g]))
	}
	out := t.HTML()
	if f := v.Failures(); len(f) > 0 {
		ft := &Table{Caption: "Failed gates", Header: []string{"gate", "table", "case", "implementation", v.Report.Name, v.Rerun.Name, "note"},
			Align: []string{"l", "l", "l", "l", "l", "l", "l"}}
		for _, g := range f {
			ft.Add("fail", g.Gate, g.Table, g.Case, g.Implementation, g.Report, g.Rerun, g.Note)
		}
		out += ft.HTML()
	}
	return out
}

// VerifyTimingHTML is the timing comparison: both medians, the
// ratio with its 95 % interval, the U test's p before and after Holm's
// correction, and the class.
func VerifyTimingHTML(v *Verification) string {
	t := &Table{Caption: "Timing: " + v.Rerun.Name + " against " + v.Report.Name,
		Header: []string{"case", "implementation", v.Report.Name + " median ms", v.Rerun.Name + " median ms", "runs", "ratio", "95 % interval", "p (U)", "p (Holm)", "class"},
		Align:  []string{"l", "l", "r", "r", "r", "r", "r", "r", "r", "l"}}
	for _, x := range v.Timing {
		st := map[string]string{ClassSlower: "fail", ClassFaster: "pass", ClassNotComparable: "skip", ClassNotTested: "skip"}[x.Class]
		t.Add(st, x.Case, x.Implementation, fnum("%.4g", float64(x.ReportMedianMs)), fnum("%.4g", float64(x.RerunMedianMs)),
			fmt.Sprintf("%d / %d", x.ReportRuns, x.RerunRuns), fnum("%.3f", float64(x.Ratio)),
			fnum("%.3f", float64(x.Lo))+" – "+fnum("%.3f", float64(x.Hi)), fnum("%.2g", float64(x.P)), fnum("%.2g", float64(x.PHolm)), x.Class)
	}
	s := v.Stats
	t.Note = fmt.Sprintf("Ratio = "+v.Rerun.Name+" median / "+v.Report.Name+" median of the per-run times; %s, %s at α = %g; slower or faster only when the adjusted p is at most α and the whole interval lies beyond a %.0f %% move.",
		s.Test, s.Correction, s.Alpha, 100*s.MinEffect)
	if len(v.Comparable) > 0 {
		t.Note += " Not comparable: " + strings.Join(v.Comparable, "; ") + "."
	}
	return t.HTML()
}

// VerifyEnvironmentsHTML puts both environments side by side.
func VerifyEnvironmentsHTML(v *Verification) string {
	a, b := v.Report, v.Rerun
	t := &Table{Caption: "Environments", Header: []string{"", v.Report.Name, v.Rerun.Name}, Align: []string{"l", "l", "l"}}
	load := func(e Evidence) string {
		if e.Env.LoadAverage == "" {
			return "not recorded"
		}
		return e.Env.LoadAverage
	}
	t.Add("", "date (UTC)", a.Env.Date, b.Env.Date)
	t.Add("", "commit", a.Env.Commit, b.Env.Commit)
	t.Add("", "machine", Machine(a), Machine(b))
	t.Add("", "GOMAXPROCS", fmt.Sprint(a.Env.GOMAXPROCS), fmt.Sprint(b.Env.GOMAXPROCS))
	// A row neither report recorded says nothing: it is left out.
	if a.Env.LoadAverage != "" || b.Env.LoadAverage != "" {
		t.Add("", "load average (1, 5, 15 min)", load(a), load(b))
	}
	other := func(e Evidence) string {
		if e.Env.OtherCPU == nil {
			return "not recorded"
		}
		return fmt.Sprintf("%.1f %%", 100**e.Env.OtherCPU)
	}
	if a.Env.OtherCPU != nil || b.Env.OtherCPU != nil {
		t.Add("", "other processes' share of the cores while timing", other(a), other(b))
	}
	t.Add("", "Go, OS", a.Env.GoVersion+", "+a.Env.OS, b.Env.GoVersion+", "+b.Env.OS)
	for _, d := range a.Data {
		got := "not read"
		if i := slices.IndexFunc(b.Data, func(x DataFact) bool { return x.Key == d.Key }); i >= 0 {
			got = b.Data[i].Identity
		}
		st := "pass"
		if got != d.Identity {
			st = "skip"
		}
		t.Add(st, "data: "+d.Key, shortID(d.Identity), shortID(got))
	}
	return t.HTML()
}

// VerifyRatioChart draws every timed row's ratio of medians (rerun
// over report; a dot) with its 95 % interval (a bar from low to high), on a
// log axis with the 5 % band around 1 marked: a row is called slower or
// faster only when its whole bar clears the band and the corrected test rejects.
func VerifyRatioChart(v *Verification) *Chart {
	var names []string
	var lo, span []opts.BarData
	var dots []opts.ScatterData
	for _, t := range v.Timing {
		if !t.Ratio.Valid() {
			continue
		}
		names = append(names, t.Case+" · "+t.Implementation+" ("+t.Class+")")
		l, h := float64(t.Lo), float64(t.Hi)
		if !t.Lo.Valid() || !t.Hi.Valid() {
			l, h = float64(t.Ratio), float64(t.Ratio)
		}
		lo = append(lo, opts.BarData{Value: r3(l)})
		span = append(span, opts.BarData{Value: r3(h - l)})
		dots = append(dots, opts.ScatterData{Value: []any{r3(float64(t.Ratio)), len(names) - 1}})
	}
	if len(names) == 0 {
		return nil
	}
	e := 1 + v.Stats.MinEffect
	bar := charts.NewBar()
	bar.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Renderer: "canvas", BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "Rerun / report, ratio of medians", Subtitle: fmt.Sprintf("dot: ratio; bar: 95 %% interval; dashed: 1 and the ±%.0f %% band", 100*v.Stats.MinEffect)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "ratio", Min: r3(0.9 * minRatio(lo)), Scale: opts.Bool(true)}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: names, Inverse: opts.Bool(true)}),
		charts.WithGridOpts(opts.Grid{Left: "300", Right: "60", Top: "70", Bottom: "30"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(false)}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
	)
	bar.AddSeries("low", lo, charts.WithBarChartOpts(opts.BarChart{Stack: "ci"}), charts.WithItemStyleOpts(opts.ItemStyle{Opacity: opts.Float(0)}))
	bar.AddSeries("95 % interval", span, charts.WithBarChartOpts(opts.BarChart{Stack: "ci", BarWidth: "40%"}), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#9ec5e8"}),
		charts.WithMarkLineNameXAxisItemOpts(opts.MarkLineNameXAxisItem{Name: "1", XAxis: 1}, opts.MarkLineNameXAxisItem{Name: "-", XAxis: r3(1 / e)}, opts.MarkLineNameXAxisItem{Name: "+", XAxis: r3(e)}),
		charts.WithMarkLineStyleOpts(opts.MarkLineStyle{Symbol: []string{"none", "none"}, Label: &opts.Label{Show: opts.Bool(false)}, LineStyle: &opts.LineStyle{Type: "dashed", Color: "#888"}}))
	sc := charts.NewScatter()
	sc.AddSeries("ratio", dots, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#1a1a1a"}))
	bar.Overlap(sc)
	return &Chart{ID: ChartVerifyRatio, Height: fmt.Sprintf("%dpx", 120+30*len(names)), Chart: bar}
}

func minRatio(lo []opts.BarData) float64 {
	m := 1.0
	for _, b := range lo {
		if x, ok := b.Value.(float64); ok && x > 0 && x < m {
			m = x
		}
	}
	return m
}

// shortID abbreviates a SHA-256 to 16 hex digits (a generated graph's identity stays whole).
func shortID(id string) string {
	if len(id) == 64 && strings.Trim(id, "0123456789abcdef") == "" {
		return "sha256 " + id[:16] + "…"
	}
	return id
}
