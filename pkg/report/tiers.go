package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Tier names, lowest to highest.
const (
	TierNone   = "none"
	TierPass   = "pass"
	TierBronze = "bronze"
	TierSilver = "silver"
	TierGold   = "gold"
)

// GoldMaxCV is the gold tier's bound on the coefficient of variation of the
// timed runs (course: "coefficient of variation under 5 percent").
const GoldMaxCV = 0.05

// SyntheticCaseCount is the number of synthetic correctness cases the pass
// tier requires (course: tiny, single, nodangling, dangling, star, chain).
const SyntheticCaseCount = 6

// Thresholds is one column of the course's tier table: the fraction of the
// 128 MiB device-to-device copy row's GB/s an implementation's end-to-end
// effective bandwidth must reach for silver and for gold.
type Thresholds struct {
	Column     string  // the course column, e.g. "8.0, 8.9, 12.0"
	Silver     float64 // fraction of the DRAM copy row
	Gold       float64
	Calibrated bool // the course measured a passing result for this column
}

// ThresholdsFor returns the course's tier thresholds for a compute capability
// ("major.minor"). Source: the course capstone "PageRank on a real graph in
// CUDA", tier table: 7.5 → 0.22/0.38 (calibrated on a Tesla T4: 95.7 GB/s
// against a 244.8 GB/s copy row, 0.391); 8.0, 8.9, 12.0 → 0.20/0.35; 9.0,
// 10.0 → 0.15/0.28. Only the 7.5 column is calibrated; the course leaves the
// others uncalibrated until those cards run. ok is false for a compute
// capability the table has no column for (e.g. 8.6).
func ThresholdsFor(cc string) (t Thresholds, ok bool) {
	switch strings.TrimSpace(cc) {
	case "7.5":
		return Thresholds{"7.5", 0.22, 0.38, true}, true
	case "8.0", "8.9", "12.0":
		return Thresholds{"8.0, 8.9, 12.0", 0.20, 0.35, false}, true
	case "9.0", "10.0":
		return Thresholds{"9.0, 10.0", 0.15, 0.28, false}, true
	}
	return Thresholds{}, false
}

// TierInput is what ComputeTiers needs beyond the Run: the implementation
// the bronze line compares against (the course's thread-per-row version) and,
// per implementation, whether its reduction stages met their write budget
// (at most gridDim.x + 1 floats written; "met", "not met", or absent for
// "not checked").
type TierInput struct {
	Baseline    string
	WriteBudget map[string]string
}

// ComputeTiers grades every GPU implementation of run with the course's tier
// table for run.GPU's compute capability. It returns nil when the run has no
// GPU context. An implementation's tier is the highest whose requirements
// all hold; Why names the first requirement of the next tier it misses.
func ComputeTiers(run *Run, in TierInput) []TierRow {
	if run.GPU == nil {
		return nil
	}
	th, haveColumn := ThresholdsFor(run.GPU.ComputeCapability)
	dram := DRAMCopyRow(run)
	synthetic := map[string]bool{}
	for _, c := range run.Cases {
		if !c.Real {
			synthetic[c.Name] = true
		}
	}
	timing := map[string]TimingRow{}
	for _, t := range run.Timings {
		timing[t.Implementation] = t
	}
	base, haveBase := timing[in.Baseline]

	var rows []TierRow
	for _, im := range run.Implementations {
		if im.Kind != KindGPU {
			continue
		}
		r := TierRow{Implementation: im.Name, Label: im.Label, Tier: TierNone, Baseline: in.Baseline,
			WriteBudget: "not checked", Fraction: NaN, CV: NaN, Silver: NaN, Gold: NaN}
		if wb, ok := in.WriteBudget[im.Name]; ok && wb != "" {
			r.WriteBudget = wb
		}
		if haveColumn {
			r.Silver, r.Gold, r.Calibrated, r.Column = F(th.Silver), F(th.Gold), th.Calibrated, th.Column
		}
		// pass: every synthetic case ran and passed, and so did every other case run.
		passed, ran, bad := 0, 0, ""
		for _, c := range run.Correctness {
			if c.Implementation != im.Name {
				continue
			}
			ran++
			if c.Status == StatusPass {
				if synthetic[c.Case] {
					passed++
				}
			} else if bad == "" {
				bad = fmt.Sprintf("%s is %s", c.Case, c.Status)
			}
		}
		switch {
		case !im.Available:
			r.Why = "not run: " + im.Reason
		case bad != "":
			r.Why = "pass needs every case correct; " + bad
		case len(synthetic) < SyntheticCaseCount || passed < SyntheticCaseCount:
			r.Why = fmt.Sprintf("pass needs all %d synthetic cases; %d passed in this run", SyntheticCaseCount, passed)
		default:
			r.AllCorrect = true
		}
		t, timed := timing[im.Name]
		if timed && t.Status == StatusPass {
			r.CV = F(t.Timing.CV)
			if dram > 0 && t.GBps.Valid() {
				r.Fraction = F(float64(t.GBps) / dram)
			}
			if haveBase && base.Status == StatusPass && im.Name != in.Baseline {
				r.BeatsBaseline = t.Timing.MedianMs < base.Timing.MedianMs
			}
		}
		if !r.AllCorrect {
			rows = append(rows, r)
			continue
		}
		r.Tier = TierPass
		// The ladder: each tier's first unmet requirement is the row's Why;
		// a row that meets them all is gold.
		r.Why = ""
		for _, step := range []struct {
			tier  string
			unmet func() string
		}{
			{TierBronze, func() string {
				switch {
				case !timed || t.Status != StatusPass:
					return "bronze needs a timed run"
				case im.Name == in.Baseline:
					return "bronze compares against this implementation (the thread-per-row baseline)"
				case !haveBase || base.Status != StatusPass:
					return fmt.Sprintf("bronze needs the baseline %q timed", in.Baseline)
				case !r.BeatsBaseline:
					return fmt.Sprintf("bronze needs a median under %s's %.4f ms", in.Baseline, base.Timing.MedianMs)
				}
				return ""
			}},
			{TierSilver, func() string {
				switch {
				case !haveColumn:
					return fmt.Sprintf("the course's tier table has no column for compute capability %s", run.GPU.ComputeCapability)
				case r.WriteBudget != "met":
					return "silver needs the reduction write budget (gridDim.x + 1 floats) met; it is " + r.WriteBudget
				case !r.Fraction.Valid():
					return "silver needs a DRAM copy row and the bytes one iteration moves"
				case float64(r.Fraction) < th.Silver:
					return fmt.Sprintf("silver needs %.2f x DRAM; measured %.3f", th.Silver, float64(r.Fraction))
				}
				return ""
			}},
			{TierGold, func() string {
				switch {
				case float64(r.Fraction) < th.Gold:
					return fmt.Sprintf("gold needs %.2f x DRAM; measured %.3f", th.Gold, float64(r.Fraction))
				case !(float64(r.CV) < GoldMaxCV):
					return fmt.Sprintf("gold needs CV under %.0f%%; measured %.1f%%", GoldMaxCV*100, float64(r.CV)*100)
				}
				return ""
			}},
		} {
			if r.Why = step.unmet(); r.Why != "" {
				break
			}
			r.Tier = step.tier
		}
		rows = append(rows, r)
	}
	return rows
}

// DRAMCopyRow returns the GB/s of the run's DRAM copy row (kind
// pagerank.StageCopyDRAM: 128 MiB device to device), or 0. Reports written
// before rows had a kind list that row first.
func DRAMCopyRow(run *Run) float64 {
	if s, ok := copyRowOfKind(run, pagerank.StageCopyDRAM, 0); ok {
		return s.GBps
	}
	return 0
}

// copyRowOfKind returns the copy row of the given kind; in a report written
// before rows had a kind (none has one), the row at position old (the order
// pkg/cudabind has always written: the DRAM row, then one iteration's bytes).
func copyRowOfKind(run *Run, kind pagerank.StageKind, old int) (pagerank.Stage, bool) {
	kinds := false
	for _, s := range run.CopyRows {
		if s.Kind == kind {
			return s, true
		}
		kinds = kinds || s.Kind != ""
	}
	if !kinds && old < len(run.CopyRows) {
		return run.CopyRows[old], true
	}
	return pagerank.Stage{}, false
}

// WarpPerRowReference is the course's second reference design (warp per
// row), graded beside the thread-per-row baseline in CalibrationNote.
const WarpPerRowReference = "gpu-warp-per-row"

// CalibrationNote calibrates an uncalibrated column of the tier table from
// run's own numbers, the way the course calibrated 7.5 ("a tier must have a
// measured passing result before it can grade"): the fraction of the DRAM
// copy row the reference designs (the thread-per-row baseline and warp per
// row) reach; the most a design with their launches per iteration can reach
// on this graph, bytes / (launches x one empty launch) / the DRAM copy rate
// (a launch-bound cap, whatever its kernels do), against the time per
// iteration the silver and gold lines need, bytes / (fraction x DRAM rate);
// and which designs have a measured passing result at silver and at gold
// in this run. Empty when the run lacks a reference row, the DRAM copy row
// or the launch primitive (pkg/cudabind times it with the layout designs).
func CalibrationNote(run *Run, th Thresholds) string {
	c := MeasuredCeilings(run)
	if c.DRAMGBps <= 0 || c.LaunchUs <= 0 || len(run.Tiers) == 0 {
		return ""
	}
	timing := map[string]TimingRow{}
	for _, t := range run.Timings {
		timing[t.Implementation] = t
	}
	var reached, caps []string
	for _, name := range []string{run.Tiers[0].Baseline, WarpPerRowReference} {
		t, ok := timing[name]
		if !ok || t.Status != StatusPass || t.BytesPerIteration <= 0 || t.LaunchesPerIteration < 1 || !t.XDRAM.Valid() {
			continue
		}
		reached = append(reached, fmt.Sprintf("%s reaches %.3f x DRAM (%.1f µs per iteration)", name, float64(t.XDRAM), t.Timing.MsPerIteration()*1000))
		floorUs := t.LaunchesPerIteration * c.LaunchUs
		b := float64(t.BytesPerIteration)
		cp := fmt.Sprintf("%.0f launches per iteration take at least %.1f µs, so at most %.3f x on %s bytes, where silver (%.2f) needs %.2f µs per iteration and gold (%.2f) %.2f µs",
			t.LaunchesPerIteration, floorUs, b/(floorUs*1e3)/c.DRAMGBps, commas(int(t.BytesPerIteration)), th.Silver, b/(th.Silver*c.DRAMGBps*1e3), th.Gold, b/(th.Gold*c.DRAMGBps*1e3))
		if !slices.Contains(caps, cp) {
			caps = append(caps, cp)
		}
	}
	if len(reached) == 0 {
		return ""
	}
	var silver, gold []string
	for _, r := range run.Tiers {
		switch r.Tier {
		case TierGold:
			gold = append(gold, r.Implementation)
		case TierSilver:
			silver = append(silver, r.Implementation)
		}
	}
	lines := "No design reaches silver or gold in this run, so neither line has a measured passing result here."
	switch {
	case len(gold) > 0:
		lines = fmt.Sprintf("Gold has a measured passing result in this run: %s.", strings.Join(gold, ", "))
	case len(silver) > 0:
		lines = fmt.Sprintf("Silver has a measured passing result in this run (%s); gold has none.", strings.Join(silver, ", "))
	}
	why := ""
	if t, ok := timing[run.Tiers[0].Baseline]; ok && t.BytesPerIteration > 0 && c.LaunchUs > float64(t.BytesPerIteration)/(th.Silver*c.DRAMGBps*1e3) {
		why = fmt.Sprintf(" Even one host launch per iteration (%.2f µs) is longer than the silver time, so on a graph this small only designs with less than one host launch per iteration (CUDA-graph replays, a persistent grid, one cluster) can reach these lines, whatever their kernels do.", c.LaunchUs)
	}
	return fmt.Sprintf("Calibration on this run (DRAM copy row %.0f GB/s, empty launch %.2f µs): %s. Their %s.%s %s",
		c.DRAMGBps, c.LaunchUs, strings.Join(reached, " and "), strings.Join(caps, "; "), why, lines)
}
