package main

// CLI reliability (issue 7): bad flags and bad inputs exit non-zero with a
// message naming the flag (and its range) or the file and line; an
// interrupted `prlab report` (SIGINT, SIGTERM) leaves the previous report
// byte for byte and no temporary file.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prlab/prlab/internal/fixture"
	"github.com/prlab/prlab/pkg/report"
)

// writeData writes a data directory laid out like data/aan (plain files):
// acl.txt, papers.tsv and a SHA256SUMS that verifies them.
func writeData(t *testing.T, edges, papers string) string {
	t.Helper()
	return fixture.WriteDataset(t, t.TempDir(), map[string]string{"acl.txt": edges, "papers.tsv": papers})
}

const smallEdges = "A , B\nA , C\nB , C\nC , A\nD , C\nD , E\n"
const smallPapers = "id\tyear\ttitle\ttitle_source\nA\t2001\tPaper A\taan\nC\t2003\tPaper C\taan\nZ\t1999\tNot in the graph\taan\n"

// cli runs the command in-process and returns its error and stderr.
func cli(t *testing.T, args ...string) (error, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, &stdout, &stderr)
	return err, stderr.String()
}

func TestCLIRejectsBadFlags(t *testing.T) {
	data := writeData(t, smallEdges, smallPapers)
	out := filepath.Join(t.TempDir(), "r")
	file := filepath.Join(t.TempDir(), "afile")
	os.WriteFile(file, []byte("x"), 0o644)
	base := []string{"report", "--data", data, "--out", out}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--iterations", "0"}, "--iterations 0 out of range: must be in [1, 10000]"},
		{[]string{"--iterations", "-3"}, "--iterations -3 out of range: must be in [1, 10000]"},
		{[]string{"--iterations", "10001"}, "--iterations 10001 out of range: must be in [1, 10000]"},
		{[]string{"--iterations", "abc"}, `invalid value "abc" for flag -iterations`},
		{[]string{"--iterations", "1e3"}, `invalid value "1e3" for flag -iterations`},
		{[]string{"--iterations", "99999999999999999999"}, `invalid value "99999999999999999999" for flag -iterations`},
		{[]string{"--runs", "0"}, "--runs 0 out of range: must be in [1, 1000]"},
		{[]string{"--runs", "1001"}, "--runs 1001 out of range: must be in [1, 1000]"},
		{[]string{"--impl", "t9-warp"}, `unknown implementation "t9-warp": valid names are t0-oracle, t1-multicore-f64`},
		{[]string{"--impl", "t0-oracle,T1-MULTICORE-F32"}, `unknown implementation "T1-MULTICORE-F32"`},
		{[]string{"--cases", "tiny,huge"}, `unknown case "huge": valid cases are tiny, single, nodangling, dangling, star, chain, aan (or "real" for the real graph)`},
		{[]string{"--damping", "0.85"}, "flag provided but not defined: -damping"},
		{[]string{"--out", file}, "--out " + file + " is a file, want a directory"},
		{[]string{"--out", filepath.Join(file, "sub", "r")}, "--out " + filepath.Join(file, "sub", "r") + ": " + file + " is not a directory"},
		{[]string{"extra"}, `report: unexpected argument "extra"`},
	}
	for _, c := range cases {
		err, _ := cli(t, append(append([]string{}, base...), c.args...)...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want a usage error containing %q", c.args, err, c.want)
		}
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(t.TempDir(), "ro")
		os.Mkdir(ro, 0o555)
		err, _ := cli(t, append(append([]string{}, base[:3]...), "--out", filepath.Join(ro, "r"))...)
		if err == nil || !strings.Contains(err.Error(), "cannot write in "+ro) {
			t.Errorf("read-only parent: %v", err)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a rejected command created %s (%v)", out, err)
	}
	for _, args := range [][]string{{}, {"frobnicate"}, {"render"}, {"render", "a.json", "b.json"}, {"list", "x"}} {
		err, _ := cli(t, args...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: got %v, want a usage error", args, err)
		}
	}
}

func TestCLIBadInputFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	cases := []struct {
		edges, papers, want string
	}{
		{"A , B\nA B C\n", smallPapers, "acl.txt:2: want 2 fields (CITING , CITED), got 3"},
		{"", smallPapers, "acl.txt: no edges"},
		{smallEdges, "id\tyear\ttitle\nA\tMMI\tT\n", `papers.tsv:2: year "MMI" of A is not an integer`},
		{smallEdges, "id\tyear\ttitle\nA\t2001\tT\nA\t2002\tU\n", `papers.tsv:3: duplicate id "A"`},
	}
	for _, c := range cases {
		data := writeData(t, c.edges, c.papers)
		err, _ := cli(t, "report", "--data", data, "--out", out, "--cases", "tiny,real", "--runs", "1")
		var ue usageError
		if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "nothing was written") {
			t.Errorf("got %v, want a run error containing %q", err, c.want)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed run created %s (%v)", out, err)
	}
	// render: missing file, a folder (its results.json is read), a folder
	// without a report, empty file, bad JSON.
	dir, none := t.TempDir(), t.TempDir()
	bad := filepath.Join(dir, "results.json")
	os.WriteFile(bad, []byte("{\n \"schema\": \"prlab/results/v1\",\n \"name\": x\n}"), 0o644)
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, nil, 0o644)
	for arg, want := range map[string]string{
		filepath.Join(dir, "missing.json"): "missing.json: no such file or directory",
		dir:                                bad + ":3:",
		none:                               none + ": no report found",
		empty:                              empty + ": empty file",
		bad:                                bad + ":3:",
	} {
		err, _ := cli(t, "render", arg)
		var ue usageError
		if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
			t.Errorf("render %s: got %v, want %q", arg, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, report.HTMLFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed render wrote index.html")
	}
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// buildCLI builds the prlab binary once per test process.
func buildCLI(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "prlab-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "prlab")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err == nil {
		return 0
	}
	return -1
}

// TestCLIExitStatus: the binary exits 2 on a usage error and 1 on a failed
// run, with "prlab: " and the message on stderr; 0 on success.
func TestCLIExitStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildCLI(t)
	data := writeData(t, smallEdges, smallPapers)
	badData := writeData(t, "A , B\nC\n", smallPapers)
	out := filepath.Join(t.TempDir(), "r")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report", "--data", data, "--out", out, "--iterations", "0"}, 2, "prlab: --iterations 0 out of range: must be in [1, 10000]"},
		{[]string{"report", "--data", data, "--out", out, "--impl", "nope"}, 2, `prlab: unknown implementation "nope"`},
		{[]string{"report", "--data", data, "--out", out, "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"report", "--data", badData, "--out", out, "--cases", "tiny,real"}, 1, "acl.txt:2: want 2 fields (CITING , CITED), got 1"},
		{[]string{"render", filepath.Join(out, "nothing.json")}, 1, "nothing.json: no such file or directory"},
		{[]string{"report", "--data", data, "--out", out, "--cases", "tiny,real", "--runs", "1", "--iterations", "20"}, 0, "correctness, 20 fixed iterations"},
	}
	for _, c := range cases {
		cmd := exec.Command(bin, c.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if got := exitCode(err); got != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit %d and %q", c.args, got, stderr.String(), c.code, c.want)
		}
	}
	// The successful run wrote a report that renders again.
	if _, err := report.Read[report.Run](filepath.Join(out, report.JSONFile)); err != nil {
		t.Fatalf("report written by the CLI does not read back: %v", err)
	}
	if err := exec.Command(bin, "render", filepath.Join(out, report.JSONFile)).Run(); err != nil {
		t.Fatalf("render: %v", err)
	}
}

// A console piped into a reader that closes early (`prlab report | head -1`)
// does not kill the run: the report is written in full and the exit status
// is 0.
func TestReportSurvivesClosedConsole(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildCLI(t)
	data := writeData(t, smallEdges, smallPapers)
	out := filepath.Join(t.TempDir(), "r")
	cmd := exec.Command(bin, "report", "--data", data, "--out", out, "--cases", "tiny,real", "--runs", "1", "--iterations", "20")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	first := make([]byte, 16)
	if _, err := io.ReadFull(r, first); err != nil { // the run has begun printing: now close the reader, as head does
		t.Fatalf("no console output: %v", err)
	}
	r.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("prlab report with its console closed after %q: %v (exit %d)", first, err, exitCode(err))
	}
	if _, err := report.Read[report.Run](filepath.Join(out, report.JSONFile)); err != nil {
		t.Fatalf("no report written: %v", err)
	}
}

// bigEdges is a deterministic edge list large enough that `prlab report`
// runs for many seconds with many timed runs: n nodes, each citing k others.
func bigEdges(n, k int) string {
	var b strings.Builder
	x := uint64(0x9e3779b97f4a7c15)
	for u := 0; u < n; u++ {
		if u%10 == 0 {
			continue // dangling
		}
		for j := 0; j < k; j++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			fmt.Fprintf(&b, "P%d , P%d\n", u, x%uint64(n))
		}
	}
	return b.String()
}

// TestInterruptedRunKeepsPreviousReport builds the CLI, writes a report, then
// starts a long `prlab report` into the same directory, sends SIGINT (then
// SIGTERM in a second round) once it is timing, and checks that it exits
// non-zero promptly, says nothing was written, and leaves the previous
// report byte for byte with no temporary file beside it.
func TestInterruptedRunKeepsPreviousReport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the study")
	}
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send")
	}
	bin := buildCLI(t)
	data := writeData(t, bigEdges(20000, 8), smallPapers)
	out := filepath.Join(t.TempDir(), "latest")

	// The previous report.
	prev := exec.Command(bin, "report", "--data", data, "--out", out, "--cases", "tiny", "--runs", "1", "--iterations", "10")
	if b, err := prev.CombinedOutput(); err != nil {
		t.Fatalf("first report: %v\n%s", err, b)
	}
	before := snapshot(t, out)
	if len(before) != 2+len(report.RunCSVFiles) {
		t.Fatalf("previous report holds %v", keys(before))
	}

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "report", "--data", data, "--out", out, "--cases", "real", "--runs", "1000")
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until the run is in its longest phase (timing), then signal.
			var log bytes.Buffer
			started := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				sc := bufio.NewScanner(stderr)
				once := sync.Once{}
				for sc.Scan() {
					log.WriteString(sc.Text() + "\n")
					if strings.HasPrefix(sc.Text(), "timed on ") {
						once.Do(func() { close(started) })
					}
				}
			}()
			select {
			case <-started:
			case <-done:
				t.Fatalf("run ended before timing:\n%s", log.String())
			case <-time.After(120 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("run did not reach timing in 120 s:\n%s", log.String())
			}
			time.Sleep(300 * time.Millisecond) // inside a timed implementation
			sent := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { <-done; waited <- cmd.Wait() }()
			var werr error
			select {
			case werr = <-waited:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-waited
				t.Fatalf("still running 30 s after %v:\n%s", sig, log.String())
			}
			if code := exitCode(werr); code != 1 {
				t.Errorf("exit status %d after %v, want 1", code, sig)
			}
			if !strings.Contains(log.String(), "interrupted") || !strings.Contains(log.String(), "nothing was written; "+out+" is unchanged") {
				t.Errorf("stderr does not say the run was interrupted and nothing written:\n%s", log.String())
			}
			t.Logf("%v: exited %.2f s after the signal", sig, time.Since(sent).Seconds())
			after := snapshot(t, out)
			if len(after) != len(before) {
				t.Fatalf("report directory holds %v after the interrupt, want %v", keys(after), keys(before))
			}
			for name, b := range before {
				if !bytes.Equal(after[name], b) {
					t.Errorf("%s changed", name)
				}
			}
		})
	}
}

// snapshot reads every entry of dir (temporary files included).
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for _, e := range ents {
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		m[e.Name()] = b
	}
	return m
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
