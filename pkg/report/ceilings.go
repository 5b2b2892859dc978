package report

import (
	"math"
	"slices"
	"strings"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Ceilings are the measured costs that bound one GPU iteration, all from
// the same process as the timed rows: the two device-to-device copy rows
// (run.CopyRows) and the primitives some designs time alongside their runs
// (the "primitive: ..." stages of run.Timings, 0 bytes each). A zero field
// was not measured in this run.
type Ceilings struct {
	DRAMGBps      float64 // the 128 MiB copy row (DRAM bandwidth), GB/s
	IterCopyGBps  float64 // the copy of one iteration's bytes (L2-resident), GB/s
	IterCopyBytes int64   // bytes that copy moved (read + written)
	L2Bytes       int64   // the card's L2 size, bytes
	LaunchUs      float64 // one empty kernel launch, back to back, µs (median over the designs that timed it)
	GraphNodeUs   float64 // one CUDA-graph node (empty kernel), µs
	GridSyncUs    float64 // one cooperative grid.sync() of a persistent grid, µs
	ClusterSyncUs float64 // one cluster.sync() of one thread-block cluster, µs
}

// Primitive stage name prefixes (pkg/cudabind's primitive rows).
const (
	primLaunch      = "primitive: empty kernel launch"
	primGraphNode   = "primitive: CUDA-graph node"
	primGridSync    = "primitive: cooperative grid.sync()"
	primClusterSync = "primitive: cluster.sync()"
)

// MeasuredCeilings collects run's ceilings (zero fields where the run did
// not measure them; all zero without a GPU).
func MeasuredCeilings(run *Run) Ceilings {
	var c Ceilings
	if run.GPU != nil {
		c.L2Bytes = run.GPU.L2Bytes
	}
	c.DRAMGBps = DRAMCopyRow(run)
	if s, ok := copyRowOfKind(run, pagerank.StageCopyIteration, 1); ok {
		c.IterCopyGBps, c.IterCopyBytes = s.GBps, s.Bytes
	}
	var launch, node, grid, cluster []float64
	for _, t := range run.Timings {
		for _, s := range t.Stages {
			us := s.Ms * 1000
			switch {
			case !(us > 0):
			case strings.HasPrefix(s.Name, primLaunch):
				launch = append(launch, us)
			case strings.HasPrefix(s.Name, primGraphNode):
				node = append(node, us)
			case strings.HasPrefix(s.Name, primGridSync):
				grid = append(grid, us)
			case strings.HasPrefix(s.Name, primClusterSync):
				cluster = append(cluster, us)
			}
		}
	}
	c.LaunchUs, c.GraphNodeUs, c.GridSyncUs, c.ClusterSyncUs = medianOr0(launch), medianOr0(node), medianOr0(grid), medianOr0(cluster)
	return c
}

// medianOr0 is the median of xs (median in verify_stats.go wants them
// sorted), or 0 when xs is empty (not measured).
func medianOr0(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return median(s)
}

// Bounds name what limits a design's iteration.
const (
	BoundLaunch  = "launch/barrier"        // launches, graph nodes and grid-wide barriers take most of the time
	BoundL2      = "latency (L2-resident)" // the working set fits in L2 and neither launches nor DRAM bytes explain the time: dependent gathers and reductions at L2 latency (not L2 bandwidth)
	BoundDRAM    = "DRAM bandwidth"        // the bytes do not fit in L2: at the DRAM copy rate they take most of the time
	BoundUnknown = "unknown"               // the run lacks the copy rows or primitives to say
)

// Floor splits one GPU design's time per iteration into the parts the
// measured ceilings explain, in µs per iteration:
//
//	DRAMUs    = bytes per iteration / the 128 MiB copy row's rate
//	L2Us      = bytes per iteration / the one-iteration copy row's rate
//	LaunchUs  = launches per iteration × one empty launch
//	BarrierUs = per iteration, one grid.sync(), cluster.sync() or CUDA-graph
//	            node for the designs that time that primitive (their labels
//	            say one per iteration)
//
// and names the Bound: launch/barrier when LaunchUs + BarrierUs is at least
// half the time; else DRAM when the bytes do not fit in L2; else L2 (the
// working set is L2-resident and the rest is latency inside the iteration).
type Floor struct {
	Implementation string
	MeasuredUs     float64
	Bytes          int64
	Launches       float64
	DRAMUs         float64
	L2Us           float64
	LaunchUs       float64
	BarrierUs      float64
	Barrier        string // "grid.sync()", "cluster.sync()", "CUDA-graph node" or ""
	Bound          string
}

// RestUs is the part of the measured time the ceilings do not explain, µs
// per iteration: MeasuredUs − LaunchUs − BarrierUs − DRAMUs (at least 0), so
// that launches + barrier + bytes at the DRAM copy rate + RestUs = MeasuredUs
// (when the rest is not negative). For an L2-resident design it is the
// latency of the dependent gathers and reductions inside the iteration.
func (f Floor) RestUs() float64 {
	return math.Max(f.MeasuredUs-f.LaunchUs-f.BarrierUs-f.DRAMUs, 0)
}

// DesignFloor is t's Floor against c (t must be a timed GPU row).
func (c Ceilings) DesignFloor(t TimingRow) Floor {
	f := Floor{Implementation: t.Implementation, MeasuredUs: t.Timing.MsPerIteration() * 1000, Bytes: t.BytesPerIteration,
		Launches: t.LaunchesPerIteration, DRAMUs: math.NaN(), L2Us: math.NaN(), LaunchUs: math.NaN(), BarrierUs: 0, Bound: BoundUnknown}
	if c.DRAMGBps > 0 && t.BytesPerIteration > 0 {
		f.DRAMUs = float64(t.BytesPerIteration) / (c.DRAMGBps * 1e3)
	}
	if c.IterCopyGBps > 0 && t.BytesPerIteration > 0 {
		f.L2Us = float64(t.BytesPerIteration) / (c.IterCopyGBps * 1e3)
	}
	if c.LaunchUs > 0 {
		f.LaunchUs = t.LaunchesPerIteration * c.LaunchUs
	}
	for _, s := range t.Stages {
		switch {
		case strings.HasPrefix(s.Name, primGridSync):
			f.BarrierUs, f.Barrier = s.Ms*1000, "grid.sync()"
		case strings.HasPrefix(s.Name, primClusterSync):
			f.BarrierUs, f.Barrier = s.Ms*1000, "cluster.sync()"
		case strings.HasPrefix(s.Name, primGraphNode):
			f.BarrierUs, f.Barrier = s.Ms*1000, "CUDA-graph node"
		}
	}
	if !(f.MeasuredUs > 0) || math.IsNaN(f.DRAMUs) || math.IsNaN(f.LaunchUs) {
		return f
	}
	switch {
	case f.LaunchUs+f.BarrierUs >= f.MeasuredUs/2:
		f.Bound = BoundLaunch
	case c.L2Bytes == 0 || t.BytesPerIteration > c.L2Bytes:
		f.Bound = BoundDRAM
	default:
		f.Bound = BoundL2
	}
	return f
}
