package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/report"
)

func TestScaleCommandWritesReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scale-small")
	out, progress, err := runCLI(t, "scale", "--min-scale", "8", "--max-scale", "9", "--budget", "60s", "--copy-mib", "1", "--out", dir, "--workers", "1")
	if err != nil {
		t.Fatalf("%v\n%s", err, progress)
	}
	s, err := report.Read[report.ScaleStudy](filepath.Join(dir, report.ScaleJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if s.Protocol.Workers != 1 || !strings.Contains(progress, "CPU memcpy, 1 MiB, 1 goroutine") || strings.Contains(progress, "goroutines:") {
		t.Errorf("--workers 1: protocol records %d workers; the multi-core memcpy row should use 1 goroutine:\n%s", s.Protocol.Workers, progress)
	}
	if s.Name != "scale-small" || len(s.Graphs) != 4 || len(s.Goals) != 3 {
		t.Errorf("name %q, %d graphs, %d goals", s.Name, len(s.Graphs), len(s.Goals))
	}
	for _, f := range append([]string{report.HTMLFile}, report.ScaleCSVFiles...) {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(out, "not measured") || !strings.Contains(out, "wrote "+filepath.Join(dir, "index.html")) {
		t.Errorf("stdout %q", out)
	}
	for _, want := range []string{"plan: 4 graphs", "rmat 2^9", "grid 2^9", "GPU designs skipped"} {
		if !strings.Contains(progress, want) {
			t.Errorf("progress lacks %q", want)
		}
	}
}

func TestScaleCommandPlanAndUsage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "never")
	_, progress, err := runCLI(t, "scale", "--plan", "--out", dir, "--workers", "3")
	if err != nil || !strings.Contains(progress, "plan: 18 graphs") || !strings.Contains(progress, "rmat 2^24") || !strings.Contains(progress, "T1 on 3 workers") {
		t.Fatalf("plan: %v\n%s", err, progress)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Error("--plan wrote a report")
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	for _, args := range [][]string{{"--budget", "0s"}, {"--copy-mib", "0"}, {"--out", file}, {"--min-scale", "9", "--max-scale", "8"}, {"extra"},
		{"--min-scale", "0"}, {"--max-scale", "27"}, {"--validate-iterations", "0"}, {"--validate-iterations", "10001"}} {
		_, _, err := runCLI(t, append([]string{"scale"}, args...)...)
		var ue usageError
		if err == nil || (!errors.As(err, &ue) && !strings.Contains(err.Error(), "out of range")) {
			t.Errorf("%v: %v", args, err)
		}
	}
}

func TestScaleRenderRegradesGoals(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	if _, progress, err := runCLI(t, "scale", "--min-scale", "8", "--max-scale", "8", "--grid=false", "--budget", "30s", "--copy-mib", "1", "--out", dir); err != nil {
		t.Fatalf("%v\n%s", err, progress)
	}
	js := filepath.Join(dir, report.ScaleJSONFile)
	s, err := report.Read[report.ScaleStudy](js)
	if err != nil {
		t.Fatal(err)
	}
	s.Goals = nil // as if written by an older binary
	if err := report.WriteScale(dir, s); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, "scale", "--render", js)
	if err != nil || !strings.Contains(out, "rewrote "+filepath.Join(dir, "index.html")) {
		t.Fatalf("render: %v %q", err, out)
	}
	back, err := report.Read[report.ScaleStudy](js)
	if err != nil || len(back.Goals) != 3 || len(back.Rows) != len(s.Rows) {
		t.Fatalf("re-rendered: %v, %d goals", err, len(back.Goals))
	}
	if _, _, err := runCLI(t, "scale", "--render", filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing file rendered")
	}
}
