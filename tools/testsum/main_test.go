package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixture module in testdata/fixture has, per package: a (a pass, a
// skip, a failure, and a test whose subtests pass, skip and fail), b (a
// build error) and c (a pass and a test killed by a panic in a goroutine).
// Leaves: 3 passed (a.TestPass, a.TestSub/one, c.TestOK), 4 failed
// (a.TestFail, a.TestSub/three, b's build, c.TestPanic), 2 skipped.
func TestRunOnFixtureModule(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a fixture module with go test")
	}
	save := filepath.Join(t.TempDir(), "unit.json")
	t.Chdir("testdata/fixture")
	var out, errOut strings.Builder
	rc := run([]string{"--save", save, "--", "-count=1", "./..."}, &out, &errOut)
	if rc != 1 {
		t.Errorf("exit status %d, want 1 (tests failed, a build failed)", rc)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if last := lines[len(lines)-1]; last != "3 passed, 4 failed, 2 skipped" {
		t.Errorf("last line %q, want \"3 passed, 4 failed, 2 skipped\"\n%s", last, out.String())
	}
	for _, want := range []string{
		"example.com/fix/a TestSkip: chromium not found: apt-get install chromium",
		"example.com/fix/a TestSub/two: no GPU here",
		"got 2, want 3",                    // the failed test's output
		"cannot use \"s\"",                 // the build error
		"panic: outside",                   // the panic outside a test's goroutine
		"example.com/fix/b (build failed)", // named among the failures
		"example.com/fix/c TestPanic (did not finish",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "=== RUN   TestPass") {
		t.Errorf("a passing test's framing was echoed without -v:\n%s", out.String())
	}
	b, err := os.ReadFile(save)
	if err != nil {
		t.Fatal(err)
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Passed != 3 || s.Failed != 4 || s.Skipped != 2 || len(s.Skips) != 2 || len(s.Failures) != 4 {
		t.Errorf("saved summary %+v", s)
	}
}

func TestTotalAddsRunsAndFailedSteps(t *testing.T) {
	dir := t.TempDir()
	for name, s := range map[string]Summary{
		"test":           {Passed: 10, Skipped: 1, Skips: []Skip{{Package: "github.com/prlab/prlab/pkg/report", Test: "TestBrowser", Message: "x_test.go:9: chromium not found"}}},
		"notebooks-test": {Passed: 3, Failed: 1, Failures: []string{"github.com/prlab/prlab/pkg/nb TestNotebookInBrowser"}},
	} {
		if err := writeJSON(filepath.Join(dir, name+".json"), s); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut strings.Builder
	last := func() string {
		lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		return lines[len(lines)-1]
	}
	// notebooks-test failed with a failing test (counted once); lint-sh
	// failed with no Go test (one more); docker-check passed.
	rc := run([]string{"--total", "--step", "test:0", "--step", "lint-sh:1", "--step", "docker-check:0", "--step", "notebooks-test:2", dir}, &out, &errOut)
	if rc != 1 {
		t.Errorf("exit status %d with failures, want 1", rc)
	}
	if last() != "13 passed, 2 failed, 1 skipped" {
		t.Errorf("last line %q, want \"13 passed, 2 failed, 1 skipped\"\n%s", last(), out.String())
	}
	for _, want := range []string{"pkg/report TestBrowser: chromium not found", "CI step lint-sh exited with status 1", "pkg/nb TestNotebookInBrowser"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("total output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "CI step notebooks-test") {
		t.Errorf("a step whose failing test is counted was counted again:\n%s", out.String())
	}
	if err := writeJSON(filepath.Join(dir, "notebooks-test.json"), Summary{Passed: 3}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if rc := run([]string{"--total", "--step", "test:0", dir}, &out, &errOut); rc != 0 || last() != "13 passed, 0 failed, 1 skipped" {
		t.Errorf("all passed: exit status %d, last line %q", rc, last())
	}
	if rc := run([]string{"--total", "--step", "nostatus", dir}, &out, &errOut); rc != 2 {
		t.Errorf("--step without a status: exit status %d, want 2", rc)
	}
}

func TestSkipsSharingAMessageShareALine(t *testing.T) {
	var out strings.Builder
	printSummary(&out, Summary{Skipped: 3, Skips: []Skip{
		{Package: "github.com/prlab/prlab/pkg/cudabind", Test: "TestGPUA", Message: "gpu_test.go:62: GPU path unavailable: not built"},
		{Package: "github.com/prlab/prlab/pkg/cudabind", Test: "TestGPUB", Message: "gpu_test.go:92: GPU path unavailable: not built"},
		{Package: "github.com/prlab/prlab/pkg/report", Test: "TestBrowser", Message: "browser_test.go:9: chromium not found"},
	}})
	want := "skipped (3):\n  pkg/cudabind TestGPUA, TestGPUB: GPU path unavailable: not built\n  pkg/report TestBrowser: chromium not found\n0 passed, 0 failed, 3 skipped\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestSkipMessageDropsFraming(t *testing.T) {
	got := skipMessage([]string{"=== RUN   TestX\n", "    x_test.go:18: real graph not present: run `make data`\n", "--- SKIP: TestX (0.00s)\n"})
	if got != "x_test.go:18: real graph not present: run `make data`" {
		t.Errorf("skipMessage = %q", got)
	}
}
