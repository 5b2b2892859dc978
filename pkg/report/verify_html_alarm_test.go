package report

import (
	"strings"
	"testing"
)

// The timing note states the uncorrected false-alarm chance for the rows the
// page actually has, 1 − 0.95^rows, instead of a fixed row count.
func TestVerifyPageFalseAlarmSentence(t *testing.T) {
	for _, c := range []struct {
		rows int
		want string
	}{{1, "the one row tested alone at α = 0.05 would raise a false alarm with probability 5 %"},
		{20, "the 20 rows tested alone at α = 0.05 would raise at least one with probability 64 %"}} {
		v := &Verification{Mode: "compare"}
		v.Timing = make([]TimingCompare, c.rows)
		b, err := RenderVerifyHTML(v)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), c.want) {
			t.Errorf("%d rows: page lacks %q", c.rows, c.want)
		}
	}
}

// The environments table leaves out a row neither side recorded (the load
// average, the other processes' share of the cores) and keeps it, with
// "not recorded" on one side, where one side has it.
func TestVerifyEnvironmentsLeaveOutRowsNeitherRecorded(t *testing.T) {
	v := &Verification{}
	rows := []string{"load average (1, 5, 15 min)", "other processes&#39; share of the cores while timing"}
	for _, r := range rows {
		if strings.Contains(VerifyEnvironmentsHTML(v), r) {
			t.Errorf("neither side recorded it, but the table has %q", r)
		}
	}
	share := 0.25
	v.Rerun.Env.LoadAverage, v.Rerun.Env.OtherCPU = "0.50 0.40 0.30", &share
	h := VerifyEnvironmentsHTML(v)
	for _, want := range append(rows, "0.50 0.40 0.30", "25.0 %", "not recorded") {
		if !strings.Contains(h, want) {
			t.Errorf("one side recorded both rows, but the table lacks %q", want)
		}
	}
}
