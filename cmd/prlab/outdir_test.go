package main

// The report directory as one unit (pkg/report, OutDir) seen from the CLI:
// a directory where a file goes, two runs on one --out, render keeping the
// files a user added.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prlab/prlab/internal/fixture"
	"github.com/prlab/prlab/pkg/report"
)

// TestReportDirectoryWhereAFileGoes: R/results.json replaced by a
// directory; a run with other data exits 1 with a message naming it, before
// computing, and R's other files stay those of the first run.
func TestReportDirectoryWhereAFileGoes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildCLI(t)
	out := filepath.Join(t.TempDir(), "r")
	first := exec.Command(bin, "report", "--data", writeData(t, smallEdges, smallPapers), "--out", out, "--cases", "tiny,real", "--runs", "1")
	if b, err := first.CombinedOutput(); err != nil {
		t.Fatalf("first report: %v\n%s", err, b)
	}
	os.Remove(filepath.Join(out, report.JSONFile))
	os.Mkdir(filepath.Join(out, report.JSONFile), 0o755)
	before := snapshot(t, out)

	other := writeData(t, "X , Y\nY , Z\nZ , X\n", "id\tyear\ttitle\nX\t2000\tT\n")
	cmd := exec.Command(bin, "report", "--data", other, "--out", out, "--cases", "tiny,real", "--runs", "1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	want := fmt.Sprintf("prlab: report: write %s: %s is a directory, but this write puts a file there; move it away and run again (nothing was changed)",
		out, filepath.Join(out, report.JSONFile))
	if exitCode(err) != 1 || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and %q", exitCode(err), stderr.String(), want)
	}
	if strings.Contains(stderr.String(), "correctness") {
		t.Errorf("the run computed before failing:\n%s", stderr.String())
	}
	after := snapshot(t, out)
	for _, name := range []string{report.HTMLFile, report.TimingCSVFile} {
		if !bytes.Equal(after[name], before[name]) || len(before[name]) == 0 {
			t.Errorf("%s changed by the failed run", name)
		}
	}
	if len(after) != len(before) {
		t.Errorf("report directory holds %v, want %v", keys(after), keys(before))
	}
}

// TestTwoReportsOnOneOut: while one `prlab report` runs, a second on the
// same --out exits 1 at once, naming the first one's pid.
func TestTwoReportsOnOneOut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the study")
	}
	bin := buildCLI(t)
	data := writeData(t, bigEdges(20000, 8), smallPapers)
	out := filepath.Join(t.TempDir(), "latest")
	long := exec.Command(bin, "report", "--data", data, "--out", out, "--cases", "real", "--runs", "1000")
	pipe, _ := long.StderrPipe()
	if err := long.Start(); err != nil {
		t.Fatal(err)
	}
	defer long.Process.Kill()
	sc := bufio.NewScanner(pipe)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "loaded ") {
	}
	go func() {
		for sc.Scan() {
		}
	}()
	start := time.Now()
	second := exec.Command(bin, "report", "--data", data, "--out", out, "--cases", "tiny", "--runs", "1")
	var stderr bytes.Buffer
	second.Stderr = &stderr
	err := second.Run()
	want := fmt.Sprintf("prlab: report: %s is being written by prlab pid %d; wait or choose another --out", out, long.Process.Pid)
	if exitCode(err) != 1 || !strings.Contains(stderr.String(), want) {
		t.Errorf("second run: exit %d, stderr:\n%s\nwant exit 1 and %q", exitCode(err), stderr.String(), want)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the second run took %v to refuse; want at once", took)
	}
	long.Process.Signal(os.Interrupt)
	long.Wait()
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s exists, but neither run finished", out)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	for _, e := range entries {
		if e.Name() != filepath.Base(out) {
			t.Errorf("left beside the report: %s", e.Name())
		}
	}
}

// TestRenderKeepsTheOtherFiles: `prlab render` in a committed report folder
// rewrites index.html and keeps the READMEs, logs and subfolders there.
func TestRenderKeepsTheOtherFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	if err, stderr := cli(t, "report", "--data", writeData(t, smallEdges, smallPapers), "--out", out, "--cases", "tiny", "--runs", "1"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	os.WriteFile(filepath.Join(out, "README.md"), []byte("how this was run"), 0o644)
	os.MkdirAll(filepath.Join(out, "verify-h200"), 0o755)
	os.WriteFile(filepath.Join(out, "verify-h200", "verify.log"), []byte("ok"), 0o644)
	os.WriteFile(filepath.Join(out, report.HTMLFile), []byte("stale page"), 0o644)
	if err, stderr := cli(t, "render", filepath.Join(out, report.JSONFile)); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	page, _ := os.ReadFile(filepath.Join(out, report.HTMLFile))
	if !bytes.Contains(page, []byte("<html")) {
		t.Errorf("index.html not re-rendered: %.40q", page)
	}
	for name, want := range map[string]string{"README.md": "how this was run", "verify-h200/verify.log": "ok"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v after render", name, b, err)
		}
	}
}

// TestMeasuringCommandsRefuseACommittedReport: report, scale and
// incremental refuse, before any work, an --out whose prlab document git
// tracks (a committed report), naming it and --replace-committed; an
// untracked --out, and the flag, are allowed; render still rewrites the
// committed report's page.
func TestMeasuringCommandsRefuseACommittedReport(t *testing.T) {
	root, git := fixture.GitRepo(t)
	data := writeData(t, smallEdges, smallPapers)
	out := filepath.Join(root, "reports", "gpu-run")
	args := []string{"report", "--data", data, "--out", out, "--cases", "tiny", "--runs", "1"}
	if err, stderr := cli(t, args...); err != nil { // untracked: written
		t.Fatalf("first report into an untracked --out: %v\n%s", err, stderr)
	}
	git("add", "reports")
	git("commit", "-q", "-m", "a report")
	before, _ := os.ReadFile(filepath.Join(out, report.JSONFile))

	err, _ := cli(t, args...)
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), out) || !strings.Contains(err.Error(), "git tracks "+filepath.Join(out, report.JSONFile)) || !strings.Contains(err.Error(), "--replace-committed") {
		t.Fatalf("report into a committed --out: %v, want a usage error naming %s, its results.json and --replace-committed", err, out)
	}
	if after, _ := os.ReadFile(filepath.Join(out, report.JSONFile)); !bytes.Equal(before, after) {
		t.Error("the refused run changed the committed results.json")
	}

	// The other measuring commands refuse it before reading anything.
	for _, c := range [][]string{
		{"scale", "--out", out, "--min-scale", "4", "--max-scale", "4", "--grid=false"},
		{"incremental", "--out", out, "--rmat", "4"},
	} {
		if err, _ := cli(t, c...); !errors.As(err, &ue) || !strings.Contains(err.Error(), "--replace-committed") {
			t.Errorf("%s into a committed --out: %v, want the committed-report refusal", c[0], err)
		}
	}
	// --plan writes nothing, so it is not refused.
	if err, stderr := cli(t, "scale", "--out", out, "--min-scale", "4", "--max-scale", "4", "--grid=false", "--plan"); err != nil {
		t.Errorf("scale --plan into a committed --out: %v\n%s", err, stderr)
	}

	// render rewrites only the committed report's page, unchanged.
	os.WriteFile(filepath.Join(out, report.HTMLFile), []byte("stale page"), 0o644)
	if err, stderr := cli(t, "render", filepath.Join(out, report.JSONFile)); err != nil {
		t.Fatalf("render of a committed report: %v\n%s", err, stderr)
	}
	if page, _ := os.ReadFile(filepath.Join(out, report.HTMLFile)); !bytes.Contains(page, []byte("<html")) {
		t.Errorf("index.html not re-rendered: %.40q", page)
	}

	// Deliberately: replaced (by a run with 2 runs per row, so results.json differs).
	if err, stderr := cli(t, "report", "--data", data, "--out", out, "--cases", "tiny", "--runs", "2", "--replace-committed"); err != nil {
		t.Fatalf("report --replace-committed: %v\n%s", err, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(out, report.JSONFile)); bytes.Equal(before, after) {
		t.Error("report --replace-committed left the committed results.json as it was")
	}
}

// TestVerifyAndCompareRefuseACommittedVerification: verify and compare
// write verify.json into --out, so they refuse, before any work, an --out
// whose verify.json git tracks (a committed verify-*/ folder) through the
// same guard as the measuring commands, and go ahead with
// --replace-committed.
func TestVerifyAndCompareRefuseACommittedVerification(t *testing.T) {
	root, git := fixture.GitRepo(t)
	data := writeData(t, smallEdges, smallPapers)
	rep := filepath.Join(root, "reports", "cpu")
	if err, stderr := cli(t, "report", "--data", data, "--out", rep, "--cases", "tiny", "--runs", "2"); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	ver := filepath.Join(rep, "verify-old")
	if err, stderr := cli(t, "verify", "--data", data, "--out", ver, rep); err != nil {
		t.Fatalf("first verify into an untracked --out: %v\n%s", err, stderr)
	}
	git("add", "reports")
	git("commit", "-q", "-m", "a report and its verification")
	before, _ := os.ReadFile(filepath.Join(ver, report.VerifyJSONFile))

	var ue usageError
	for _, c := range [][]string{
		{"verify", "--data", data, "--out", ver, rep},
		{"compare", "--out", ver, rep, rep},
	} {
		err, _ := cli(t, c...)
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "git tracks "+filepath.Join(ver, report.VerifyJSONFile)) || !strings.Contains(err.Error(), "--replace-committed") {
			t.Errorf("%s into a committed verify folder: %v, want the committed-report refusal naming its verify.json and --replace-committed", c[0], err)
		}
		if after, _ := os.ReadFile(filepath.Join(ver, report.VerifyJSONFile)); !bytes.Equal(before, after) {
			t.Errorf("the refused %s changed the committed verify.json", c[0])
		}
	}
	// The report's own folder holds a committed results.json: refused too.
	if err, _ := cli(t, "compare", "--out", rep, rep, rep); !errors.As(err, &ue) {
		t.Errorf("compare into a committed report folder: %v, want the committed-report refusal", err)
	}
	// Deliberately: replaced.
	if err, stderr := cli(t, "compare", "--out", ver, "--replace-committed", rep, rep); err != nil {
		t.Fatalf("compare --replace-committed: %v\n%s", err, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(ver, report.VerifyJSONFile)); bytes.Equal(before, after) {
		t.Error("compare --replace-committed left the committed verify.json as it was")
	}
}

// TestEveryWritingCommandChecksOutFirst: report, scale, incremental,
// verify and compare refuse an --out that cannot be made (under a file)
// with the same usage error, before any work, and write nothing.
func TestEveryWritingCommandChecksOutFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	os.WriteFile(file, []byte("x"), 0o644)
	out := filepath.Join(file, "r")
	data := writeData(t, smallEdges, smallPapers)
	rep := filepath.Join(dir, "rep")
	if err, stderr := cli(t, "report", "--data", data, "--out", rep, "--cases", "tiny", "--runs", "1"); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	want := "--out " + out + ": " + file + " is not a directory"
	var ue usageError
	for _, c := range [][]string{
		{"report", "--data", data, "--out", out, "--cases", "tiny", "--runs", "1"},
		{"scale", "--out", out, "--min-scale", "4", "--max-scale", "4", "--grid=false"},
		{"incremental", "--out", out, "--rmat", "4", "--by-year=false"},
		{"verify", "--data", data, "--out", out, rep},
		{"compare", "--out", out, rep, rep},
	} {
		err, stderr := cli(t, c...)
		if !errors.As(err, &ue) || err.Error() != want {
			t.Errorf("%s --out %s: %v, want the usage error %q", c[0], out, err, want)
		}
		if strings.Contains(stderr, "correctness") || strings.Contains(stderr, "R-MAT") {
			t.Errorf("%s computed before refusing --out:\n%s", c[0], stderr)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Errorf("the file in --out's path was changed: %q", b)
	}
}

// TestRenderRedrawsOnlyThePage: prlab render takes a scale.json, an
// incremental.json or the report folder and rewrites only its index.html;
// scale and incremental --render, which grade the study again and rewrite
// its JSON and tables, refuse a committed study (naming prlab render and
// --replace-committed) and change nothing, unless --replace-committed.
func TestRenderRedrawsOnlyThePage(t *testing.T) {
	root, git := fixture.GitRepo(t)
	studies := []struct{ cmd, name, doc string }{
		{"scale", "h200-scale-propblock-2026-12-02", report.ScaleJSONFile},
		{"incremental", "incremental-h200-2026-12-02", report.IncrementalJSONFile},
	}
	for _, c := range studies {
		b, err := os.ReadFile(filepath.Join("..", "..", "reports", c.name, c.doc))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, "reports", c.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.doc), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "reports")
	git("commit", "-q", "-m", "two studies")
	names := func(dir string) string {
		es, _ := os.ReadDir(dir)
		var s []string
		for _, e := range es {
			s = append(s, e.Name())
		}
		return strings.Join(s, " ")
	}
	for _, c := range studies {
		dir := filepath.Join(root, "reports", c.name)
		doc := filepath.Join(dir, c.doc)
		before, _ := os.ReadFile(doc)
		err, _ := cli(t, c.cmd, "--render", doc)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "`prlab render "+dir+"`") || !strings.Contains(err.Error(), "--replace-committed") {
			t.Errorf("%s --render of a committed study: %v, want a usage error naming prlab render and --replace-committed", c.cmd, err)
		}
		if got := names(dir); got != c.doc {
			t.Errorf("the refused %s --render left %q, want %s alone", c.cmd, got, c.doc)
		}
		for _, arg := range []string{dir, doc} {
			if err, stderr := cli(t, "render", arg); err != nil {
				t.Fatalf("render %s: %v\n%s", arg, err, stderr)
			}
			page, _ := os.ReadFile(filepath.Join(dir, report.HTMLFile))
			after, _ := os.ReadFile(doc)
			if !bytes.Contains(page, []byte("<html")) || !bytes.Equal(before, after) || names(dir) != c.doc+" "+report.HTMLFile && names(dir) != report.HTMLFile+" "+c.doc {
				t.Errorf("render %s: page %.30q, %s unchanged %v, files %q; want the page beside the unchanged document", arg, page, c.doc, bytes.Equal(before, after), names(dir))
			}
		}
		if err, stderr := cli(t, c.cmd, "--replace-committed", "--render", doc); err != nil {
			t.Errorf("%s --render --replace-committed: %v\n%s", c.cmd, err, stderr)
		}
	}
	if err, _ := cli(t, "render", filepath.Join(root, "nowhere")); err == nil || !strings.Contains(err.Error(), "nowhere: no such file or directory") {
		t.Errorf("render of a missing folder: %v", err)
	}
	if err, _ := cli(t, "render", root); err == nil || !strings.Contains(err.Error(), "no report found (looked for results.json, scale.json, incremental.json, verify.json)") {
		t.Errorf("render of a folder without a report: %v", err)
	}
}
