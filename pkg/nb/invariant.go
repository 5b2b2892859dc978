package nb

import (
	"fmt"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/reference"
)

// InvariantStep is one iteration of the sum invariant, term by term. Summing
// the update x'[v] = (1-d)/n + d*(sum over citers u of x[u]/outdeg[u] + D/n)
// over all v gives
//
//	S' = (1-d) + d*(S - D) + d*D = (1-d) + d*S
//
// the constant term brings 1-d, the SpMV passes on d times the rank of the
// non-dangling nodes, and the redistribution gives back d*D; with S = 1 the
// new sum is 1 again (course capstone, "Now test the prediction with an
// invariant"). Without the redistribution the last term is missing and the
// sum becomes 1 - d*D.
type InvariantStep struct {
	Iteration int     // k, 1-based: the step from x_{k-1} to x_k
	S         float64 // sum of x_{k-1}
	D         float64 // rank on dangling nodes in x_{k-1}
	Teleport  float64 // (1-d), the constant term summed over n nodes
	Links     float64 // d*(S - D), what the SpMV passes along citations
	Dangling  float64 // d*D, the redistributed dangling rank
	Next      float64 // sum of x_k as the oracle computed it
	Broken    float64 // sum of x_k without the redistribution, from the same x_{k-1}: (1-d) + d*(S-D)
}

// Invariant runs the oracle on g for 1..k iterations and returns the sum
// invariant's terms for each step (k small: the oracle is re-run from the
// start for every step, O(k^2) iterations).
func Invariant(g *pagerank.Graph, k int) ([]InvariantStep, error) {
	d := pagerank.DefaultDamping
	prev := make([]float64, g.N)
	for i := range prev {
		prev[i] = 1 / float64(g.N)
	}
	var out []InvariantStep
	for it := 1; it <= k; it++ {
		res, err := reference.Oracle().Run(g, pagerank.Fixed(it))
		if err != nil {
			return nil, err
		}
		var S float64
		for _, x := range prev {
			S += x
		}
		D := DanglingMass(g, prev)
		out = append(out, InvariantStep{Iteration: it, S: S, D: D, Teleport: 1 - d, Links: d * (S - D), Dangling: d * D,
			Next: res.FinalSum(), Broken: (1 - d) + d*(S-D)})
		prev = res.Ranks
	}
	return out, nil
}

// InvariantTable renders Invariant's steps.
func InvariantTable(g *pagerank.Graph, steps []InvariantStep) string {
	t := &Table{
		Caption: fmt.Sprintf("The sum invariant on %s (n = %d, %d dangling), term by term", g.Name, g.N, g.DanglingCount),
		Header:  []string{"k", "S = Σ x_{k−1}", "D (dangling rank)", "1 − d", "d·(S − D) via SpMV", "d·D redistributed", "sum of the three", "Σ x_k (oracle)", "without redistribution: 1 − d·D"},
	}
	for _, s := range steps {
		t.Add("", fmt.Sprint(s.Iteration), fmt.Sprintf("%.15f", s.S), fmt.Sprintf("%.9f", s.D), fmt.Sprintf("%.2f", s.Teleport),
			fmt.Sprintf("%.9f", s.Links), fmt.Sprintf("%.9f", s.Dangling), fmt.Sprintf("%.15f", s.Teleport+s.Links+s.Dangling),
			fmt.Sprintf("%.15f", s.Next), fmt.Sprintf("%.9f", s.Broken))
	}
	t.Note = "Each row starts from the oracle's x_{k−1} (sum 1), so the last column is the sum one iteration without the redistribution would produce from it: exactly 1 − d·D."
	return t.HTML()
}

// SumsChart draws the sum of ranks after each iteration for the correct
// oracle and the broken (no redistribution) variant, with the predicted
// fixed-point total 1 − D·d/(1−d) as a flat line.
func SumsChart(e *Exercise) (string, error) {
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Renderer: "canvas", BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "Sum of ranks after each iteration on " + e.Graph, Subtitle: "correct (dangling rank redistributed) vs the exercise's broken variant"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "iteration", Min: 0}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "Σ x", Scale: opts.Bool(true)}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithGridOpts(opts.Grid{Left: "80", Right: "90", Bottom: "70", Top: "70"}),
	)
	series := func(sums []float64) []opts.LineData {
		out := []opts.LineData{{Value: []any{0, 1.0}}}
		for k, s := range sums {
			out = append(out, opts.LineData{Value: []any{k + 1, s}})
		}
		return out
	}
	flat := []opts.LineData{{Value: []any{0, e.Predicted}}, {Value: []any{len(e.FirstSums), e.Predicted}}}
	line.AddSeries("correct (oracle)", series(e.FirstOracle), charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	line.AddSeries("no redistribution (broken)", series(e.FirstSums), charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	line.AddSeries("predicted 1 − D·d/(1−d)", flat, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
		charts.WithLineStyleOpts(opts.LineStyle{Type: "dashed"}))
	return ChartHTML(line, "400px")
}

// TopComparison puts the oracle's top k and the broken variant's top k side
// by side, with titles, and marks every row where the two lists differ.
func TopComparison(g *pagerank.Graph, papers *pagerank.Papers, e *Exercise) string {
	t := &Table{
		Caption: fmt.Sprintf("Top %d on %s: correct vs without dangling redistribution", e.TopK, e.Graph),
		Header:  []string{"rank", "correct: id", "score", "broken: id", "score", "broken / correct", "same paper", "year", "title"},
		Align:   []string{"r", "l", "r", "l", "r", "r", "l", "r", "l"},
	}
	for i := range e.OracleTop {
		a, b := e.OracleTop[i], e.BrokenTop[i]
		same := a == b
		status := "pass"
		if !same {
			status = "fail"
		}
		year, title := "—", "(no metadata row)"
		if p, ok := papers.Lookup(g.ID(a)); ok {
			if p.Year > 0 {
				year = fmt.Sprint(p.Year)
			}
			title = p.Title
		}
		t.Add(status, fmt.Sprint(i+1), g.ID(a), fmt.Sprintf("%.7f", e.OracleRanks[a]), g.ID(b), fmt.Sprintf("%.7f", e.BrokenRanks[b]),
			fmt.Sprintf("%.6f", e.BrokenRanks[b]/e.OracleRanks[a]), yesNo(same), year, title)
	}
	return t.HTML()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}
