// Command prlab runs the PageRank study and writes its report.
//
//	prlab report [--out DIR] [--impl a,b] [--cases c,d] [--iterations N] ...
//	    the main job: check the bundled graph (data/aan), run every implementation on
//	    the six synthetic cases and the real graph, validate against the
//	    float64 oracle, time them, and write DIR/index.html, results.json and
//	    the tables correctness.csv, convergence.csv, timing.csv, stages.csv,
//	    tiers.csv (default DIR: reports/latest)
//	prlab render [--out FILE] results.json
//	    re-render index.html from a results.json without recomputing
//	prlab list
//	    the registered implementations and whether each can run here
//	prlab scale [--out DIR] [--min-scale 16] [--max-scale 24] [--budget 5m] ...
//	    the scale study (issue 5): every CPU and GPU implementation on R-MAT
//	    graphs (and 2-D grids) from 2^16 to 2^24 nodes within a time budget;
//	    writes DIR/index.html, scale.json and the scale-*.csv tables (see scale.go)
//	prlab verify [--out DIR] [--impl a,b] [--max-slowdown R] REPORT_DIR
//	prlab compare [--out DIR] [--impl a,b] [--max-slowdown R] A B
//	    re-verify a report on this machine, or compare two (see verify.go)
//	prlab incremental [--out DIR] [--rmat 20,22] [--graph FILE] [--batches ...] [--seed N]
//	    PageRank after batches of edge updates: the AAN graph year by year and
//	    random batches; update + warm start vs rebuild + cold start; writes
//	    DIR/index.html, incremental.json and the incremental-*.csv tables (see incremental.go)
//
// Exit status: 0 on success, 1 when the command failed, 2 on a usage error.
// Progress goes to stderr; a failed or interrupted run (SIGINT, SIGTERM)
// writes nothing and leaves a previous report in place; a second signal
// exits at once. An output directory is replaced whole, by one writer at a
// time (pkg/report, OutDir).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/prlab/prlab/pkg/dataset"
	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
	"github.com/prlab/prlab/pkg/study"
)

// Defaults, relative to the repository root.
const (
	defaultData = dataset.Dir
	defaultOut  = "reports/latest"
)

// usageError is a bad command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// shownError is an error whose message run already wrote to stderr (above
// the usage text), so main does not print it twice; it unwraps to the error.
type shownError struct{ error }

func (e shownError) Unwrap() error { return e.error }

func main() {
	// A console piped into a reader that stops early (`prlab report | head`) must not kill the run: with SIGPIPE
	// ignored, a write to the closed pipe returns EPIPE (the console lines are lost) and the report is still
	// written (Go's default for fd 1 and 2 is to exit on SIGPIPE; os/signal, "SIGPIPE").
	signal.Ignore(syscall.SIGPIPE)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer interrupts(cancel, os.Stderr, func() { os.Exit(130) })()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if err == nil {
		return
	}
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	var shown shownError
	if !errors.As(err, &shown) {
		fmt.Fprintln(os.Stderr, "prlab:", err)
	}
	var ue usageError
	if errors.As(err, &ue) {
		os.Exit(2)
	}
	var ee exitError
	if errors.As(err, &ee) {
		os.Exit(ee.code)
	}
	os.Exit(1)
}

// interrupts makes the first SIGINT or SIGTERM cancel the run (every long
// loop checks the context, so the command returns within about a second and
// writes nothing), and a second one call exit at once. Exiting mid-write is
// safe: a report directory is swapped in whole or not at all, and the next
// run cleans up what the killed writer left (pkg/report, OutDir). The
// returned function stops listening.
func interrupts(cancel func(), stderr io.Writer, exit func()) (stop func()) {
	sigs := make(chan os.Signal, 2)
	done := make(chan struct{})
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			fmt.Fprintf(stderr, "prlab: %v: stopping; send it again to exit at once\n", s)
			cancel()
		case <-done:
			return
		}
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "prlab: second signal: exiting now")
			exit()
		case <-done:
		}
	}()
	return func() { signal.Stop(sigs); close(done) }
}

const usage = `usage: prlab <command> [flags]

commands:
  report       run the whole study and write reports/<run>/{index.html,results.json,correctness.csv,...}
  render       re-render index.html from a results.json (verify.html from a verify.json) without recomputing
  list         list the implementations and whether each can run here
  scale        the scale study: every implementation on R-MAT 2^16..2^24 (and grids, and --graph files) within a time budget
  verify       rerun a committed report's protocol here and check its gates and timing (verify.html, verify.json, verify.csv)
  compare      the same comparison between two existing reports, without rerunning
  incremental  PageRank after edge batches: the citation graph year by year, random batches on R-MAT
  export       write a graph (--graph FILE, --rmat SCALE or --grid SCALE) as .el, SNAP, MatrixMarket or CSV for other tools

Run "prlab <command> -h" for the flags of one command.
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError{"no command given"}
	}
	switch args[0] {
	case "report":
		return cmdReport(ctx, args[1:], stdout, stderr)
	case "render":
		return cmdRender(args[1:], stdout, stderr)
	case "list":
		return cmdList(args[1:], stdout, stderr)
	case "scale":
		return cmdScale(ctx, args[1:], stdout, stderr)
	case "verify":
		return cmdVerify(ctx, args[1:], stdout, stderr)
	case "compare":
		return cmdCompare(args[1:], stdout, stderr)
	case "incremental":
		return cmdIncremental(ctx, args[1:], stdout, stderr)
	case "export":
		return cmdExport(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	msg := fmt.Sprintf("unknown command %q: want report, render, list, scale, verify, compare, incremental or export", args[0])
	fmt.Fprintf(stderr, "prlab: %s\n\n", msg) // first, so it is not lost below the usage text
	fmt.Fprint(stderr, usage)
	return shownError{usageError{msg}}
}

// newFlags is the flag set of command name; its -h prints a usage line,
// what the command does (its line of the command list in usage) and the
// flags. Commands with positional arguments set their own Usage.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("prlab "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: prlab %s [flags]\n", name)
		for _, l := range strings.Split(usage, "\n") {
			if what, ok := strings.CutPrefix(l, "  "+name+" "); ok {
				fmt.Fprintf(stderr, "%s\n", strings.TrimSpace(what))
			}
		}
		fs.PrintDefaults()
	}
	return fs
}

func parse(fs *flag.FlagSet, args []string, positional int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	name := strings.TrimPrefix(fs.Name(), "prlab ")
	if fs.NArg() != positional {
		if positional == 0 {
			return usageError{fmt.Sprintf("%s: unexpected argument %q", name, fs.Arg(0))}
		}
		return usageError{fmt.Sprintf("%s: want %d argument(s), got %d", name, positional, fs.NArg())}
	}
	return nil
}

// listFlag is a comma-separated list flag. An explicitly empty value
// (--cases "") is an error, which parse turns into a usage error naming the
// flag: "all" is spelled by leaving the flag out.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	if strings.Trim(s, ", \t") == "" {
		return errors.New("empty list: leave the flag out for its default")
	}
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			*l = append(*l, x)
		}
	}
	return nil
}

func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", stderr)
	out := fs.String("out", defaultOut, "report directory (its base name is the run name)")
	replaceCommitted := replaceCommittedFlag(fs)
	data := fs.String("data", defaultData, "the real graph's folder: SHA256SUMS, "+dataset.EdgeName+"(.gz) and "+dataset.PapersName+"(.gz), checked before use, never written; the default is the bundled AAN graph")
	gf := addGraphFlags(fs, false)
	var impls, cases listFlag
	fs.Var(&impls, "impl", "comma-separated implementations to run (default all; see prlab list); t0-oracle always runs")
	fs.Var(&cases, "cases", "comma-separated cases (default all: "+strings.Join(study.CaseNames("aan"), ",")+"; \"real\" names the graph file's case: the real graph, or --graph's)")
	iterations := fs.Int("iterations", pagerank.CorrectnessIterations, fmt.Sprintf("fixed iterations for correctness, in [1, %d]", pagerank.MaxIterationsCap))
	runs := fs.Int("runs", pagerank.TimingRuns, "timed runs per implementation, in [1, 1000]")
	ranks := fs.Bool("ranks", false, "keep every rank vector in results.json (tens of MB)")
	workers := workersFlag(fs)
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if err := checkWorkers(*workers); err != nil {
		return err
	}
	if *iterations < 1 || *iterations > pagerank.MaxIterationsCap {
		return usageError{fmt.Sprintf("--iterations %d out of range: must be in [1, %d]", *iterations, pagerank.MaxIterationsCap)}
	}
	if *runs < 1 || *runs > 1000 {
		return usageError{fmt.Sprintf("--runs %d out of range: must be in [1, 1000]", *runs)}
	}
	if err := checkOut(*out, *replaceCommitted); err != nil { // before the run, not after minutes of it
		return err
	}
	load, err := gf.options()
	if err != nil {
		return err
	}
	dataSet := false
	fs.Visit(func(f *flag.Flag) { dataSet = dataSet || f.Name == "data" })
	realName := "aan"
	switch {
	case len(gf.paths) > 1:
		return usageError{"report reads one --graph (prlab scale takes several)"}
	case len(gf.paths) == 1 && dataSet:
		return usageError{"--graph and --data both name the graph to rank: give one (--graph FILE for your own graph, --data DIR for a folder laid out like data/aan)"}
	case len(gf.paths) == 1:
		hint := "choose another with --name"
		realName = gf.name
		if realName == "" {
			realName, hint = graphName(gf.paths[0]), "it comes from the file name of --graph "+gf.paths[0]+": choose another with --name"
		}
		if err := checkGraphName(realName, hint); err != nil {
			return err
		}
	}
	// One writer per --out, for the whole run: a second `prlab report` on
	// the same directory fails now, not after computing.
	dst, err := lockOut(*out, stderr, append([]string{report.HTMLFile, report.JSONFile}, report.RunCSVFiles...)...)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer dst.Close()
	name := filepath.Base(filepath.Clean(*out))
	cfg := study.Config{
		Name:       name,
		GraphName:  realName,
		Load:       load,
		Cases:      cases,
		Impls:      impls,
		Iterations: *iterations,
		Runs:       *runs,
		Workers:    *workers,
		KeepRanks:  *ranks,
		GPU:        gpu(),
		Progress:   stderr,
	}
	// Check the flags against the registry before any work.
	check := cfg
	check.Entries = study.RegistryWorkers(cfg.GPU, cfg.Workers)
	check.EdgeList = filepath.Join(*data, dataset.EdgeName) // the data folder is checked after the flags
	if len(gf.paths) == 1 {
		check.EdgeList = gf.paths[0] // and the graph file read after them
	}
	check.TimingIterations, check.Warmups, check.FloatTolerance, check.OracleTolerance, check.MaxIterations =
		pagerank.TimingIterations, pagerank.TimingWarmups, pagerank.FloatTolerance, pagerank.OracleTolerance, 1000
	if err := check.Validate(); err != nil {
		return usageError{err.Error()}
	}
	if !cfg.WantsRealGraph() && (len(gf.paths) == 1 || dataSet) {
		given := "--data " + *data
		if len(gf.paths) == 1 {
			given = "--graph " + gf.paths[0]
		}
		fmt.Fprintf(stderr, "prlab report: note: %s is not used: --cases %s does not include \"real\" (add real to --cases to rank that graph)\n", given, cases.String())
	}
	if cfg.WantsRealGraph() && len(gf.paths) == 1 { // the user's graph, as it is: no manifest
		cfg.EdgeList, cfg.Papers = gf.paths[0], gf.metadata
		cfg.Datasets = []string{gf.paths[0]}
		if gf.metadata != "" {
			cfg.Datasets = append(cfg.Datasets, gf.metadata)
		}
	} else if cfg.WantsRealGraph() { // a run of synthetic cases only reads no graph file
		entries, err := dataset.Verify(*data)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		cfg.EdgeList, cfg.Papers = dataset.Lookup(entries, dataset.EdgeName), dataset.Lookup(entries, dataset.PapersName)
		for _, e := range entries {
			cfg.Datasets = append(cfg.Datasets, e.Path)
		}
	}
	res, err := study.Run(ctx, cfg)
	if err != nil {
		return fmt.Errorf("report: %w (%s)", err, nothingWritten(*out))
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("report: interrupted (%s)", nothingWritten(*out))
	}
	files, err := report.Files(res)
	if err == nil {
		err = dst.Write(files)
	}
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s, %s and the tables %s\n", filepath.Join(*out, report.HTMLFile), filepath.Join(*out, report.JSONFile), strings.Join(report.RunCSVFiles, ", "))
	return nil
}

// lockOut locks the output directory dir for this command (report.LockOut),
// prints what it cleaned up after a killed earlier run, and checks that the
// top-level names the command writes can go there.
func lockOut(dir string, stderr io.Writer, names ...string) (*report.OutDir, error) {
	o, err := report.LockOut(dir)
	if err != nil {
		return nil, err
	}
	for _, r := range o.Recovered() {
		fmt.Fprintln(stderr, "prlab:", r)
	}
	if err := o.Check(names...); err != nil {
		o.Close()
		return nil, err
	}
	return o, nil
}

// replaceCommittedFlag registers --replace-committed, the consent of the
// commands that write a document into --out (report, scale, incremental,
// verify, compare) to replace a committed report or verification
// (checkNotCommitted).
func replaceCommittedFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("replace-committed", false, "replace --out even when git tracks its results.json, scale.json, incremental.json or verify.json (a committed report or verification): its data is replaced by this run's")
}

// checkOut checks, before any work, the report directory dir of a command
// that writes one (report, scale, incremental, verify, compare): not a
// file, creatable or writable (checkWritable), and not a committed report
// unless replace (checkNotCommitted). Each failure is a usage error (exit
// 2) naming dir.
func checkOut(dir string, replace bool) error {
	if dir == "" {
		return usageError{"--out is empty: want a directory"}
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usageError{fmt.Sprintf("--out %s is a file, want a directory", dir)}
	}
	if err := checkWritable(dir); err != nil {
		return usageError{err.Error()}
	}
	return checkNotCommitted(dir, replace)
}

// checkNotCommitted refuses, before any work, the report directory dir when
// git tracks a prlab document at its top (report.CommittedDocument: a
// committed report, or a committed verify-*/ folder), unless replace
// (--replace-committed) is set. report, scale, incremental, verify and
// compare call it. Without git, or outside a work tree, nothing is refused.
// prlab render, which rewrites only the page of a committed report, does
// not call it.
func checkNotCommitted(dir string, replace bool) error {
	if replace {
		return nil
	}
	if doc := report.CommittedDocument(dir); doc != "" {
		return usageError{fmt.Sprintf("--out %s holds a committed report (git tracks %s): this run would replace its measured data; choose another --out, or pass --replace-committed to replace it deliberately (git checkout -- %s restores it)",
			dir, filepath.Join(dir, doc), dir)}
	}
	return nil
}

// nothingWritten says, for a run that failed before writing, what became
// of its report directory out: unchanged, or not created.
func nothingWritten(out string) string {
	if _, err := os.Stat(out); err != nil {
		return "nothing was written; " + out + " was not created"
	}
	return "nothing was written; " + out + " is unchanged"
}

// checkRenderNotCommitted refuses, before any work, `scale --render` or
// `incremental --render` (cmd) of the document doc when git tracks a prlab
// document in its directory, unless replace (--replace-committed): they
// grade the study again and rewrite its JSON and CSV tables, a committed
// report's data, where prlab render redraws only the page. A usage error
// (exit 2) naming the tracked file and both ways on.
func checkRenderNotCommitted(cmd, doc string, replace bool) error {
	dir := filepath.Dir(doc)
	if replace {
		return nil
	}
	if tracked := report.CommittedDocument(dir); tracked != "" {
		return usageError{fmt.Sprintf("%s --render %s: %s holds a committed report (git tracks %s), and --render rewrites its %s and tables with this binary's grading; `prlab render %s` redraws only its page, or pass --replace-committed to rewrite them deliberately (git checkout -- %s restores them)",
			cmd, doc, dir, filepath.Join(dir, tracked), filepath.Base(doc), dir, dir)}
	}
	return nil
}

// checkWritable reports whether the report directory dir can be created
// (or written, when it exists) without creating anything: the nearest
// existing ancestor must be a directory in which a file can be made.
func checkWritable(dir string) error {
	p := filepath.Clean(dir)
	for {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("--out %s: %s is not a directory", dir, p)
			}
			f, err := os.CreateTemp(p, ".prlab-write-check-*")
			if err != nil {
				return fmt.Errorf("--out %s: cannot write in %s: %v", dir, p, errors.Unwrap(err))
			}
			f.Close()
			os.Remove(f.Name())
			return nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return fmt.Errorf("--out %s: %v", dir, err)
		}
		p = parent
	}
}

func cmdRender(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("render", stderr)
	out := fs.String("out", "", "HTML file to write (default index.html beside results.json, scale.json or incremental.json, verify.html beside verify.json)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: prlab render [--out FILE] results.json|scale.json|incremental.json|verify.json|REPORT-DIR")
		fs.PrintDefaults()
	}
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	page, name, in, err := renderPage(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	dst := *out
	if dst == "" {
		// Beside the document: the report directory, written as a unit
		// (its other files, READMEs and verify folders are kept).
		dst = filepath.Join(filepath.Dir(in), name)
		err = report.WriteDir(filepath.Dir(in), map[string][]byte{name: page})
	} else {
		err = report.WriteFileAtomic(dst, page)
	}
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s from %s\n", dst, in)
	return nil
}

func cmdList(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("list", stderr)
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	g := gpu()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tPRECISION\tAVAILABLE\tLABEL")
	var reasons []string // footnotes: why an implementation cannot run here
	for _, e := range study.Registry(g) {
		avail := "yes"
		if why := study.Availability(e, g); why != "" {
			i := slices.Index(reasons, why)
			if i < 0 {
				reasons, i = append(reasons, why), len(reasons)
			}
			avail = fmt.Sprintf("no [%d]", i+1)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Impl.Name(), e.Kind, e.Impl.Precision(), avail, e.Impl.Label())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, why := range reasons {
		fmt.Fprintf(stdout, "[%d] %s\n", i+1, why)
	}
	return nil
}
