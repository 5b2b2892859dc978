package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/prlab/prlab/pkg/dataset"
	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
	"github.com/prlab/prlab/pkg/study"
)

// defaultIncrementalOut is where `prlab incremental` writes unless --out says otherwise.
const defaultIncrementalOut = "reports/incremental-latest"

// cmdIncremental is `prlab incremental`: PageRank after batches of edge
// updates. The AAN citation graph year by year (each year's papers and
// citations one batch) and seeded random batches (insertions, deletions,
// mixed; 0.01 % to 10 % of the edges) on R-MAT graphs and graph files; per
// batch the update against a rebuild, and per implementation the warm start
// from the ranks before the batch against a cold recompute, validated
// against the oracle. Writes DIR/index.html, incremental.json and the incremental-*.csv tables.
//
//	prlab incremental [--out DIR] [--data DIR] [--by-year=true] [--rmat 20,22]
//	                  [--graph FILE,...] [--batches 0.0001,0.001,0.01,0.1]
//	                  [--kinds insert,delete,mixed] [--seed 1] [--impl a,b]
//	                  [--runs 3] [--warmups 1] [--last-year 2012]
func cmdIncremental(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("incremental", stderr)
	out := fs.String("out", defaultIncrementalOut, "report directory (index.html, incremental.json, incremental-*.csv); its base name is the run name")
	replaceCommitted := replaceCommittedFlag(fs)
	data := fs.String("data", defaultData, "data directory with SHA256SUMS, "+dataset.EdgeName+"(.gz) and "+dataset.PapersName+"(.gz) (the by-year workload), checked before use, never written")
	byYear := fs.Bool("by-year", true, "run the AAN citation graph year by year")
	var rmat, batches, kinds, impls listFlag
	fs.Var(&rmat, "rmat", "comma-separated R-MAT scales for random batches (default 20,22; \"none\" for none)")
	fs.Var(&batches, "batches", "comma-separated batch sizes as fractions of the edges (default 0.0001,0.001,0.01,0.1)")
	fs.Var(&kinds, "kinds", "comma-separated random batch kinds (default "+strings.Join(pagerank.BatchKinds, ",")+")")
	fs.Var(&impls, "impl", "comma-separated implementations with a warm start or a resident GPU session (default all of them but the oracle: t1-multicore-f64, t1-multicore-f32, gpu-cusparse, gpu-warp-per-row; see prlab list); t0-oracle always validates")
	seed := fs.Uint64("seed", study.DefaultIncrementalSeed, "seed of the random batches and the R-MAT graphs (>= 1)")
	runs := fs.Int("runs", study.DefaultIncrementalRuns, "timed runs of every measured step, in [1, 1000]")
	warmups := fs.Int("warmups", 1, "untimed runs before them, in [0, 100]")
	lastYear := fs.Int("last-year", study.DefaultLastYear, "last year of the by-year workload")
	minPapers := fs.Int("min-papers", study.DefaultMinPapers, "the by-year workload starts with the first year with at least this many papers")
	floatTol := fs.Float64("float-tolerance", study.DefaultIncrementalFloatTolerance, "L1 residual tolerance of float32 rows, in (0, 1)")
	render := fs.String("render", "", "re-render a finished study: read this incremental.json and rewrite incremental.json, the incremental-*.csv tables and index.html beside it (nothing is measured; a committed study only with --replace-committed: prlab render redraws its page alone)")
	workers := workersFlag(fs)
	gf := addGraphFlags(fs, true) // graph files for random batches, like prlab scale's
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if *render != "" {
		if err := checkRenderNotCommitted("incremental", *render, *replaceCommitted); err != nil {
			return err
		}
		return renderIncremental(*render, stdout)
	}
	load, err := gf.options()
	if err != nil {
		return err
	}
	files, err := gf.files(load)
	if err != nil {
		return err
	}
	if err := checkWorkers(*workers); err != nil {
		return err
	}
	cfg := study.IncrementalConfig{
		Name:           filepath.Base(filepath.Clean(*out)),
		GraphName:      "aan",
		Graphs:         files,
		Kinds:          kinds,
		Seed:           *seed,
		MinPapers:      *minPapers,
		LastYear:       *lastYear,
		Impls:          impls,
		Runs:           *runs,
		FloatTolerance: *floatTol,
		Warmups:        *warmups,
		GPU:            gpu(),
		Progress:       stderr,
	}
	if *warmups == 0 {
		cfg.Warmups = -1 // zero means the default in the config
	}
	switch {
	case *seed == 0:
		return usageError{"--seed 0 is reserved for the default; pick a seed >= 1"}
	case *runs < 1 || *runs > 1000:
		return usageError{fmt.Sprintf("--runs %d out of range: must be in [1, 1000]", *runs)}
	case *warmups < 0 || *warmups > 100:
		return usageError{fmt.Sprintf("--warmups %d out of range: must be in [0, 100]", *warmups)}
	case !(*floatTol > 0 && *floatTol < 1):
		return usageError{fmt.Sprintf("--float-tolerance %v out of range: must be in (0, 1)", *floatTol)}
	case *minPapers < 1:
		return usageError{fmt.Sprintf("--min-papers %d out of range: must be >= 1", *minPapers)}
	}
	if len(rmat) == 0 {
		rmat = listFlag{"20", "22"}
	}
	for _, s := range rmat {
		if s == "none" {
			continue
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 2 || v > study.MaxScaleLimit {
			return usageError{fmt.Sprintf("--rmat %q: want scales in [2, %d], comma-separated, or none", s, study.MaxScaleLimit)}
		}
		cfg.RMAT = append(cfg.RMAT, v)
	}
	for _, b := range batches {
		f, err := strconv.ParseFloat(strings.TrimSuffix(b, "%"), 64)
		if strings.HasSuffix(b, "%") {
			f /= 100
		}
		if err != nil || !(f > 0 && f <= 1) {
			return usageError{fmt.Sprintf("--batches %q: want fractions of the edges in (0, 1] (0.001 or 0.1%%)", b)}
		}
		cfg.Fractions = append(cfg.Fractions, f)
	}
	for _, k := range kinds { // before the data folder is read: a wrong kind is the first error
		if !slices.Contains(pagerank.BatchKinds, k) {
			return usageError{fmt.Sprintf("--kinds %q: valid kinds are %s", k, strings.Join(pagerank.BatchKinds, ", "))}
		}
	}
	if err := checkOut(*out, *replaceCommitted); err != nil {
		return err
	}
	if *byYear {
		entries, err := dataset.Verify(*data)
		if err != nil {
			return fmt.Errorf("incremental: %w", err)
		}
		cfg.EdgeList, cfg.Papers = dataset.Lookup(entries, dataset.EdgeName), dataset.Lookup(entries, dataset.PapersName)
		for _, e := range entries {
			cfg.Datasets = append(cfg.Datasets, e.Path)
		}
	}
	check := cfg
	check.Entries = study.RegistryWorkers(cfg.GPU, cfg.Workers)
	if cfg.Warmups < 0 {
		check.Warmups = 0
	}
	check.MaxIterations = 1000
	if err := check.Validate(); err != nil {
		return usageError{err.Error()}
	}
	// One writer per --out for the whole run; a partial report after every
	// workload survives the process being killed.
	dst, err := lockOut(*out, stderr, append([]string{report.HTMLFile, report.IncrementalJSONFile}, report.IncrementalCSVFiles...)...)
	if err != nil {
		return fmt.Errorf("incremental: %w", err)
	}
	defer dst.Close()
	cfg.Checkpoint = func(s *report.IncrementalStudy) error { return report.WriteIncremental(*out, s) }
	s, err := study.RunIncremental(ctx, cfg)
	if err != nil {
		return fmt.Errorf("incremental: %w", err)
	}
	if err := report.WriteIncremental(*out, s); err != nil {
		return fmt.Errorf("incremental: %w", err)
	}
	for _, f := range s.Findings {
		fmt.Fprintln(stdout, f)
	}
	fmt.Fprintf(stdout, "incremental: %d batches, %d rows in %.1f s; wrote %s\n", len(s.Batches), len(s.Rows), s.ElapsedS, filepath.Join(*out, report.HTMLFile))
	return nil
}

// renderIncremental rewrites the three files of the study in path (an
// incremental.json) in the same directory, atomically: the findings and
// crossovers derived again with this binary's rules, the page redrawn.
func renderIncremental(path string, stdout io.Writer) error {
	s, err := report.Read[report.IncrementalStudy](path)
	if err != nil {
		return fmt.Errorf("incremental --render: %w", err)
	}
	s.Crossovers, s.Findings = study.Crossovers(s), study.IncrementalFindings(s)
	dir := filepath.Dir(path)
	if err := report.WriteIncremental(dir, s); err != nil {
		return fmt.Errorf("incremental --render: %w", err)
	}
	fmt.Fprintf(stdout, "incremental --render: rewrote %s\n", filepath.Join(dir, report.HTMLFile))
	return nil
}
