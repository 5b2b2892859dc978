package nb

import (
	"fmt"
	"strings"

	"github.com/prlab/prlab/pkg/report"
)

// CommittedVerification is a verification (verify.json, written by `prlab
// verify` or `prlab compare --out`) committed under reports/, with its path
// relative to the checkout.
type CommittedVerification struct {
	*report.Verification
	Path string
}

// CommittedVerifications returns every reports/<report>/verify-*/verify.json
// (and one folder deeper, e.g. a report's scale-subset/) that reads as a
// verification and is committed (scratch and untracked folders are left
// out): reruns on a GPU first, then newest first.
func CommittedVerifications() ([]CommittedVerification, error) {
	return committedReports([]string{"reports/*/verify-*/" + report.VerifyJSONFile, "reports/*/*/verify-*/" + report.VerifyJSONFile}, report.ReadVerification,
		func(v *report.Verification) (bool, string) { return v.Rerun.GPU != nil, v.Rerun.Env.Date },
		func(v *report.Verification, path string) CommittedVerification { return CommittedVerification{v, path} })
}

// VerificationSourceMarkdown says which committed verification a notebook
// shows (the first of vs): the report it re-verified, where and when both
// ran, or that none is committed.
func VerificationSourceMarkdown(vs []CommittedVerification) string {
	if len(vs) == 0 {
		return "**No verification is committed under `reports/`** (no `reports/*/verify-*/verify.json`); `prlab verify reports/<name>` writes one."
	}
	v := vs[0]
	a, b := v.Report, v.Rerun
	verb := "re-verifies"
	if v.Mode != "verify" {
		verb = "compares"
	}
	md := fmt.Sprintf("**Source: the committed verification `%s`**, which %s the %s report `%s` (measured %s on %s, commit `%s`) with a rerun on %s on %s (commit `%s`).",
		v.Path, verb, a.Format, a.Path, a.Env.Date, report.Machine(a), a.Env.Commit, report.Machine(b), b.Env.Date, b.Env.Commit)
	if v.Pass {
		md += " **Every gate held.**"
	} else {
		md += fmt.Sprintf(" **%d gate(s) failed.**", len(v.Failures()))
	}
	if len(vs) > 1 {
		var others []string
		for _, x := range vs[1:] {
			others = append(others, "`"+x.Path+"`")
		}
		md += " Other committed verifications: " + strings.Join(others, ", ") + "."
	}
	return md + " Nothing below is measured on this machine."
}

// ShownVerification returns the committed verifications with the which-th
// (in CommittedVerifications' order) moved first, and that one; nil and no
// error when none is committed. which out of range is an error.
func ShownVerification(which int) ([]CommittedVerification, *CommittedVerification, error) {
	all, err := CommittedVerifications()
	if err != nil || len(all) == 0 {
		return all, nil, err
	}
	if which < 0 || which >= len(all) {
		return nil, nil, fmt.Errorf("Which = %d out of range: %d committed verifications (0 to %d)", which, len(all), len(all)-1)
	}
	ordered := append([]CommittedVerification{all[which]}, all[:which]...)
	ordered = append(ordered, all[which+1:]...)
	return ordered, &ordered[0], nil
}

// VerificationParagraph is the verification's paragraph and notes (report.VerifyParagraphHTML).
func VerificationParagraph(v *report.Verification) string { return report.VerifyParagraphHTML(v) }

// VerificationGateTable is verify.html's gate counts and failed gates (report.VerifyGatesHTML).
func VerificationGateTable(v *report.Verification) string { return report.VerifyGatesHTML(v) }

// VerificationTimingTable is verify.html's timing table (report.VerifyTimingHTML).
func VerificationTimingTable(v *report.Verification) string { return report.VerifyTimingHTML(v) }

// VerificationEnvironments is verify.html's two environments (report.VerifyEnvironmentsHTML).
func VerificationEnvironments(v *report.Verification) string { return report.VerifyEnvironmentsHTML(v) }

// VerificationTimingChart is the ratio of medians of every timed row with
// its 95 % interval (report.VerifyRatioChart).
func VerificationTimingChart(v *report.Verification) (string, error) {
	return chart(report.VerifyRatioChart(v), "No row was timed in both.")
}
