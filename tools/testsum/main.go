// Command testsum runs `go test -json` and ends its output with one count
// line, "N passed, N failed, N skipped", after naming every skipped test
// with its skip message (a missing chromium, GPU or data file shows there).
//
//	go run ./tools/testsum [-v] [--save FILE] [--] GO-TEST-ARGS...
//	    run `go test -json GO-TEST-ARGS...`; print one line per package
//	    (as go test does), the output of every failed test, the skipped
//	    tests and the count line; with --save, also write the counts and
//	    skips to FILE (JSON) for --total; -v echoes every test's output
//	go run ./tools/testsum --total [--step NAME:STATUS]... DIR
//	    add up the summaries saved in DIR/*.json (one CI run of several
//	    test targets) and print the combined count line last; a --step that
//	    exited non-zero without a failing Go test in DIR/NAME.json (a lint,
//	    a notebook that did not execute, a build) counts as one failed test
//
// Counting: a test is counted once, at its leaves (a test with subtests
// counts its subtests, plus itself only when it failed with no failing
// subtest). A package that fails without a failing test (a build error, a
// panic or timeout outside a test, TestMain) counts as one failed test named
// after the package; a test still running when its package ended counts as
// failed. The exit status is 1 when anything failed, the build included,
// or `go test` itself exited non-zero; 2 on a usage error.
//
// This is a small summariser of go test's own JSON stream (cmd/test2json)
// rather than gotestsum: the count line and the skip list are exactly what
// CI and the README need, and it adds no dependency to go.mod.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// event is one line of `go test -json` (see `go doc cmd/test2json`).
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	FailedBuild string
	ImportPath  string // build-output / build-fail events
}

// Skip is one skipped test and the message it skipped with.
type Skip struct {
	Package string `json:"package"`
	Test    string `json:"test"`
	Message string `json:"message"`
}

// Summary is the result of one go test run (what --save writes).
type Summary struct {
	Passed   int      `json:"passed"`
	Failed   int      `json:"failed"`
	Skipped  int      `json:"skipped"`
	Failures []string `json:"failures"` // "package TestName" of each failed test
	Skips    []Skip   `json:"skips"`
}

// CountLine is the line CI is judged on.
func (s Summary) CountLine() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", s.Passed, s.Failed, s.Skipped)
}

type testState struct {
	action   string // "", pass, fail, skip
	output   []string
	children bool
}

type pkgState struct {
	tests  map[string]*testState
	order  []string
	action string // pass, fail, skip (no test files) or "" while running
	build  []string
	failed string // FailedBuild
}

// collector consumes go test's events and keeps the state of every package.
type collector struct {
	out     io.Writer
	verbose bool
	pkgs    map[string]*pkgState
	order   []string
	builds  map[string][]string // import path -> build output
}

func newCollector(out io.Writer, verbose bool) *collector {
	return &collector{out: out, verbose: verbose, pkgs: map[string]*pkgState{}, builds: map[string][]string{}}
}

func (c *collector) pkg(name string) *pkgState {
	p := c.pkgs[name]
	if p == nil {
		p = &pkgState{tests: map[string]*testState{}}
		c.pkgs[name] = p
		c.order = append(c.order, name)
	}
	return p
}

// line handles one line of go test's standard output: a JSON event, or
// (a build error printed before any event) plain text, echoed as it is.
func (c *collector) line(b []byte) {
	var e event
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &e) != nil {
		fmt.Fprintf(c.out, "%s\n", b)
		return
	}
	switch e.Action {
	case "build-output":
		c.builds[e.ImportPath] = append(c.builds[e.ImportPath], e.Output)
		fmt.Fprint(c.out, e.Output)
		return
	case "build-fail":
		return
	}
	if e.Package == "" {
		return
	}
	p := c.pkg(e.Package)
	if e.Test == "" {
		switch e.Action {
		case "output":
			if c.verbose || packageLine(e.Output) {
				fmt.Fprint(c.out, e.Output)
			}
		case "pass", "fail", "skip":
			p.action = e.Action
			p.failed = e.FailedBuild
			if !c.verbose { // a test cut short by a panic or timeout: show what it printed
				for _, tn := range p.order {
					if t := p.tests[tn]; t.action == "" {
						fmt.Fprint(c.out, strings.Join(t.output, ""))
					}
				}
			}
		}
		return
	}
	t := p.tests[e.Test]
	if t == nil {
		t = &testState{}
		p.tests[e.Test] = t
		p.order = append(p.order, e.Test)
		for parent := e.Test; strings.Contains(parent, "/"); {
			parent = parent[:strings.LastIndex(parent, "/")]
			if pt := p.tests[parent]; pt != nil {
				pt.children = true
			}
		}
	}
	switch e.Action {
	case "output":
		t.output = append(t.output, e.Output)
		if c.verbose {
			fmt.Fprint(c.out, e.Output)
		}
	case "pass", "skip":
		t.action = e.Action
	case "fail":
		t.action = e.Action
		if !c.verbose {
			fmt.Fprint(c.out, strings.Join(t.output, ""))
		}
	}
}

// packageLine reports whether a package-level output line is one go test
// prints without -v: "ok", "FAIL", "?" result lines and panics; the bare
// PASS/FAIL and "=== RUN"-style lines of -json's implied -v are dropped.
func packageLine(s string) bool {
	switch strings.TrimSpace(s) {
	case "PASS", "FAIL", "":
		return false
	}
	return strings.HasPrefix(s, "ok ") || strings.HasPrefix(s, "ok\t") || strings.HasPrefix(s, "FAIL") ||
		strings.HasPrefix(s, "?") || strings.HasPrefix(s, "panic:") || strings.HasPrefix(s, "---") ||
		strings.Contains(s, "[setup failed]") || strings.Contains(s, "[build failed]")
}

// skipMessage is a skipped test's own words: its output without go test's
// framing lines (=== RUN, --- SKIP, ...), the file:line prefix kept.
func skipMessage(output []string) string {
	var lines []string
	for _, o := range output {
		for _, l := range strings.Split(strings.TrimRight(o, "\n"), "\n") {
			tl := strings.TrimSpace(l)
			if tl == "" || strings.HasPrefix(tl, "=== ") || strings.HasPrefix(tl, "--- ") {
				continue
			}
			lines = append(lines, tl)
		}
	}
	return strings.Join(lines, " ")
}

// summary counts the leaves of every package (see the package comment).
func (c *collector) summary() Summary {
	var s Summary
	for _, name := range c.order {
		p := c.pkgs[name]
		failedTests := 0
		for _, tn := range p.order {
			t := p.tests[tn]
			if t.children {
				if t.action == "fail" && !anyChildFailed(p, tn) {
					s.Failed++
					failedTests++
					s.Failures = append(s.Failures, name+" "+tn)
				}
				continue
			}
			switch t.action {
			case "pass":
				s.Passed++
			case "skip":
				s.Skipped++
				s.Skips = append(s.Skips, Skip{Package: name, Test: tn, Message: skipMessage(t.output)})
			default: // fail, or still running when the package ended
				s.Failed++
				failedTests++
				what := name + " " + tn
				if t.action != "fail" {
					what += " (did not finish: the package panicked or timed out)"
				}
				s.Failures = append(s.Failures, what)
			}
		}
		if (p.action == "fail" || p.action == "") && failedTests == 0 {
			s.Failed++
			why := "failed outside any test (TestMain, init, a panic or timeout)"
			switch {
			case p.failed != "" || len(c.builds[name]) > 0:
				why = "build failed"
			case p.action == "":
				why = "no result (go test stopped before the package finished)"
			}
			s.Failures = append(s.Failures, name+" ("+why+")")
		}
	}
	return s
}

func anyChildFailed(p *pkgState, parent string) bool {
	for tn, t := range p.tests {
		if strings.HasPrefix(tn, parent+"/") && t.action == "fail" {
			return true
		}
	}
	return false
}

// printSummary writes the skipped tests, the failures and the count line (last).
func printSummary(w io.Writer, s Summary) {
	if len(s.Skips) > 0 {
		fmt.Fprintf(w, "skipped (%d):\n", len(s.Skips))
		// One line per package and message: "pkg TestA, TestB: message".
		type key struct{ pkg, msg string }
		var keys []key
		tests := map[key][]string{}
		for _, k := range s.Skips {
			msg := stripLocation(k.Message)
			if msg == "" {
				msg = "(no message)"
			}
			kk := key{shortPkg(k.Package), msg}
			if tests[kk] == nil {
				keys = append(keys, kk)
			}
			tests[kk] = append(tests[kk], k.Test)
		}
		for _, kk := range keys {
			fmt.Fprintf(w, "  %s %s: %s\n", kk.pkg, strings.Join(tests[kk], ", "), kk.msg)
		}
	}
	if len(s.Failures) > 0 {
		fmt.Fprintf(w, "failed (%d):\n", len(s.Failures))
		for _, f := range s.Failures {
			fmt.Fprintf(w, "  %s\n", shortPkg(f))
		}
	}
	fmt.Fprintln(w, s.CountLine())
}

// stripLocation drops the "file_test.go:123: " prefix testing puts before a
// message, so that tests skipped for the same reason share one line.
func stripLocation(msg string) string {
	if i := strings.Index(msg, ": "); i > 0 && !strings.ContainsAny(msg[:i], " \t") && strings.Contains(msg[:i], ".go:") {
		return msg[i+2:]
	}
	return msg
}

// shortPkg drops the module path prefix from a package name.
func shortPkg(s string) string { return strings.TrimPrefix(s, "github.com/prlab/prlab/") }

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type stepList []string

func (l *stepList) String() string     { return strings.Join(*l, ",") }
func (l *stepList) Set(s string) error { *l = append(*l, s); return nil }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("testsum", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "echo every test's output as it runs")
	save := fs.String("save", "", "also write the summary (counts, failures, skips) to this JSON file")
	total := fs.Bool("total", false, "add up the summaries in the FILE arguments instead of running go test")
	var steps stepList
	fs.Var(&steps, "step", "with --total: a CI step and its exit status, NAME:STATUS (repeatable); one that failed without a failing Go test counts as one failed test")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *total {
		if fs.NArg() != 1 {
			fmt.Fprintln(stderr, "testsum --total: want one directory of saved summaries")
			return 2
		}
		return runTotal(fs.Arg(0), steps, stdout, stderr)
	}
	if len(steps) > 0 {
		fmt.Fprintln(stderr, "testsum: --step needs --total")
		return 2
	}
	cmd := exec.Command("go", append([]string{"test", "-json"}, fs.Args()...)...)
	cmd.Stderr = stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(stderr, "testsum:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "testsum: go test:", err)
		return 1
	}
	c := newCollector(stdout, *verbose)
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		c.line(sc.Bytes())
	}
	scanErr := sc.Err()
	waitErr := cmd.Wait()
	s := c.summary()
	if (waitErr != nil || scanErr != nil) && s.Failed == 0 {
		why := fmt.Sprint(waitErr)
		if scanErr != nil {
			why = "reading its output: " + scanErr.Error()
		}
		s.Failed++
		s.Failures = append(s.Failures, "go test "+strings.Join(fs.Args(), " ")+" ("+why+")")
	}
	if *save != "" {
		if err := writeJSON(*save, s); err != nil {
			fmt.Fprintln(stderr, "testsum:", err)
			return 1
		}
	}
	printSummary(stdout, s)
	if s.Failed > 0 {
		return 1
	}
	return 0
}

func writeJSON(path string, s Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// runTotal adds up the summaries saved in dir (one DIR/<target>.json per
// test target) and the CI steps ("name:exit-status"): a step that exited
// non-zero without a saved failing test counts as one failed test. The count
// line is last.
func runTotal(dir string, steps []string, stdout, stderr io.Writer) int {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || dir == "" {
		fmt.Fprintf(stderr, "testsum --total: want the directory of saved summaries, got %q\n", dir)
		return 2
	}
	sort.Strings(files)
	var t Summary
	failedIn := map[string]int{}
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(stderr, "testsum --total:", err)
			return 1
		}
		var s Summary
		if err := json.Unmarshal(b, &s); err != nil {
			fmt.Fprintf(stderr, "testsum --total: %s: %v\n", f, err)
			return 1
		}
		t.Passed += s.Passed
		t.Failed += s.Failed
		t.Skipped += s.Skipped
		t.Failures = append(t.Failures, s.Failures...)
		t.Skips = append(t.Skips, s.Skips...)
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		names = append(names, name)
		failedIn[name] = s.Failed
	}
	extra := 0
	for _, st := range steps {
		name, rc, ok := strings.Cut(st, ":")
		if !ok || name == "" {
			fmt.Fprintf(stderr, "testsum --total: --step %q: want NAME:EXIT-STATUS\n", st)
			return 2
		}
		if rc != "0" && failedIn[name] == 0 {
			t.Failed++
			extra++
			t.Failures = append(t.Failures, fmt.Sprintf("CI step %s exited with status %s (no failing Go test: counted as one failed test)", name, rc))
		}
	}
	fmt.Fprintf(stdout, "total over %d test runs (%s) and %d CI steps (%d failed outside Go tests):\n", len(files), strings.Join(names, ", "), len(steps), extra)
	printSummary(stdout, t)
	if t.Failed > 0 {
		return 1
	}
	return 0
}
