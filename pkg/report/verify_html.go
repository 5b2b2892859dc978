package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"strings"
	"time"
)

//go:embed verify.html.tmpl
var verifyTemplate string

// Machine names the hardware of e in words: the GPU with its kernel driver
// (where recorded), CUDA driver API and runtime versions when one ran, else the CPU and its cores.
func Machine(e Evidence) string {
	if e.GPU != nil && e.GPU.Name != "" {
		if e.GPU.KernelDriver != "" {
			return fmt.Sprintf("%s with driver %s (CUDA driver API %s) and CUDA runtime %s", e.GPU.Name, e.GPU.KernelDriver, orNone(e.GPU.Driver), orNone(e.GPU.Runtime))
		}
		return fmt.Sprintf("%s with CUDA driver API %s and CUDA runtime %s", e.GPU.Name, orNone(e.GPU.Driver), orNone(e.GPU.Runtime))
	}
	return fmt.Sprintf("%s (%d logical cores, no GPU)", e.Env.CPUModel, e.Env.CPUCores)
}

func day(rfc3339 string) string {
	if t, err := time.Parse(time.RFC3339, rfc3339); err == nil {
		return t.UTC().Format("2006-01-02")
	}
	return rfc3339
}

// paragraph is the course-style summary: "Re-verified on <GPU> with driver
// <d> and CUDA <c> on <date>. Every correctness gate reproduced / these did
// not: …. Timing: … unchanged, … faster, … slower (largest move: …)."
func paragraph(v *Verification) string {
	a, b := v.Report, v.Rerun
	var s strings.Builder
	if v.Mode == "verify" {
		fmt.Fprintf(&s, "Re-verified %s on %s on %s.", a.Name, Machine(b), day(b.Env.Date))
	} else {
		fmt.Fprintf(&s, "Compared %s (%s, %s) with %s (%s, %s).", b.Name, Machine(b), day(b.Env.Date), a.Name, Machine(a), day(a.Env.Date))
	}
	if !v.SameData {
		fmt.Fprintf(&s, " Not the same data, nothing compared: %s.", strings.TrimPrefix(v.DataError, ErrNotSameData.Error()+": "))
		return s.String()
	}
	var fails []string
	n := 0
	for _, g := range v.Gates {
		if g.Gate == GateSlowdown {
			continue
		}
		n++
		if !g.Pass {
			fails = append(fails, v.Line(g))
		}
	}
	if len(fails) == 0 {
		fmt.Fprintf(&s, " Every correctness gate reproduced (%d checks: statuses, convergence counts, top orders, ρ and sum − 1).", n)
	} else {
		shown := fails
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(fails)-5))
		}
		fmt.Fprintf(&s, " %d of %d correctness checks did not reproduce: %s.", len(fails), n, strings.Join(shown, "; "))
	}
	if len(v.Timing) == 0 {
		s.WriteString(" Timing: no row was timed in both.")
		return s.String()
	}
	count := map[string]int{}
	var big *TimingCompare
	for i := range v.Timing {
		t := &v.Timing[i]
		count[t.Class]++
		if t.Ratio.Valid() && t.Ratio > 0 && (big == nil || math.Abs(math.Log(float64(t.Ratio))) > math.Abs(math.Log(float64(big.Ratio)))) {
			big = t
		}
	}
	fmt.Fprintf(&s, " Timing: %d unchanged, %d faster, %d slower", count[ClassUnchanged], count[ClassFaster], count[ClassSlower])
	if k := count[ClassNotTested]; k > 0 {
		fmt.Fprintf(&s, ", %d with too few runs to test", k)
	}
	if k := count[ClassNotComparable]; k > 0 {
		fmt.Fprintf(&s, ", %d not comparable (%s)", k, strings.Join(v.Comparable, "; "))
	}
	if big != nil {
		fmt.Fprintf(&s, " (largest move: %s%s %.4g → %.4g ms, %.2f×, %s)", big.Implementation, caseSuffix(big.Case, v),
			float64(big.ReportMedianMs), float64(big.RerunMedianMs), float64(big.Ratio), big.Class)
	}
	s.WriteString(".")
	return s.String()
}

// caseSuffix names the case when the timings span more than one (scale study).
func caseSuffix(c string, v *Verification) string {
	for _, t := range v.Timing {
		if t.Case != c {
			return " on " + c
		}
	}
	return ""
}

// VerifyCSVRow is one row of verify.csv: section "gate" or "timing".
type VerifyCSVRow struct {
	Section        string `csv:"section"`
	Gate           string `csv:"gate"`
	Table          string `csv:"table"`
	Case           string `csv:"case"`
	Implementation string `csv:"implementation"`
	Report         string `csv:"report"`
	Rerun          string `csv:"rerun"`
	Pass           string `csv:"pass"`
	Ratio          F      `csv:"ratio"`
	RatioLo        F      `csv:"ratio_lo"`
	RatioHi        F      `csv:"ratio_hi"`
	P              F      `csv:"p"`
	PHolm          F      `csv:"p_holm"`
	Class          string `csv:"class"`
	Note           string `csv:"note"`
}

// VerifyCSVRows flattens v into verify.csv rows.
func VerifyCSVRows(v *Verification) []VerifyCSVRow {
	var rows []VerifyCSVRow
	for _, g := range v.Gates {
		rows = append(rows, VerifyCSVRow{Section: "gate", Gate: g.Gate, Table: g.Table, Case: g.Case, Implementation: g.Implementation,
			Report: g.Report, Rerun: g.Rerun, Pass: fmt.Sprint(g.Pass), Ratio: NaN, RatioLo: NaN, RatioHi: NaN, P: NaN, PHolm: NaN, Note: g.Note})
	}
	for _, t := range v.Timing {
		rows = append(rows, VerifyCSVRow{Section: "timing", Table: TableTiming, Case: t.Case, Implementation: t.Implementation,
			Report: fmt.Sprintf("%.6g", float64(t.ReportMedianMs)), Rerun: fmt.Sprintf("%.6g", float64(t.RerunMedianMs)),
			Ratio: t.Ratio, RatioLo: t.Lo, RatioHi: t.Hi, P: t.P, PHolm: t.PHolm, Class: t.Class, Note: t.Note})
	}
	return rows
}

// EncodeVerification renders verify.json, verify.csv and verify.html in memory.
func EncodeVerification(v *Verification) (js, cs, page []byte, err error) {
	if js, err = encodeDocument(v, VerifyJSONFile); err != nil {
		return nil, nil, nil, err
	}
	cs, err = encodeCSVRows(VerifyCSVRows(v), csvHeaderOf(VerifyCSVRow{}), VerifyCSVFile)
	if err != nil {
		return nil, nil, nil, err
	}
	page, err = RenderVerifyHTML(v)
	return js, cs, page, err
}

// WriteVerification writes verify.json, verify.csv and verify.html into dir
// as one unit (all three rendered first, then WriteDir): dir afterwards
// holds the new verification or, on any error, what it held before.
func WriteVerification(dir string, v *Verification) error {
	js, cs, page, err := EncodeVerification(v)
	if err != nil {
		return err
	}
	return WriteDir(dir, map[string][]byte{VerifyJSONFile: js, VerifyCSVFile: cs, VerifyHTMLFile: page})
}

// ReadVerification reads a verify.json written by WriteVerification.
func ReadVerification(path string) (*Verification, error) {
	data, err := readRegular(path)
	if err != nil {
		return nil, err
	}
	v := new(Verification)
	if err := json.Unmarshal(data, v); err != nil {
		return nil, jsonError(path, data, err, -1)
	}
	if v.Schema != VerifySchema {
		return nil, fmt.Errorf("%s: schema: %q is not supported, want %q", path, v.Schema, VerifySchema)
	}
	return v, nil
}

type verifyView struct {
	*Verification
	Failed                                        []GateResult
	Passed                                        int
	Title                                         string
	ParagraphHTML, GatesHTML, TimingHTML, EnvHTML template.HTML
}

// UncorrectedFalseAlarm is the chance that at least one of the timed rows
// would be called faster or slower by chance if each were tested alone at
// α = 0.05 with nothing changed: 1 − 0.95^rows (independent tests).
func (v verifyView) UncorrectedFalseAlarm() string {
	return fmt.Sprintf("%.0f %%", 100*(1-math.Pow(0.95, float64(len(v.Timing)))))
}

// RenderVerifyHTML renders verify.html: the paragraph, the gates (counts and
// every failure), the timing table and both environments, the same
// fragments notebook 06 shows (verify_fragments.go).
func RenderVerifyHTML(v *Verification) ([]byte, error) {
	vv := verifyView{Verification: v, Failed: v.Failures(), Passed: len(v.Gates) - len(v.Failures()),
		ParagraphHTML: template.HTML(VerifyParagraphHTML(v)), GatesHTML: template.HTML(VerifyGatesHTML(v)),
		TimingHTML: template.HTML(VerifyTimingHTML(v)), EnvHTML: template.HTML(VerifyEnvironmentsHTML(v))}
	vv.Title = "re-verification of " + v.Report.Name
	if v.Mode != "verify" {
		vv.Title = "comparison of " + v.Report.Name + " and " + v.Rerun.Name
	}
	return renderPage("verify", verifyTemplate, template.FuncMap{"day": day, "machine": Machine}, vv, VerifyHTMLFile)
}
