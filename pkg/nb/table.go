package nb

import (
	"fmt"
	"html"
	"math"

	"github.com/prlab/prlab/pkg/report"
)

func escape(s string) string { return html.EscapeString(s) }

// Table is report.Table, the HTML table of every notebook output (inline
// styles, wide tables scroll).
type Table = report.Table

// Para is a paragraph of escaped text for notebook output (report.Para).
func Para(format string, args ...any) string { return report.Para(format, args...) }

// fnum formats a float with format f, or "—" when it is NaN or infinite.
func fnum(f string, x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	return fmt.Sprintf(f, x)
}
