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
	}{{1, "the 1 rows tested alone at α = 0.05 would raise at least one with probability 5 %"},
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
