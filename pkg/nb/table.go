package nb

import (
	"fmt"
	"html"
	"math"
	"strings"
)

func escape(s string) string { return html.EscapeString(s) }

// Table is a small HTML table builder for notebook outputs: a caption,
// header cells, rows of cells (text, escaped), and optional per-row CSS
// classes ("pass", "fail", "skip"). It renders with inline styles so it looks
// the same in Jupyter Notebook, JupyterLab, the nbconvert export and GitHub.
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string
	Status  []string // per row: "pass", "fail", "skip" or ""
	Align   []string // per column: "l" or "r" (default "r" for cells that look numeric)
	Note    string   // a line under the table (escaped)
}

// Add appends one row with a status ("pass", "fail", "skip" or "").
func (t *Table) Add(status string, cells ...string) {
	t.Rows = append(t.Rows, cells)
	t.Status = append(t.Status, status)
}

var statusStyle = map[string]string{
	"pass": "background:#eef8ee",
	"fail": "background:#fbeaea",
	"skip": "background:#f4f4f4;color:#777",
}

// HTML renders the table.
func (t *Table) HTML() string {
	var b strings.Builder
	b.WriteString(`<table class="prlab-table" style="border-collapse:collapse;font:13px/1.35 sans-serif;margin:6px 0">`)
	if t.Caption != "" {
		fmt.Fprintf(&b, `<caption style="text-align:left;font-weight:bold;padding:4px 0">%s</caption>`, escape(t.Caption))
	}
	b.WriteString("<thead><tr>")
	for _, h := range t.Header {
		fmt.Fprintf(&b, `<th style="border-bottom:2px solid #999;padding:3px 8px;text-align:left">%s</th>`, escape(h))
	}
	b.WriteString("</tr></thead><tbody>")
	for i, row := range t.Rows {
		style := ""
		if i < len(t.Status) {
			style = statusStyle[t.Status[i]]
		}
		fmt.Fprintf(&b, `<tr style="%s">`, style)
		for j, c := range row {
			align := "left"
			if j < len(t.Align) {
				if t.Align[j] == "r" {
					align = "right"
				}
			} else if numeric(c) {
				align = "right"
			}
			wrap := "white-space:nowrap"
			if len(c) > 48 { // long text wraps instead of widening the table past the page
				wrap = "white-space:normal;min-width:220px;max-width:460px"
			}
			fmt.Fprintf(&b, `<td style="border-bottom:1px solid #ddd;padding:2px 8px;text-align:%s;%s">%s</td>`, align, wrap, escape(c))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	if t.Note != "" {
		fmt.Fprintf(&b, `<div style="font:12px sans-serif;color:#555;margin-bottom:8px">%s</div>`, escape(t.Note))
	}
	return b.String()
}

// Markdown renders the table as GitHub-flavoured Markdown (status as a column).
func (t *Table) Markdown() string {
	var b strings.Builder
	if t.Caption != "" {
		fmt.Fprintf(&b, "**%s**\n\n", t.Caption)
	}
	b.WriteString("| " + strings.Join(t.Header, " | ") + " |\n|")
	for range t.Header {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, row := range t.Rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	if t.Note != "" {
		b.WriteString("\n" + t.Note + "\n")
	}
	return b.String()
}

func numeric(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || s == "—" {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789+-.eE%x×, ", r) {
			return false
		}
	}
	return true
}

// fnum formats a float with format f, or "—" when it is NaN or infinite.
func fnum(f string, x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	return fmt.Sprintf(f, x)
}

// Para is a paragraph of escaped text for notebook output.
func Para(format string, args ...any) string {
	return `<p style="font:13px/1.4 sans-serif;max-width:1000px">` + escape(fmt.Sprintf(format, args...)) + `</p>`
}
