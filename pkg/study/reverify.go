package study

import (
	"fmt"
	"slices"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
)

// RerunConfig is the Config that reruns run's protocol through Run (the
// same pipeline the report came from): its cases, its implementations
// (only those named in impls, when impls is not empty; the oracle always),
// its fixed and timed iterations, warm-ups, runs, tolerances and iteration
// cap. base supplies what the report cannot: the data paths, the GPU, the
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
	for _, n := range impls {
		if !slices.Contains(names, n) {
			return cfg, nil, fmt.Errorf("--impl %s: the report has no implementation %q (it has %v)", n, n, names)
		}
	}
	cfg = base
	entries := base.Entries
	if entries == nil {
		entries = Registry(base.GPU)
	}
	registered := Names(entries)
	cfg.Impls = nil
	for _, n := range names {
		if len(impls) > 0 && !slices.Contains(impls, n) && n != OracleName {
			continue
		}
		if !slices.Contains(registered, n) {
			missing = append(missing, n)
			continue
		}
		cfg.Impls = append(cfg.Impls, n)
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
