package study

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
)

// RerunConfig is the Config that reruns run's protocol through Run (the
// same pipeline the report came from): its cases, its implementations
// (only those named in impls, when impls is not empty; the oracle always),
// its fixed and timed iterations, warm-ups, runs, tolerances, iteration
// cap and T1 worker count. base supplies what the report cannot: the data paths, the GPU, the
// progress writer, the run name. missing lists the report's implementations
// this binary does not register (they are left out; the comparison names
// their rows as not run). An error means the protocol cannot be rerun here
// (another damping factor or oracle, or impls naming an implementation the
// report does not have).
func RerunConfig(run *report.Run, impls []string, base Config) (cfg Config, missing []string, err error) {
	p := run.Protocol
	if p.Damping != 0 && p.Damping != pagerank.DefaultDamping {
		return cfg, nil, fmt.Errorf("the report used damping factor %v; this build runs only %v", p.Damping, pagerank.DefaultDamping)
	}
	if p.Oracle != "" && p.Oracle != OracleName {
		return cfg, nil, fmt.Errorf("the report was validated against %q; this build's oracle is %q", p.Oracle, OracleName)
	}
	var names []string
	for _, im := range run.Implementations {
		names = append(names, im.Name)
	}
	cfg = base
	// The report's T1 worker count (older reports: the GOMAXPROCS it ran with).
	cfg.Workers = p.Workers
	if cfg.Workers == 0 {
		cfg.Workers = run.Env.GOMAXPROCS
	}
	entries := base.Entries
	if entries == nil {
		entries = RegistryWorkers(base.GPU, cfg.Workers)
	}
	if cfg.Impls, missing, err = rerunImpls("report", names, impls, Names(entries), OracleName); err != nil {
		return Config{}, nil, err
	}
	cfg.Cases = nil
	for _, c := range run.Cases {
		cfg.Cases = append(cfg.Cases, c.Name)
	}
	if run.Graph.Name != "" {
		cfg.GraphName = run.Graph.Name
	}
	cfg.Iterations, cfg.TimingIterations, cfg.Warmups, cfg.Runs = p.Iterations, p.TimingIterations, p.Warmups, p.Runs
	cfg.FloatTolerance, cfg.OracleTolerance, cfg.MaxIterations = p.FloatTolerance, p.OracleTolerance, p.MaxIterations
	cfg.Entries = entries
	return cfg, missing, nil
}

// ScaleRerunConfig is the ScaleConfig that reruns the scale study s
// (prlab verify of a scale.json): its scales, grids, seed and validation
// iterations, Replay set to s (its graphs, references and per-row timing
// rungs), and its implementations (only those in impls when impls is not
// empty; the oracle and the fallback reference always, as RunScale runs
// them). missing lists the study's implementations this binary does not
// register.
func ScaleRerunConfig(s *report.ScaleStudy, impls []string, base ScaleConfig) (cfg ScaleConfig, missing []string, err error) {
	p := s.Protocol
	if p.Damping != 0 && p.Damping != pagerank.DefaultDamping {
		return cfg, nil, fmt.Errorf("the study used damping factor %v; this build runs only %v", p.Damping, pagerank.DefaultDamping)
	}
	def := pagerank.Graph500RMAT(p.MinScale, p.Seed)
	if p.EdgeFactor != def.EdgeFactor || p.A != def.A || p.B != def.B || p.C != def.C {
		return cfg, nil, fmt.Errorf("the study's R-MAT parameters (edge factor %d, a,b,c = %g,%g,%g) are not this build's (%d, %g,%g,%g)",
			p.EdgeFactor, p.A, p.B, p.C, def.EdgeFactor, def.A, def.B, def.C)
	}
	var names []string
	for _, r := range s.Rows {
		if !slices.Contains(names, r.Implementation) {
			names = append(names, r.Implementation)
		}
	}
	cfg = base
	cfg.Workers = p.Workers // the study's T1 worker count (older studies: the GOMAXPROCS it ran with)
	if cfg.Workers == 0 {
		cfg.Workers = s.Env.GOMAXPROCS
	}
	cfg.defaults()
	if cfg.Impls, missing, err = rerunImpls("study", names, impls, Names(cfg.Entries), ""); err != nil {
		return ScaleConfig{}, nil, err
	}
	cfg.MinScale, cfg.MaxScale, cfg.Grid, cfg.Seed, cfg.ValidateIterations = p.MinScale, p.MaxScale, p.Grid, p.Seed, p.ValidateIterations
	cfg.Budget = 24 * time.Hour // the replayed protocol, not a budget, decides what runs
	cfg.Replay = s
	return cfg, missing, nil
}

// replay sets the plan gs to the protocol the study s ran: graphs s did not
// run are skipped with its reason, each graph keeps s's reference, and every
// row is timed on the rung s timed it on (a CPU row's K−1 clock means K
// iterations per run) or skipped as s skipped it.
func replay(gs []*plannedGraph, s *report.ScaleStudy) {
	for _, g := range gs {
		i := slices.IndexFunc(s.Graphs, func(x report.ScaleGraph) bool { return x.Name == g.name() })
		switch {
		case i < 0:
			g.Skip = "not in the study being re-verified"
			continue
		case s.Graphs[i].Skipped != "":
			g.Skip = s.Graphs[i].Skipped
			continue
		}
		g.Oracle = s.Graphs[i].Reference == OracleName
		for j := range g.Rows {
			pr := &g.Rows[j]
			name := pr.Entry.Impl.Name()
			k := slices.IndexFunc(s.Rows, func(x report.ScaleRow) bool { return x.Graph == g.name() && x.Implementation == name })
			if k < 0 {
				pr.Skip = "not in the study being re-verified"
				continue
			}
			row := s.Rows[k]
			if row.Status == report.StatusSkipped {
				pr.Skip = row.Reason
				continue
			}
			pr.Skip = ""
			t := row.Timing
			if len(t.RunsMs) == 0 {
				continue // failed before timing: the course rung, if it gets that far
			}
			it := t.Iterations
			if t.Clock == CPUClockDiff {
				it++ // K-1 iterations were timed out of K per run
			}
			pr.Fixed = &Rung{Iterations: it, Warmups: t.Warmups, Runs: len(t.RunsMs)}
		}
	}
}

// IncrementalRerunConfig is the IncrementalConfig that reruns the
// incremental study s (prlab verify of an incremental.json): its workloads
// (the by-year one when s has it, its R-MAT scales, its graph files, read
// from the paths s recorded, formats sniffed), batch fractions and kinds,
// seed, years, warm-ups, runs, tolerances, iteration cap and worker count,
// and its implementations (only those in impls when impls is not empty).
// base supplies the by-year data paths, the GPU and the progress writer.
// byYear reports whether s has a by-year workload (the caller must then
// give base.EdgeList and base.Papers).
func IncrementalRerunConfig(s *report.IncrementalStudy, impls []string, base IncrementalConfig) (cfg IncrementalConfig, byYear bool, missing []string, err error) {
	p := s.Protocol
	if p.Damping != 0 && p.Damping != pagerank.DefaultDamping {
		return cfg, false, nil, fmt.Errorf("the study used damping factor %v; this build runs only %v", p.Damping, pagerank.DefaultDamping)
	}
	cfg = base
	for _, w := range s.Workloads {
		var scale int
		switch {
		case w.Kind == report.WorkloadByYear:
			byYear = true
		case strings.HasPrefix(w.Source, "Graph500 R-MAT") && fmtScan(w.Name, "rmat%d", &scale):
			cfg.RMAT = append(cfg.RMAT, scale)
		default:
			cfg.Graphs = append(cfg.Graphs, GraphFile{Path: w.Source, Name: w.Name})
		}
	}
	if !byYear {
		cfg.EdgeList, cfg.Papers, cfg.Datasets = "", "", nil
	}
	var names []string
	for _, r := range s.Rows {
		if !slices.Contains(names, r.Implementation) {
			names = append(names, r.Implementation)
		}
	}
	for _, n := range impls {
		if !slices.Contains(names, n) {
			return cfg, false, nil, fmt.Errorf("--impl %s: the study has no implementation %q (it has %v)", n, n, names)
		}
	}
	cfg.Workers = p.Workers
	if cfg.Workers == 0 {
		cfg.Workers = s.Env.GOMAXPROCS
	}
	if cfg.Entries == nil {
		cfg.Entries = RegistryWorkers(cfg.GPU, cfg.Workers)
	}
	registered := Names(cfg.Entries)
	cfg.Impls = nil
	for _, n := range names {
		if len(impls) > 0 && !slices.Contains(impls, n) {
			continue
		}
		if !slices.Contains(registered, n) {
			missing = append(missing, n)
			continue
		}
		cfg.Impls = append(cfg.Impls, n)
	}
	cfg.Fractions, cfg.Kinds, cfg.Seed = p.Fractions, p.Kinds, p.Seed
	cfg.MinPapers, cfg.LastYear, cfg.Runs = p.MinPapers, p.LastYear, p.Runs
	cfg.Warmups = p.Warmups
	if cfg.Warmups == 0 {
		cfg.Warmups = -1 // none (0 would take the default)
	}
	cfg.FloatTolerance, cfg.OracleTolerance, cfg.MaxIterations = p.FloatTolerance, p.OracleTolerance, p.MaxIterations
	return cfg, byYear, missing, nil
}

// fmtScan is fmt.Sscanf of one value that must consume all of s.
func fmtScan(s, format string, v *int) bool {
	var rest string
	n, _ := fmt.Sscanf(s+" end", format+" %s", v, &rest)
	return n == 2 && rest == "end"
}

// rerunImpls picks the implementations a rerun runs, in the study's order
// (names): those of impls (all when impls is empty; keep always) that this
// binary registers; missing are the chosen ones it does not register. An
// entry of impls the study does not have is an error naming what (report
// or study) has which.
func rerunImpls(what string, names, impls, registered []string, keep string) (chosen, missing []string, err error) {
	for _, n := range impls {
		if !slices.Contains(names, n) {
			return nil, nil, fmt.Errorf("--impl %s: the %s has no implementation %q (it has %v)", n, what, n, names)
		}
	}
	for _, n := range names {
		if len(impls) > 0 && !slices.Contains(impls, n) && n != keep {
			continue
		}
		if !slices.Contains(registered, n) {
			missing = append(missing, n)
			continue
		}
		chosen = append(chosen, n)
	}
	return chosen, missing, nil
}
