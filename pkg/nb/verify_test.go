package nb

import (
	"strings"
	"testing"
)

// The committed CPU verification is found and shown: which verification and
// report, the paragraph, every gate kind, the timing rows and both
// environments, all from verify.json.
func TestCommittedVerification(t *testing.T) {
	vs, err := CommittedVerifications()
	cpu := committedOne(t, vs, err, "reports/cpu-2core/verify-*/verify.json", func(v *CommittedVerification) bool {
		return strings.HasPrefix(v.Path, "reports/cpu-2core/verify-")
	})
	md := VerificationSourceMarkdown([]CommittedVerification{*cpu})
	for _, want := range []string{"`" + cpu.Path + "`", "re-verifies the results report `reports/cpu-2core/results.json`", "Every gate held."} {
		if !strings.Contains(md, want) {
			t.Errorf("source markdown lacks %q:\n%s", want, md)
		}
	}
	if p := VerificationParagraph(cpu.Verification); !strings.Contains(p, "Re-verified cpu-2core on ") {
		t.Errorf("paragraph: %s", p)
	}
	gates := VerificationGateTable(cpu.Verification)
	for _, g := range []string{"same data", "status", "convergence iterations", "top order", "Spearman ρ", "sum − 1"} {
		if !strings.Contains(gates, ">"+g+"<") {
			t.Errorf("gate table lacks %q", g)
		}
	}
	timing := VerificationTimingTable(cpu.Verification)
	if strings.Count(timing, "<tr") != 1+len(cpu.Timing) || !strings.Contains(timing, "t1-multicore-f32") {
		t.Errorf("timing table: %d rows for %d timed rows", strings.Count(timing, "<tr")-1, len(cpu.Timing))
	}
	// The graph's content SHA-256 on both sides; the metadata file the
	// bundled data no longer carries is "not read".
	env := VerificationEnvironments(cpu.Verification)
	if strings.Count(env, "sha256 ad409b91a9f3c7e1…") != 2 || !strings.Contains(env, "not read</td>") {
		t.Errorf("environments: %s", env)
	}
	chart, err := VerificationTimingChart(cpu.Verification)
	if err != nil || !strings.Contains(chart, ChartClass) || strings.Count(chart, "t1-multicore-f32") < 1 {
		t.Errorf("timing chart: %v", err)
	}
	if md := VerificationSourceMarkdown(nil); !strings.Contains(md, "No verification is committed") {
		t.Errorf("none: %s", md)
	}
}
