package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"time"

	"github.com/prlab/prlab/pkg/cudabind"
	"github.com/prlab/prlab/pkg/report"
	"github.com/prlab/prlab/pkg/study"
)

// generatedName matches the names of the study's own graphs (rmat16, grid256).
var generatedName = regexp.MustCompile(`^(rmat|grid)[0-9]+$`)

// defaultScaleOut is where `prlab scale` writes unless --out says otherwise.
const defaultScaleOut = "reports/scale-latest"

// cmdScale is `prlab scale`: the scale study (issue 5, the tiered study's
// phase 6). Every CPU and GPU implementation on Graph500 R-MAT graphs from
// 2^min-scale to 2^max-scale nodes (and 2-D grids of comparable n), within
// a time budget; writes DIR/index.html, scale.json and the scale-*.csv tables.
//
//	prlab scale [--out DIR] [--min-scale 16] [--max-scale 24] [--grid=true]
//	            [--budget 5m] [--impl a,b] [--oracle-max-scale 0] [--seed 1]
//	            [--validate-iterations 20] [--copy-mib 512] [--plan]
//	            [--rung 10x3] [--gap-csv DIR] [--render scale.json]
//	            [--graph FILE]... [--format F] [--undirected] [--columns a,b]
//
// Each --graph file runs after the generated graphs, with every
// implementation (family "file" in scale-graphs.csv and scale.json).
func cmdScale(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("scale", stderr)
	out := fs.String("out", defaultScaleOut, "report directory (index.html, scale.json, scale-*.csv); its base name is the run name")
	replaceCommitted := replaceCommittedFlag(fs)
	minScale := fs.Int("min-scale", study.DefaultMinScale, fmt.Sprintf("smallest R-MAT scale (n = 2^scale), in [1, %d]", study.MaxScaleLimit))
	maxScale := fs.Int("max-scale", study.DefaultMaxScale, fmt.Sprintf("largest R-MAT scale, in [min-scale, %d]", study.MaxScaleLimit))
	grid := fs.Bool("grid", true, "also run a 2-D grid of comparable n at every scale (the high-diameter, no-skew contrast)")
	budget := fs.Duration("budget", study.DefaultScaleBudget, "time budget for the whole study (e.g. 5m, 90s); the plan fits rows into it and skips, with the reason, what would overrun")
	seed := fs.Uint64("seed", study.DefaultScaleSeed, "R-MAT seed (fixed, so every run builds the same graphs)")
	validate := fs.Int("validate-iterations", study.DefaultValidateIterations, fmt.Sprintf("fixed iterations of every validation run, in [1, %d]", 10000))
	oracleMax := fs.Int("oracle-max-scale", 0, "run the float64 sequential oracle only up to this scale (0: as far as the budget allows; -1: never)")
	copyMiB := fs.Int64("copy-mib", study.DefaultCopyBytes>>20, "size in MiB of each buffer of the CPU memcpy bandwidth row (the CPU byte floor's denominator)")
	planOnly := fs.Bool("plan", false, "print the plan (graphs, protocol per row, estimated seconds) and exit without running; every --graph file is read and checked first, as the run would")
	render := fs.String("render", "", "re-render a finished study: read this scale.json, grade the goals again with this binary's rules, and rewrite scale.json, the scale-*.csv tables and index.html beside it (nothing is measured; a committed study only with --replace-committed: prlab render redraws its page alone)")
	rung := fs.String("rung", "", "time every row as ITERATIONSxRUNS (one warm-up first), e.g. 10x3, instead of fitting the protocol to --budget: nothing is skipped or stepped down for the budget")
	gapCSV := fs.String("gap-csv", "", "directory holding gap-vs-t1.csv and t1-scaling.csv (scripts/gap-vs-t1.sh): the page draws them as the CPU baseline and scale.json records the directory, relative to --out, for later re-renders (default: the report directory itself when it holds them)")
	var impls listFlag
	fs.Var(&impls, "impl", "comma-separated implementations (default all; see prlab list); t0-oracle and t1-multicore-f64 always run, as references")
	workers := workersFlag(fs)
	gf := addGraphFlags(fs, true)
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if err := checkWorkers(*workers); err != nil {
		return err
	}
	load, err := gf.options()
	if err != nil {
		return err
	}
	files, err := gf.files(load)
	if err != nil {
		return err
	}
	if *gapCSV != "" && !report.HasCPUBaseline(*gapCSV) {
		return usageError{fmt.Sprintf("--gap-csv %s: no %s there (scripts/gap-vs-t1.sh writes it)", *gapCSV, report.GapVsT1File)}
	}
	if *render != "" {
		if err := checkRenderNotCommitted("scale", *render, *replaceCommitted); err != nil {
			return err
		}
		return renderScale(*render, *gapCSV, stdout)
	}
	if *budget < time.Second {
		return usageError{fmt.Sprintf("--budget %v out of range: must be at least 1s", *budget)}
	}
	// Zero would silently select the defaults in study.ScaleConfig: reject it here.
	if *minScale < 1 || *minScale > study.MaxScaleLimit {
		return usageError{fmt.Sprintf("--min-scale %d out of range: must be in [1, %d]", *minScale, study.MaxScaleLimit)}
	}
	if *maxScale < *minScale || *maxScale > study.MaxScaleLimit {
		return usageError{fmt.Sprintf("--max-scale %d out of range: must be in [min-scale %d, %d]", *maxScale, *minScale, study.MaxScaleLimit)}
	}
	if *validate < 1 || *validate > 10000 {
		return usageError{fmt.Sprintf("--validate-iterations %d out of range: must be in [1, 10000]", *validate)}
	}
	if *copyMiB < 1 || *copyMiB > 16<<10 {
		return usageError{fmt.Sprintf("--copy-mib %d out of range: must be in [1, 16384]", *copyMiB)}
	}
	if !*planOnly { // --plan writes nothing
		if err := checkOut(*out, *replaceCommitted); err != nil {
			return err
		}
	}
	if *seed == 0 {
		return usageError{"--seed 0 is reserved for the default; pick a seed >= 1"}
	}
	var fixed *study.Rung
	if *rung != "" {
		var it, runs int
		if n, err := fmt.Sscanf(*rung, "%dx%d", &it, &runs); err != nil || n != 2 || fmt.Sprintf("%dx%d", it, runs) != *rung || it < 2 || it > 10000 || runs < 1 || runs > 1000 {
			return usageError{fmt.Sprintf("--rung %q: want ITERATIONSxRUNS, e.g. 10x3 (iterations in [2, 10000], runs in [1, 1000])", *rung)}
		}
		fixed = &study.Rung{Iterations: it, Warmups: 1, Runs: runs}
	}
	cfg := study.ScaleConfig{
		Rung:               fixed,
		Name:               filepath.Base(filepath.Clean(*out)),
		MinScale:           *minScale,
		MaxScale:           *maxScale,
		Grid:               *grid,
		Seed:               *seed,
		Impls:              impls,
		Budget:             *budget,
		ValidateIterations: *validate,
		OracleMaxScale:     *oracleMax,
		CopyBytes:          *copyMiB << 20,
		Workers:            *workers,
		Files:              files,
		PlanOnly:           *planOnly,
		GPU:                gpu(),
		Progress:           stderr,
	}
	if !*planOnly {
		dst, err := lockOut(*out, stderr, append([]string{report.HTMLFile, report.ScaleJSONFile}, report.ScaleCSVFiles...)...)
		if err != nil {
			return fmt.Errorf("scale: %w", err)
		}
		defer dst.Close()
		// A partial report after every graph: a run killed from outside (a
		// device-time limit) still leaves the graphs it finished.
		cfg.Checkpoint = func(s *report.ScaleStudy) error { return report.WriteScale(*out, s) }
	}
	// The locality implementations' one-time host relabel (pkg/cudabind,
	// not in ms/iter) is reported on the progress stream.
	cudabind.SetRelabelLog(stderr)
	defer cudabind.SetRelabelLog(nil)
	s, err := study.RunScale(ctx, cfg)
	if err != nil {
		return fmt.Errorf("scale: %w", err)
	}
	if *planOnly {
		return nil
	}
	if err := report.AttachCPUBaseline(s, *out, *gapCSV); err != nil {
		return fmt.Errorf("scale: --gap-csv: %w", err)
	}
	if s.CPUBaseline != nil {
		s.Goals = study.ScaleGoals(s)
	}
	if err := report.WriteScale(*out, s); err != nil {
		return fmt.Errorf("scale: %w", err)
	}
	for _, g := range s.Goals {
		fmt.Fprintf(stdout, "%-52s %-13s %s\n", g.Name, g.Status, g.Measured)
	}
	fmt.Fprintf(stdout, "scale: %d graphs, %d rows in %.1f s; wrote %s\n", len(s.Graphs), len(s.Rows), s.ElapsedS,
		filepath.Join(*out, report.HTMLFile))
	return nil
}

// renderScale re-derives the goals of the study in path (a scale.json) and
// rewrites its three files in the same directory, atomically; the CPU
// baseline's CSVs come from gapCSV, else from where scale.json recorded
// them, else from the report directory (report.AttachCPUBaseline).
func renderScale(path, gapCSV string, stdout io.Writer) error {
	s, err := report.Read[report.ScaleStudy](path)
	if err != nil {
		return fmt.Errorf("scale --render: %w", err)
	}
	dir := filepath.Dir(path)
	if err := report.AttachCPUBaseline(s, dir, gapCSV); err != nil {
		return fmt.Errorf("scale --render: --gap-csv: %w", err)
	}
	s.Goals = study.ScaleGoals(s)
	if err := report.WriteScale(dir, s); err != nil {
		return fmt.Errorf("scale --render: %w", err)
	}
	for _, g := range s.Goals {
		fmt.Fprintf(stdout, "%-52s %-13s %s\n", g.Name, g.Status, g.Measured)
	}
	fmt.Fprintf(stdout, "scale --render: rewrote %s\n", filepath.Join(dir, report.HTMLFile))
	return nil
}
