package report

import (
	"fmt"
	"html/template"
	"slices"
	"strings"
)

var matrixTemplate = template.Must(template.New("matrix").Parse(`<div class="prlab-matrix" style="overflow-x:auto;max-width:100%">
<table id="correctness-matrix" style="border-collapse:collapse;font:12.5px/1.3 -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:6px 0">
<tr><th style="padding:3px 6px;text-align:left;border-bottom:2px solid #999">implementation</th>{{range .Cases}}<th style="padding:3px 6px;border-bottom:2px solid #999;white-space:nowrap">{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td style="padding:2px 6px;white-space:nowrap;border-bottom:1px solid #e4e4e4"><code>{{.Implementation}}</code>{{if .Exercise}} <span style="color:#777">(exercise)</span>{{end}}</td>{{range .Cells}}<td title="{{.Title}}" class="cell-{{.Status}}" style="padding:2px 6px;text-align:center;border:1px solid #fff;white-space:nowrap;{{.Style}}">{{.Text}}</td>{{end}}</tr>
{{end}}</table>
<div style="font:12px sans-serif;color:#555;margin-bottom:8px">One cell per case × implementation ({{.Iterations}} fixed iterations on both sides, against <code>{{.Oracle}}</code>); hover a cell for err/tol, sum − 1 and Spearman ρ. {{.Legend}}</div>
</div>`))

type matrixCell struct {
	Status, Text, Title string
	Style               template.CSS // one of cellStyle's constants: html/template would replace a plain string in a style attribute by ZgotmplZ
}

type matrixRow struct {
	Implementation string
	Exercise       bool
	Cells          []matrixCell
}

var cellStyle = map[string]template.CSS{
	StatusPass:    "background:#dff0df;color:#11661b",
	StatusFail:    "background:#f6d5d5;color:#b00020;font-weight:600",
	StatusFailed:  "background:#f6d5d5;color:#b00020;font-weight:600",
	StatusSkipped: "background:#f0f0f0;color:#888",
}

// CorrectnessMatrixHTML is the correctness table folded to one cell per case
// × implementation (pass, fail, failed or skipped; the cell's title holds
// err/tol, sum − 1 against the allowed bound and Spearman ρ, or why it was
// skipped). Rows are implementations in registry order, columns the cases in
// run order. The exercise variant is marked: it is meant to fail wherever a
// case has dangling nodes.
func CorrectnessMatrixHTML(run *Run) (template.HTML, error) {
	impls, cases := correctnessAxes(run)
	kind := map[string]string{}
	cell := map[[2]string]Check{}
	for _, c := range run.Correctness {
		kind[c.Implementation] = c.Kind
		cell[[2]string{c.Implementation, c.Case}] = c
	}
	var rows []matrixRow
	for _, im := range impls {
		r := matrixRow{Implementation: im, Exercise: kind[im] == KindExercise}
		for _, cs := range cases {
			c, ok := cell[[2]string{im, cs}]
			if !ok {
				r.Cells = append(r.Cells, matrixCell{Status: "none", Text: "—", Title: "not run"})
				continue
			}
			m := matrixCell{Status: c.Status, Text: c.Status, Style: cellStyle[c.Status]}
			switch c.Status {
			case StatusPass:
				m.Text = "✔"
			case StatusFail, StatusFailed:
				m.Text = "✘ " + c.Status
			case StatusSkipped:
				m.Text = "skip"
			}
			if c.Status == StatusSkipped && run.GPUSkipped != "" && c.Reason == run.GPUSkipped {
				m.Title = fmt.Sprintf("%s on %s: skipped, no GPU here (the reason is under the matrix)", im, cs)
			} else if c.Status == StatusSkipped || c.Status == StatusFailed {
				m.Title = fmt.Sprintf("%s on %s: %s", im, cs, ShortReason(c.Reason))
			} else {
				m.Title = fmt.Sprintf("%s on %s: err/tol %s, sum−1 %s (allowed %s), Spearman ρ %s", im, cs,
					fnumF("%.3f", c.ErrOverTol), fnumF("%+.2e", c.SumMinus1), fnumF("%.2e", c.SumAllowed), fnumF("%.6f", c.Spearman))
			}
			r.Cells = append(r.Cells, m)
		}
		rows = append(rows, r)
	}
	legend := "✔ pass, ✘ fail (a gate missed) or failed (an error), skip: could not run here."
	if run.GPUSkipped != "" {
		legend += " GPU rows skipped: " + ShortReason(run.GPUSkipped)
	}
	var b strings.Builder
	err := matrixTemplate.Execute(&b, struct {
		Cases      []string
		Rows       []matrixRow
		Iterations int
		Oracle     string
		Legend     string
	}{cases, rows, run.Protocol.Iterations, run.Protocol.Oracle, legend})
	if err != nil {
		return "", fmt.Errorf("correctness matrix: %w", err)
	}
	return template.HTML(b.String()), nil
}

func fnumF(format string, x F) string {
	if !x.Valid() {
		return "—"
	}
	return fmt.Sprintf(format, float64(x))
}

// correctnessAxes are the implementations and the cases of run's
// correctness rows, each in the order it first appears.
func correctnessAxes(run *Run) (impls, cases []string) {
	for _, c := range run.Correctness {
		if !slices.Contains(impls, c.Implementation) {
			impls = append(impls, c.Implementation)
		}
		if !slices.Contains(cases, c.Case) {
			cases = append(cases, c.Case)
		}
	}
	return impls, cases
}
