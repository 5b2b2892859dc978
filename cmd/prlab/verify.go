package main

// prlab verify REPORT_DIR [--out DIR] [--impl a,b] [--max-slowdown R] [--data DIR] [--graph PATH] [--metadata PATH]
//     rerun a committed report's protocol on this machine (same data,
//     checked by content SHA-256: the bundled data, or the report's own
//     --graph files where they were, or where --graph says; same cases, implementations, iterations, warm-ups
//     and runs, through the same study.Run) and compare: correctness gates
//     and timing; writes DIR/verify.html, verify.json and verify.csv
//     (default DIR: REPORT_DIR/verify-<date>).
// prlab compare A B [--out DIR] [--impl a,b] [--max-slowdown R]
//     the same comparison between two existing reports, without rerunning.
//
// Exit status: 0 when every gate held, 1 when one failed (each failure is
// printed with its case, implementation and both values), 2 when the data
// differ ("not the same data": nothing compared) or on a usage error.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/prlab/prlab/pkg/dataset"
	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
	"github.com/prlab/prlab/pkg/study"
)

// exitError ends prlab with a given exit status.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

type compareFlags struct {
	out              *string
	impls            listFlag
	maxSlowdown      *float64
	replaceCommitted *bool
}

func addCompareFlags(name string, stderr io.Writer, outHelp string) (*flag.FlagSet, *compareFlags) {
	fs := newFlags(name, stderr)
	c := &compareFlags{}
	c.out = fs.String("out", "", outHelp)
	fs.Var(&c.impls, "impl", "comma-separated implementations to compare (default every implementation of the report)")
	c.maxSlowdown = fs.Float64("max-slowdown", 0, "fail when a row is significantly slower by more than this ratio of medians, e.g. 1.1 (default: timing is not gated)")
	c.replaceCommitted = replaceCommittedFlag(fs)
	return fs, c
}

func (c *compareFlags) check() error {
	if *c.maxSlowdown != 0 && !(*c.maxSlowdown >= 1) {
		return usageError{fmt.Sprintf("--max-slowdown %v out of range: must be >= 1 (a ratio of medians, e.g. 1.1)", *c.maxSlowdown)}
	}
	if *c.out != "" {
		if err := checkOut(*c.out, *c.replaceCommitted); err != nil {
			return err
		}
	}
	return nil
}

func cmdVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := addCompareFlags("verify", stderr, "directory for verify.html, verify.json and verify.csv (default REPORT_DIR/verify-<date>)")
	data := fs.String("data", defaultData, "data directory with SHA256SUMS, "+dataset.EdgeName+"(.gz) and "+dataset.PapersName+"(.gz), checked before use, never written")
	var graphs, metadata listFlag
	fs.Var(&graphs, "graph", "where the report's --graph file is now, when it moved (checked by content SHA-256 against the report; read-only); repeat for a scale study's files")
	fs.Var(&metadata, "metadata", "where the report's --metadata file is now, when it moved (checked by content SHA-256; read-only)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: prlab verify [--out DIR] [--impl a,b] [--max-slowdown R] [--data DIR] [--graph PATH] [--metadata PATH] REPORT_DIR")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args, 1)
	if err != nil {
		return err
	}
	dir := pos[0]
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		dir = filepath.Dir(dir)
	}
	now := time.Now()
	if *cf.out == "" {
		*cf.out = filepath.Join(dir, "verify-"+now.UTC().Format("2006-01-02"))
	}
	if err := cf.check(); err != nil {
		return err
	}
	a, err := report.ReadEvidence(dir)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	// A GPU report on a machine whose GPU cannot run: its GPU rows are left
	// out of the comparison, and a report of GPU rows only is not rerun.
	impls, notRerun, why := rerunnableHere(a, cf.impls, gpu())
	if len(notRerun) > 0 && len(impls) == 0 {
		return exitError{1, fmt.Sprintf("verify: %s has only GPU rows (%s) and no GPU can run here: %s (nothing was run or written)", a.Path, strings.Join(notRerun, ", "), why)}
	}
	// One writer per --out for the whole rerun: a second verify into the
	// same directory fails now, not after the rerun.
	dst, err := lockOut(*cf.out, stderr, report.VerifyHTMLFile, report.VerifyJSONFile, report.VerifyCSVFile)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	defer dst.Close()
	moved := append(append([]string{}, graphs...), metadata...)
	var b report.Evidence
	var notes []string
	switch a.Format {
	case report.FormatResults:
		b, notes, err = rerunResults(ctx, a, *data, moved, cf.impls, dst, now, stderr)
	case report.FormatScale:
		b, notes, err = rerunScale(ctx, a, moved, cf.impls, dst, now, stderr)
	case report.FormatIncremental:
		b, notes, err = rerunIncremental(ctx, a, *data, cf.impls, dst, stderr)
	default:
		err = fmt.Errorf("%s: cannot rerun a %q report", a.Path, a.Format)
	}
	if err != nil {
		return err
	}
	v := report.Compare(a, b, report.Options{Mode: "verify", MaxSlowdown: *cf.maxSlowdown, Impls: impls})
	if len(notRerun) > 0 {
		notes = append(notes, fmt.Sprintf("not rerun here, so not compared: %s", strings.Join(notRerun, ", ")))
		v.Paragraph += fmt.Sprintf(" %d GPU designs of the report were not rerun here (%s), so only its other %d implementations were checked; rerun on a GPU host for the rest.", len(notRerun), why, len(impls))
	}
	v.Notes = append(notes, v.Notes...)
	return finishComparison(v, *cf.out, stdout)
}

// rerunnableHere narrows a verification on a machine whose GPU cannot run
// (no CUDA library, driver or device; why says which): the report's GPU
// rows were skipped by the rerun for that reason, so notRerun lists the GPU
// designs that ran in the report and keep the report's other
// implementations to compare, instead of failing every gate of every GPU
// row; a report of GPU rows only gives keep empty. impls named on the command line (--impl) are kept
// as given, and so is a report with no GPU row (notRerun empty).
func rerunnableHere(a report.Evidence, impls []string, g study.GPU) (keep, notRerun []string, why string) {
	if len(impls) > 0 || g == nil {
		return impls, nil, ""
	}
	ok, why := g.Available()
	if ok {
		return impls, nil, ""
	}
	// The GPU designs that ran in the report (a row passed or failed); one
	// the report skipped too (a CPU-only report) is compared as it is.
	for _, r := range a.Rows {
		if r.Kind == report.KindGPU && (r.Status == report.StatusPass || r.Status == report.StatusFail) && !slices.Contains(notRerun, r.Implementation) {
			notRerun = append(notRerun, r.Implementation)
		}
	}
	if len(notRerun) == 0 {
		return impls, nil, ""
	}
	for _, r := range a.Rows {
		if !slices.Contains(notRerun, r.Implementation) && !slices.Contains(keep, r.Implementation) {
			keep = append(keep, r.Implementation)
		}
	}
	return keep, notRerun, why
}

// localData verifies the data directory (SHA256SUMS) and returns its
// entries and their Evidence, to check before a rerun that it would read
// the report's data.
func localData(dir string) ([]dataset.Entry, report.Evidence, error) {
	entries, err := dataset.Verify(dir)
	if err != nil {
		return nil, report.Evidence{}, fmt.Errorf("verify: data: %w", err)
	}
	var cs []report.Checksum
	for _, e := range entries {
		c, err := report.FileChecksum(e.Path)
		if err != nil {
			return nil, report.Evidence{}, fmt.Errorf("verify: %w", err)
		}
		cs = append(cs, c)
	}
	run := &report.Run{Name: "this machine's " + dir, Env: report.Environment{Datasets: cs},
		Graph: report.GraphSummary{Path: dataset.Lookup(entries, dataset.EdgeName)}}
	return entries, report.EvidenceOfRun(run, ""), nil
}

// userGraph reports whether run read a user's graph file (prlab report
// --graph) rather than a data directory's graph (data/aan and its
// SHA256SUMS): its graph file is not the bundled graph's name, or verify
// was told where the file is now (moved).
func userGraph(run *report.Run, moved []string) bool {
	if run.Graph.Path == "" || !slices.ContainsFunc(run.Env.Datasets, func(c report.Checksum) bool { return c.File == filepath.ToSlash(run.Graph.Path) }) {
		return false
	}
	return len(moved) > 0 || run.Graph.UserGraph()
}

// recordedFile returns where to read the input file the report recorded at
// path: the first of moved whose content SHA-256 is the recorded one, else
// path itself after checking its content against the record (sums, the
// report's environment.datasets). A missing file is an error naming the
// recorded path and --graph; a changed one is "not the same data" (exit 2).
// An input the report has no checksum for (older scale studies) is read
// as it is.
func recordedFile(sums []report.Checksum, path string, moved []string) (string, error) {
	i := slices.IndexFunc(sums, func(c report.Checksum) bool { return c.File == filepath.ToSlash(path) })
	if i < 0 {
		return path, nil
	}
	want := sums[i].Content()
	for _, m := range moved {
		if c, err := report.FileChecksum(m); err == nil && c.Content() == want {
			return m, nil
		}
	}
	c, err := report.FileChecksum(path)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return "", exitError{2, fmt.Sprintf("verify: the report read %s (content SHA-256 %s…), which is not there now%s: give its new place with --graph PATH (or --metadata PATH for the metadata table); it is checked by content SHA-256 (nothing was run or compared)",
			path, want[:12], movedNote(moved))}
	case err != nil:
		return "", fmt.Errorf("verify: %w", err)
	case c.Content() != want:
		return "", exitError{2, fmt.Sprintf("verify: not the same data: %s has content SHA-256 %s… now, the report read %s…%s (nothing was run or compared)",
			path, c.Content()[:12], want[:12], movedNote(moved))}
	}
	return path, nil
}

// movedNote says that none of the --graph/--metadata files given matched.
func movedNote(moved []string) string {
	if len(moved) == 0 {
		return ""
	}
	return " (and none of " + strings.Join(moved, ", ") + " has that content)"
}

// rerunResults reruns a results.json report's protocol through study.Run.
func rerunResults(ctx context.Context, a report.Evidence, data string, moved, impls []string, dst *report.OutDir, now time.Time, stderr io.Writer) (report.Evidence, []string, error) {
	run, err := report.Read[report.Run](a.Path)
	if err != nil {
		return report.Evidence{}, nil, fmt.Errorf("verify: %w", err)
	}
	base := study.Config{
		Name:     filepath.Base(dst.Path()),
		GPU:      gpu(),
		Progress: stderr,
		Now:      func() time.Time { return now },
	}
	cfg, missing, err := study.RerunConfig(run, impls, base)
	if err != nil {
		return report.Evidence{}, nil, usageError{"verify: " + err.Error()}
	}
	if userGraph(run, moved) { // the report read the user's --graph file: reread it where it is
		if cfg.EdgeList, err = recordedFile(run.Env.Datasets, run.Graph.Path, moved); err != nil {
			return report.Evidence{}, nil, err
		}
		cfg.Datasets = []string{cfg.EdgeList}
		if run.Graph.MetadataPath != "" {
			if cfg.Papers, err = recordedFile(run.Env.Datasets, run.Graph.MetadataPath, moved); err != nil {
				return report.Evidence{}, nil, err
			}
			cfg.Datasets = append(cfg.Datasets, cfg.Papers)
		}
		f, err := pagerank.ParseFormat(run.Graph.Format)
		if err != nil {
			return report.Evidence{}, nil, fmt.Errorf("verify: %s: graph.format: %w", a.Path, err)
		}
		cfg.Load = pagerank.LoadOptions{Format: f, Undirected: run.Graph.Undirected, Columns: run.Graph.Columns}
	} else if cfg.WantsRealGraph() || len(run.Env.Datasets) > 0 {
		edges, papers, files, err := bundledData(a, data)
		if err != nil {
			return report.Evidence{}, nil, err
		}
		cfg.EdgeList, cfg.Papers = edges, papers
		cfg.Datasets = append(cfg.Datasets, files...)
	}
	var notes []string
	if len(missing) > 0 {
		notes = append(notes, fmt.Sprintf("not registered in this build, so not rerun: %s", strings.Join(missing, ", ")))
	}
	fmt.Fprintf(stderr, "verify: rerunning %s: %d cases, %d implementations, %d fixed iterations, %d timed iterations, %d warm-ups, %d runs\n",
		a.Path, len(cfg.Cases), len(cfg.Impls), cfg.Iterations, cfg.TimingIterations, cfg.Warmups, cfg.Runs)
	res, err := study.Run(ctx, cfg)
	if err != nil {
		return report.Evidence{}, nil, fmt.Errorf("verify: rerun: %w (nothing was written)", err)
	}
	if err := ctx.Err(); err != nil {
		return report.Evidence{}, nil, fmt.Errorf("verify: interrupted (nothing was written)")
	}
	return report.EvidenceOfRun(res, ""), notes, nil
}

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	fs, cf := addCompareFlags("compare", stderr, "directory to write verify.html, verify.json and verify.csv into (default: print only)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: prlab compare [--out DIR] [--impl a,b] [--max-slowdown R] A B")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args, 2)
	if err != nil {
		return err
	}
	if err := cf.check(); err != nil {
		return err
	}
	a, err := report.ReadEvidence(pos[0])
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	b, err := report.ReadEvidence(pos[1])
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	v := report.Compare(a, b, report.Options{Mode: "compare", MaxSlowdown: *cf.maxSlowdown, Impls: cf.impls})
	return finishComparison(v, *cf.out, stdout)
}

// finishComparison prints the paragraph, every failed gate and the timing
// table, writes the files when out is set, and returns the exit status.
func finishComparison(v *report.Verification, out string, stdout io.Writer) error {
	fmt.Fprintln(stdout, v.Paragraph)
	for _, n := range v.Notes {
		fmt.Fprintln(stdout, "note: "+n)
	}
	fails := v.Failures()
	for _, g := range fails {
		fmt.Fprintln(stdout, "FAIL "+v.Line(g))
	}
	if len(v.Timing) > 0 {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		sideA, sideB := "REPORT", "RERUN"
		if v.Mode != "verify" { // compare: the two reports by name, as the paragraph and the FAIL lines name them
			sideA, sideB = v.Report.Name, v.Rerun.Name
		}
		fmt.Fprintf(tw, "CASE\tIMPLEMENTATION\t%s ms\t%s ms\tRATIO\t95%% CI\tp(Holm)\tCLASS\n", sideA, sideB)
		f := func(format string, x report.F) string {
			if !x.Valid() {
				return "—"
			}
			return fmt.Sprintf(format, float64(x))
		}
		for _, t := range v.Timing {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s–%s\t%s\t%s\n", t.Case, t.Implementation, f("%.4g", t.ReportMedianMs),
				f("%.4g", t.RerunMedianMs), f("%.3f", t.Ratio), f("%.3f", t.Lo), f("%.3f", t.Hi), f("%.2g", t.PHolm), t.Class)
		}
		tw.Flush()
	}
	if out != "" {
		if err := report.WriteVerification(out, v); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s, %s and %s\n", filepath.Join(out, report.VerifyHTMLFile), filepath.Join(out, report.VerifyJSONFile), filepath.Join(out, report.VerifyCSVFile))
	}
	switch {
	case !v.SameData:
		return exitError{2, "not the same data: " + strings.TrimPrefix(v.DataError, report.ErrNotSameData.Error()+": ")}
	case len(fails) > 0:
		return exitError{1, fmt.Sprintf("%d gate(s) failed", len(fails))}
	}
	return nil
}

// rerunScale reruns a scale.json study's protocol through study.RunScale
// (study.ScaleRerunConfig: its graphs, references and per-row rungs).
func rerunScale(ctx context.Context, a report.Evidence, moved, impls []string, dst *report.OutDir, now time.Time, stderr io.Writer) (report.Evidence, []string, error) {
	s, err := report.Read[report.ScaleStudy](a.Path)
	if err != nil {
		return report.Evidence{}, nil, fmt.Errorf("verify: %w", err)
	}
	cfg, missing, err := study.ScaleRerunConfig(s, impls, study.ScaleConfig{Name: filepath.Base(dst.Path()), GPU: gpu(), Progress: stderr})
	if err != nil {
		return report.Evidence{}, nil, usageError{"verify: " + err.Error()}
	}
	for _, g := range s.Graphs { // the study's --graph files, reread where they are, as they were read
		if g.Family != report.FamilyFile || g.Skipped != "" {
			continue
		}
		path, err := recordedFile(s.Env.Datasets, g.Path, moved)
		if err != nil {
			return report.Evidence{}, nil, err
		}
		f, err := pagerank.ParseFormat(g.Format)
		if err != nil {
			return report.Evidence{}, nil, fmt.Errorf("verify: %s: graph %s: format: %w", a.Path, g.Name, err)
		}
		cfg.Files = append(cfg.Files, study.GraphFile{Path: path, Name: g.Name,
			Load: pagerank.LoadOptions{Format: f, Undirected: g.Undirected, Columns: g.Columns}})
	}
	var notes []string
	if len(missing) > 0 {
		notes = append(notes, fmt.Sprintf("not registered in this build, so not rerun: %s", strings.Join(missing, ", ")))
	}
	fmt.Fprintf(stderr, "verify: rerunning %s: scales %d..%d (grids: %v), seed %d, %d implementations, each row on the report's rung\n",
		a.Path, cfg.MinScale, cfg.MaxScale, cfg.Grid, cfg.Seed, len(cfg.Impls))
	res, err := study.RunScale(ctx, cfg)
	if err != nil {
		return report.Evidence{}, nil, fmt.Errorf("verify: rerun: %w (nothing was written)", err)
	}
	return report.EvidenceOfScale(res, ""), notes, nil
}

// rerunIncremental reruns an incremental.json study's protocol through
// study.RunIncremental (study.IncrementalRerunConfig), after checking that
// the by-year workload would read the study's data.
func rerunIncremental(ctx context.Context, a report.Evidence, data string, impls []string, dst *report.OutDir, stderr io.Writer) (report.Evidence, []string, error) {
	s, err := report.Read[report.IncrementalStudy](a.Path)
	if err != nil {
		return report.Evidence{}, nil, fmt.Errorf("verify: %w", err)
	}
	base := study.IncrementalConfig{Name: filepath.Base(dst.Path()), GraphName: "aan", GPU: gpu(), Progress: stderr}
	cfg, byYear, missing, err := study.IncrementalRerunConfig(s, impls, base)
	if err != nil {
		return report.Evidence{}, nil, usageError{"verify: " + err.Error()}
	}
	if byYear {
		edges, papers, files, err := bundledData(a, data)
		if err != nil {
			return report.Evidence{}, nil, err
		}
		cfg.EdgeList, cfg.Papers = edges, papers
		cfg.Datasets = append(cfg.Datasets, files...)
	}
	var notes []string
	if len(missing) > 0 {
		notes = append(notes, fmt.Sprintf("not registered in this build, so not rerun: %s", strings.Join(missing, ", ")))
	}
	fmt.Fprintf(stderr, "verify: rerunning %s: %d workloads, %d implementations, %d runs\n", a.Path, len(s.Workloads), len(cfg.Impls), cfg.Runs)
	res, err := study.RunIncremental(ctx, cfg)
	if err != nil {
		return report.Evidence{}, nil, fmt.Errorf("verify: rerun: %w (nothing was written)", err)
	}
	return report.EvidenceOfIncremental(res, ""), notes, nil
}

// parseInterspersed parses flags placed before, between or after the
// positional arguments (prlab compare A B --out DIR) and returns the
// positional ones; a wrong count is a usage error.
func parseInterspersed(fs *flag.FlagSet, args []string, positional int) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != positional {
		return nil, usageError{fmt.Sprintf("%s: want %d argument(s), got %d", strings.TrimPrefix(fs.Name(), "prlab "), positional, len(pos))}
	}
	return pos, nil
}

// renderPage renders the page of the prlab document at in as it is
// recorded (nothing is measured or graded again; scale and incremental
// --render grade again): index.html from a results.json, scale.json (with
// the CPU baseline it records) or incremental.json, verify.html from a
// verify.json; a file of any other name is read as a results.json. in may
// be a report directory (report.FindDocument). It returns the page, its
// file name and the document read.
func renderPage(in string) (page []byte, name, doc string, err error) {
	if doc, err = report.FindDocument(in); err != nil {
		return nil, "", "", err
	}
	switch filepath.Base(doc) {
	case report.VerifyJSONFile:
		page, err = pageOf(doc, report.ReadVerification, report.RenderVerifyHTML)
		return page, report.VerifyHTMLFile, doc, err
	case report.ScaleJSONFile:
		page, err = pageOf(doc, report.Read[report.ScaleStudy], func(s *report.ScaleStudy) ([]byte, error) {
			if err := report.AttachCPUBaseline(s, filepath.Dir(doc), ""); err != nil {
				return nil, err
			}
			return report.RenderScaleHTML(s)
		})
	case report.IncrementalJSONFile:
		page, err = pageOf(doc, report.Read[report.IncrementalStudy], report.RenderIncrementalHTML)
	default:
		page, err = pageOf(doc, report.Read[report.Run], report.RenderHTML)
	}
	return page, report.HTMLFile, doc, err
}

// pageOf reads the document doc with read and renders its page with render.
func pageOf[T any](doc string, read func(string) (*T, error), render func(*T) ([]byte, error)) ([]byte, error) {
	d, err := read(doc)
	if err != nil {
		return nil, err
	}
	return render(d)
}

// bundledData checks that this machine's bundled data (the folder data) is
// the data report a was measured on, and returns its edge list, paper
// metadata and every file's path for the rerun; different data is exit
// status 2 with nothing run.
func bundledData(a report.Evidence, data string) (edges, papers string, files []string, err error) {
	entries, here, err := localData(data)
	if err != nil {
		return "", "", nil, err
	}
	if _, err := report.SameData(a, here); err != nil {
		return "", "", nil, exitError{2, fmt.Sprintf("verify: %v (nothing was run or compared)", err)}
	}
	for _, e := range entries {
		files = append(files, e.Path)
	}
	return dataset.Lookup(entries, dataset.EdgeName), dataset.Lookup(entries, dataset.PapersName), files, nil
}
