package nb

import (
	"html"

	"github.com/prlab/prlab/pkg/report"
)

func escape(s string) string { return html.EscapeString(s) }

// Table is report.Table, the HTML table of every notebook output (inline
// styles, wide tables scroll).
type Table = report.Table

// Para is a paragraph of escaped text for notebook output (report.Para).
func Para(format string, args ...any) string { return report.Para(format, args...) }
