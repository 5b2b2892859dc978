package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"regexp"
	"slices"
	"strings"
)

// BestScaleGPU is the GPU implementation with the least time per iteration
// on the largest graph of the family that has a passing GPU row ("" when
// none has).
func BestScaleGPU(s *ScaleStudy, family string) string {
	var best ScaleRow
	found := false
	for _, r := range s.Rows {
		if r.Family != family || r.Kind != KindGPU || r.Status != StatusPass || !(r.MsPerIter > 0) {
			continue
		}
		if !found || r.NNZ > best.NNZ || (r.NNZ == best.NNZ && r.MsPerIter < best.MsPerIter) {
			best, found = r, true
		}
	}
	return best.Implementation
}

// ScaleFindings are the sentences a reader of a scale study should not miss,
// computed from its rows, in a small markup (**bold**, `code`; see
// ScaleFindingsHTML): the fastest GPU and its margin on the largest graph of
// each family, where each GPU implementation crosses the fastest multi-core
// CPU row (R-MAT), every implementation that failed validation (where, and
// by how much) and every one that was skipped (where, and why).
func ScaleFindings(s *ScaleStudy) []string {
	var lines []string
	for _, fam := range []string{FamilyRMAT, FamilyGrid} {
		best := BestScaleGPU(s, fam)
		if best == "" {
			continue
		}
		var top ScaleRow
		for _, r := range s.Rows {
			if r.Family == fam && r.Implementation == best && r.Status == StatusPass && r.NNZ >= top.NNZ {
				top = r
			}
		}
		floor := "of the byte floor"
		if len(lines) == 0 {
			// The first use defines the term, with this row's numbers.
			floor = fmt.Sprintf("of the byte floor (byte floor = the %s bytes one iteration must move / the measured copy rate, %s GB/s = %s ms; 1 = at the floor)",
				commas(int(top.FloorBytes)), fnumF("%.0f", top.CopyGBps), fnumF("%.3g", top.FloorMs))
		}
		if top.CodeFloorBytes > 0 {
			floor += fmt.Sprintf(" and %s of the compressed-stream floor (%s bytes: the 16-bit column code's 2 bytes per edge in place of 4, %s ms)",
				fnumF("%.3f", top.CodeFloorFraction), commas(int(top.CodeFloorBytes)), fnumF("%.3g", top.CodeFloorMs))
			floor += "; " + beaten(top)
		}
		largest := "the largest " + FamilyName(fam) + " graph"
		if larger := largerGraph(s, fam, top.NNZ); larger != "" {
			largest = "the largest " + FamilyName(fam) + " graph with a timed GPU row (" + larger + "'s were not)"
		}
		lines = append(lines, fmt.Sprintf("**Fastest GPU on %s** (%s, %s edges): `%s`, %s ms per iteration, %s GTEPS, %s %s, %s× the fastest multi-core CPU row.",
			largest, top.Graph, commas(top.NNZ), best, fnumF("%.3g", top.MsPerIter), fnumF("%.3g", top.GTEPS),
			fnumF("%.3f", top.FloorFraction), floor, fnumF("%.1f", top.SpeedupVsCPU)))
	}
	if c := crossover(s, FamilyRMAT); c != "" {
		lines = append(lines, c)
	}
	type group struct {
		graphs []string
		reason string
		n      int
	}
	collect := func(status func(string) bool) ([]string, map[string]*group) {
		var order []string
		m := map[string]*group{}
		for _, r := range s.Rows {
			if !status(r.Status) {
				continue
			}
			g, ok := m[r.Implementation]
			if !ok {
				g = &group{}
				m[r.Implementation] = g
				order = append(order, r.Implementation)
			}
			g.graphs = append(g.graphs, r.Graph)
			g.reason = r.Reason // the last (largest graph's) reason
			g.n++
		}
		return order, m
	}
	ran := func(impl string) []string {
		var out []string
		for _, r := range s.Rows {
			if r.Implementation == impl && r.Status != StatusSkipped {
				out = append(out, r.Graph)
			}
		}
		return out
	}
	order, failed := collect(func(st string) bool { return st == StatusFail || st == StatusFailed })
	for _, im := range order {
		g := failed[im]
		lines = append(lines, fmt.Sprintf("**`%s` fails** on %d of %d graphs (%s); on the last: %s.", im, g.n, len(s.Graphs), strings.Join(g.graphs, ", "), g.reason))
	}
	// Implementations skipped on the same graphs for the same reason (every
	// GPU design without the CUDA library) are one line, not one each.
	order, skipped := collect(func(st string) bool { return st == StatusSkipped })
	type skipLine struct {
		impls []string
		where string
		g     *group
	}
	var skips []*skipLine
	for _, im := range order {
		g := skipped[im]
		where := strings.Join(g.graphs, ", ")
		if g.n > 4 {
			where = "every graph"
			if r := ran(im); len(r) > 0 {
				where = "every graph but " + strings.Join(r, ", ")
			}
		}
		i := slices.IndexFunc(skips, func(l *skipLine) bool { return l.where == where && l.g.n == g.n && l.g.reason == g.reason })
		if i < 0 {
			skips = append(skips, &skipLine{where: where, g: g})
			i = len(skips) - 1
		}
		skips[i].impls = append(skips[i].impls, im)
	}
	for _, l := range skips {
		what := fmt.Sprintf("**`%s` is skipped**", l.impls[0])
		if len(l.impls) > 1 {
			what = fmt.Sprintf("**%d implementations are skipped** (`%s`)", len(l.impls), strings.Join(l.impls, "`, `"))
		}
		lines = append(lines, fmt.Sprintf("%s on %d of %d graphs (%s): %s.", what, l.g.n, len(s.Graphs), l.where, clipText(ShortReason(l.g.reason), 220)))
	}
	return lines
}

func clipText(s string, n int) string {
	if len([]rune(s)) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}

// crossover says, for one family, from which graph on each GPU
// implementation beats the fastest multi-core CPU row (speed-up > 1 on that
// graph and every larger one it passed).
func crossover(s *ScaleStudy, family string) string {
	type pt struct {
		graph string
		nnz   int
		x     float64
	}
	pts := map[string][]pt{}
	var impls []string
	smallest := ""
	smallestNNZ := math.MaxInt
	for _, r := range s.Rows {
		if r.Family != family {
			continue
		}
		if r.NNZ < smallestNNZ {
			smallest, smallestNNZ = r.Graph, r.NNZ
		}
		if r.Kind != KindGPU || r.Status != StatusPass || !r.SpeedupVsCPU.Valid() {
			continue
		}
		if !slices.Contains(impls, r.Implementation) {
			impls = append(impls, r.Implementation)
		}
		pts[r.Implementation] = append(pts[r.Implementation], pt{r.Graph, r.NNZ, float64(r.SpeedupVsCPU)})
	}
	if len(impls) == 0 {
		return ""
	}
	var always, later []string
	for _, im := range impls {
		p := pts[im]
		slices.SortFunc(p, func(a, b pt) int { return a.nnz - b.nnz })
		from := -1
		for i := len(p) - 1; i >= 0 && p[i].x > 1; i-- {
			from = i
		}
		switch {
		case from == 0 && p[0].graph == smallest:
			always = append(always, "`"+im+"`")
		case from > 0:
			later = append(later, fmt.Sprintf("`%s` beats it only from %s on (%s edges, %.2f×; %.2f× on %s)", im, p[from].graph, commas(p[from].nnz), p[from].x, p[from-1].x, p[from-1].graph))
		case from == 0:
			later = append(later, fmt.Sprintf("`%s` beats it from %s on (%s edges, %.2f×), its smallest passing graph", im, p[0].graph, commas(p[0].nnz), p[0].x))
		default:
			later = append(later, fmt.Sprintf("`%s` does not beat it on its largest passing graph (%.2f× on %s)", im, p[len(p)-1].x, p[len(p)-1].graph))
		}
	}
	md := fmt.Sprintf("**Crossover (%s, against the fastest multi-core CPU row of the same graph):** ", FamilyName(family))
	if len(always) > 0 {
		md += fmt.Sprintf("%d of %d GPU implementations that ran (%s) beat it already on the smallest graph (%s, %s edges) and on every larger one they passed",
			len(always), len(impls), strings.Join(always, ", "), smallest, commas(smallestNNZ))
		if len(later) > 0 {
			md += "; "
		}
	}
	md += strings.Join(later, "; ")
	return md + "."
}

var (
	boldMark = regexp.MustCompile(`\*\*(.+?)\*\*`)
	codeMark = regexp.MustCompile("`([^`]+)`")
)

// InlineHTML turns the findings' markup (**bold**, `code`) into HTML; the
// text is escaped first.
func InlineHTML(s string) template.HTML {
	h := html.EscapeString(s)
	h = codeMark.ReplaceAllString(h, "<code>$1</code>")
	h = boldMark.ReplaceAllString(h, "<b>$1</b>")
	return template.HTML(h)
}

// ScaleFindingsHTML is ScaleFindings as the list that opens the scale page
// (id "summary") and notebook 05, with the run's machine and extent first.
func ScaleFindingsHTML(s *ScaleStudy) template.HTML {
	var b strings.Builder
	b.WriteString(`<div id="summary" class="prlab-summary" style="border:1px solid #b8c7d9;background:#f5f8fc;padding:8px 14px;margin:10px 0 16px 0;font:14px/1.4 -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;max-width:1060px;break-inside:avoid">`)
	machine := fmt.Sprintf("%s, %d logical CPUs", s.Env.CPUModel, s.Env.CPUCores)
	if g := s.GPU; g != nil {
		machine = fmt.Sprintf("%s (compute capability %s, %d SMs), host %s", g.Name, g.ComputeCapability, g.SMs, machine)
	} else {
		machine += "; no GPU (" + clipText(ShortReason(s.GPUSkipped), 160) + ")"
	}
	state := "complete"
	if !s.Complete {
		state = "partial (a checkpoint)"
	}
	rows := fmt.Sprintf("%d rows", len(s.Rows))
	if n := countStatus(s.Rows, StatusSkipped); n > 0 {
		rows += fmt.Sprintf(" (%d skipped)", n)
	}
	fmt.Fprintf(&b, `<div style="margin-bottom:4px">%s: <b>%s</b>; %d graphs, %s, %s, %.0f s.</div>`,
		html.EscapeString(s.Name), html.EscapeString(machine), len(s.Graphs), rows, state, s.ElapsedS)
	lines := ScaleFindings(s)
	if len(lines) == 0 {
		b.WriteString("<p>No rows in this report.</p>")
	} else {
		b.WriteString(`<ul style="margin:4px 0;padding-left:20px">`)
		for _, l := range lines {
			fmt.Fprintf(&b, "<li>%s</li>", InlineHTML(l))
		}
		b.WriteString("</ul>")
	}
	b.WriteString("</div>")
	return template.HTML(b.String())
}

// beaten says which of row r's two floors its time beats (a fraction above
// 1): both, only the byte floor, or neither.
func beaten(r ScaleRow) string {
	switch {
	case r.CodeFloorFraction > 1:
		return "it beats both floors"
	case r.FloorFraction > 1:
		return "it beats the byte floor, not the compressed-stream floor"
	default:
		return "it beats neither floor"
	}
}

// largerGraph names the largest graph of family fam with more than nnz
// edges that the study built ("" when none): its GPU rows were not timed.
func largerGraph(s *ScaleStudy, fam string, nnz int) string {
	name, most := "", nnz
	for _, g := range s.Graphs {
		if g.Family == fam && g.Skipped == "" && g.NNZ > most {
			name, most = g.Name, g.NNZ
		}
	}
	return name
}

// countStatus counts the rows with status st.
func countStatus(rows []ScaleRow, st string) int {
	n := 0
	for _, r := range rows {
		if r.Status == st {
			n++
		}
	}
	return n
}
