package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The calibration paragraph from a committed H200 run's own numbers: the
// reference designs' fractions equal their tier rows', the launch-bound cap
// is bytes / (5 launches x the run's empty launch) / the DRAM copy rate, and
// no 5-launch design could reach silver on the real graph.
func TestCalibrationNoteFromCommittedRun(t *testing.T) {
	run := committedRun(t, "h200-2026-12-01")
	th, _ := ThresholdsFor(run.GPU.ComputeCapability)
	note := CalibrationNote(run, th)
	t.Log(note)
	c := MeasuredCeilings(run)
	for _, name := range []string{DefaultBaseline, WarpPerRowReference} {
		var tr TimingRow
		for _, x := range run.Timings {
			if x.Implementation == name {
				tr = x
			}
		}
		want := fmt.Sprintf("%s reaches %.3f x DRAM", name, float64(tr.XDRAM))
		capFrac := float64(tr.BytesPerIteration) / (tr.LaunchesPerIteration * c.LaunchUs * 1e3) / c.DRAMGBps
		if !strings.Contains(note, want) || !strings.Contains(note, fmt.Sprintf("at most %.3f x", capFrac)) {
			t.Errorf("note lacks %q or the cap %.3f: %s", want, capFrac, note)
		}
		if capFrac >= th.Silver {
			t.Errorf("%s: a %.0f-launch cap of %.3f x would allow silver on this graph", name, tr.LaunchesPerIteration, capFrac)
		}
	}
	m := regexp.MustCompile(`gold \(0\.28\) ([0-9.]+) µs`).FindStringSubmatch(note)
	if m == nil {
		t.Fatalf("no gold time in %q", note)
	}
	if us, _ := strconv.ParseFloat(m[1], 64); !(us > 0 && us < c.LaunchUs) {
		t.Errorf("gold needs %s µs per iteration, want under one launch (%.2f µs)", m[1], c.LaunchUs)
	}
	if !strings.Contains(note, "Even one host launch per iteration") || !strings.Contains(note, "No design reaches silver or gold") {
		t.Errorf("the committed run has no silver or gold design: %s", note)
	}
	if CalibrationNote(fixtureRun(true), th) != "" {
		t.Error("a run without the launch primitive has no calibration note")
	}
}
