package report

import (
	"fmt"
	"html/template"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/prlab/prlab/pkg/pagerank"
)

// DefaultBaseline is the thread-per-row design every GPU speed-up is quoted
// against (the course's bronze line), when the run's tier rows do not name one.
const DefaultBaseline = "gpu-thread-per-row"

// DesignPoint is one timed design as the summary quotes it.
type DesignPoint struct {
	Implementation string
	Label          string
	Kind           string
	UsPerIter      float64 // median time of one iteration, µs
	XDRAM          F       // end-to-end GB/s over the DRAM copy row (GPU)
	Tier           string  // course tier (GPU), "" for CPU rows
	VsBaseline     float64 // baseline µs / this µs (NaN without a timed baseline)
	VsCPU          float64 // best CPU µs / this µs (NaN without a CPU row)
	Floor          Floor   // GPU rows: the time the measured ceilings explain
	Bytes          int     // bytes moved per iteration (0 when not counted, CPU rows)
}

// Summary is what a reader needs first: where it ran, the best design per
// kind and how it compares, what bounds it, whether every gate held, and the
// next change with its expected effect. Summarize derives it from a Run
// alone; every number comes from the run's rows.
type Summary struct {
	Graph        string // the graph's case name ("aan")
	GraphName    string // the case name and what the graph is ("aan — ACL Anthology Network citation graph"), GraphSummary.DisplayName
	Nodes        int
	Edges        int
	Subject      string // what the run covered: Run.Subject
	Machine      string
	Baseline     string
	BestGPU      *DesignPoint // nil without a timed GPU row
	Library      *DesignPoint // the best library design (cuSPARSE, Thrust + CUB)
	Base         *DesignPoint // the thread-per-row baseline
	BestCPU      *DesignPoint
	Ceilings     Ceilings
	Finding      string   // the main finding, one sentence
	BoundLine    string   // what bounds the best GPU design (or the CPU rows), with numbers
	GatesOK      bool     // every correctness and convergence gate that ran passed
	Gates        string   // one line: what ran and passed
	Failures     []string // every failed gate, "impl on case: status"
	Skipped      string   // why rows were skipped, once ("" when none)
	Exercise     []string // the exercise variant's results (expected to fail on dangling cases)
	ExerciseWhat string   // what the exercise variant is: its implementation label(s)
	Next         string   // the next change and its expected effect, with its source
}

// IsLibraryDesign reports whether implementation name is a library path
// (cuSPARSE, or Thrust + CUB with no custom kernel), by its registry name.
func IsLibraryDesign(name string) bool {
	return strings.Contains(name, "cusparse") || strings.Contains(name, "thrust")
}

// Summarize computes run's Summary.
func Summarize(run *Run) Summary {
	s := Summary{Graph: run.Graph.Name, GraphName: run.Graph.DisplayName(), Nodes: run.Graph.Nodes, Edges: run.Graph.Edges, Subject: run.Subject(), Baseline: DefaultBaseline,
		Ceilings: MeasuredCeilings(run)}
	if len(run.Tiers) > 0 && run.Tiers[0].Baseline != "" {
		s.Baseline = run.Tiers[0].Baseline
	}
	s.Machine = fmt.Sprintf("%s, %d logical CPUs", run.Env.CPUModel, run.Env.CPUCores)
	if g := run.GPU; g != nil {
		s.Machine = fmt.Sprintf("%s (compute capability %s, %d SMs, %.0f MiB L2), host %s", g.Name, g.ComputeCapability, g.SMs, float64(g.L2Bytes)/(1<<20), s.Machine)
	} else {
		s.Machine += "; no GPU"
	}
	tier := map[string]string{}
	for _, t := range run.Tiers {
		tier[t.Implementation] = t.Tier
	}
	point := func(t TimingRow) *DesignPoint {
		return &DesignPoint{Implementation: t.Implementation, Label: t.Label, Kind: t.Kind, UsPerIter: t.Timing.MsPerIteration() * 1000,
			XDRAM: t.XDRAM, Tier: tier[t.Implementation], VsBaseline: math.NaN(), VsCPU: math.NaN(), Floor: s.Ceilings.DesignFloor(t), Bytes: int(t.BytesPerIteration)}
	}
	better := func(cur *DesignPoint, t TimingRow) bool {
		us := t.Timing.MsPerIteration() * 1000
		return us > 0 && (cur == nil || us < cur.UsPerIter)
	}
	for _, t := range run.Timings {
		if t.Status != StatusPass || t.Case != "" && t.Case != run.Graph.Name {
			continue
		}
		switch {
		case t.Kind == KindCPU && better(s.BestCPU, t):
			s.BestCPU = point(t)
		case t.Kind == KindGPU:
			if better(s.BestGPU, t) {
				s.BestGPU = point(t)
			}
			if IsLibraryDesign(t.Implementation) && better(s.Library, t) {
				s.Library = point(t)
			}
			if t.Implementation == s.Baseline {
				s.Base = point(t)
			}
		}
	}
	for _, p := range []*DesignPoint{s.BestGPU, s.Library, s.Base, s.BestCPU} {
		if p == nil {
			continue
		}
		if s.Base != nil {
			p.VsBaseline = s.Base.UsPerIter / p.UsPerIter
		}
		if s.BestCPU != nil {
			p.VsCPU = s.BestCPU.UsPerIter / p.UsPerIter
		}
	}
	s.gates(run)
	s.bound(run)
	s.next(run)
	return s
}

// gates summarises the correctness and convergence rows (the exercise
// variant apart: it is meant to fail where a case has dangling nodes).
// Failures with the same status and reason are one line (an out-of-memory
// run fails every GPU row the same way).
func (s *Summary) gates(run *Run) {
	var ran, passed, skipped int
	exercise := map[string][]string{}
	type group struct {
		impls, where []string
		n            int
	}
	var order []string
	groups := map[string]*group{}
	fail := func(impl, where, status, reason string) {
		key := status
		if reason != "" {
			key += ": " + ShortReason(reason)
		}
		g, ok := groups[key]
		if !ok {
			g = &group{}
			groups[key] = g
			order = append(order, key)
		}
		if !slices.Contains(g.impls, impl) {
			g.impls = append(g.impls, impl)
		}
		if !slices.Contains(g.where, where) {
			g.where = append(g.where, where)
		}
		g.n++
	}
	for _, c := range run.Correctness {
		if c.Kind == KindExercise {
			exercise[c.Implementation] = append(exercise[c.Implementation], c.Case+" "+c.Status)
			continue
		}
		switch c.Status {
		case StatusPass:
			ran++
			passed++
		case StatusSkipped:
			skipped++
		default:
			ran++
			fail(c.Implementation, c.Case, c.Status, c.Reason)
		}
	}
	for _, c := range run.Convergence {
		if c.Kind != KindExercise && c.Status != StatusPass && c.Status != StatusSkipped {
			fail(c.Implementation, "converging on "+run.Graph.Name, c.Status, c.Reason)
		}
	}
	failed := 0
	for _, key := range order {
		g := groups[key]
		failed += g.n
		if g.n == 1 {
			s.Failures = append(s.Failures, fmt.Sprintf("%s on %s: %s", g.impls[0], g.where[0], key))
		} else {
			s.Failures = append(s.Failures, fmt.Sprintf("%d rows (%s; on %s): %s", g.n, strings.Join(g.impls, ", "), strings.Join(g.where, ", "), key))
		}
	}
	s.Failures = append(s.Failures, run.Notes...)
	s.GatesOK = ran > 0 && len(s.Failures) == 0
	switch {
	case ran == 0:
		s.Gates = "no correctness case ran"
	case len(s.Failures) == 0 && skipped == 0:
		s.Gates = fmt.Sprintf("every gate passed: %d case × implementation rows (sum, Spearman ρ, per-element error) and every converged run", passed)
	case len(s.Failures) == 0:
		s.Gates = fmt.Sprintf("every gate that ran passed: %d rows; %d rows skipped", passed, skipped)
	default:
		s.Gates = fmt.Sprintf("%d row(s) failed a gate or did not run to the end; %d of %d correctness rows passed", failed, passed, ran)
	}
	if run.GPUSkipped != "" {
		s.Skipped = "GPU rows skipped: " + ShortReason(run.GPUSkipped)
	}
	for _, im := range run.Implementations {
		if r, ok := exercise[im.Name]; ok {
			s.Exercise = append(s.Exercise, fmt.Sprintf("%s: %s", im.Name, strings.Join(r, ", ")))
			if s.ExerciseWhat != "" {
				s.ExerciseWhat += "; "
			}
			s.ExerciseWhat += im.Name + ": " + im.Label
		}
	}
}

// micros writes a time given in µs with at least 3 significant figures, so
// that a tiny graph's times never print as "0 µs": 12345 µs, 412 µs, 4.14 µs,
// and under 1 µs in ns (412 ns, 3.25 ns).
func micros(us float64) string {
	switch {
	case us == 0 || !finite(us):
		return fmt.Sprintf("%g µs", us)
	case math.Abs(us) >= 100:
		return fmt.Sprintf("%.0f µs", us)
	case math.Abs(us) >= 1:
		return strconv.FormatFloat(sig3(us), 'f', -1, 64) + " µs"
	}
	return strconv.FormatFloat(sig3(us*1000), 'f', -1, 64) + " ns"
}

// bound states what limits the best GPU design, from the measured ceilings.
func (s *Summary) bound(run *Run) {
	b := s.BestGPU
	if b == nil {
		if p := s.BestCPU; p != nil {
			s.Finding = fmt.Sprintf("No GPU row ran here. The fastest CPU row, %s, takes %s per iteration", p.Implementation, micros(p.UsPerIter))
			for _, t := range run.Timings {
				if t.Implementation == run.Protocol.Oracle && t.Status == StatusPass && t.Implementation != p.Implementation {
					s.Finding += fmt.Sprintf(", %s the sequential oracle (%s) on %d cores", timesFaster(t.Timing.MsPerIteration()*1000/p.UsPerIter, 2), micros(t.Timing.MsPerIteration()*1000), run.Env.GOMAXPROCS)
				}
			}
			s.Finding += "."
			s.BoundLine = "No GPU row was timed, so no GPU bound: the CPU rows are timed by the wall clock and have no copy rows to compare with."
		}
		return
	}
	f, c := b.Floor, s.Ceilings
	if f.Bound == BoundUnknown {
		s.BoundLine = fmt.Sprintf("%s: this run lacks the copy rows or the launch primitive needed to split its %.2f µs per iteration.", b.Implementation, b.UsPerIter)
		return
	}
	fits := ""
	if c.L2Bytes > 0 && f.Bytes > 0 && f.Bytes <= c.L2Bytes {
		fits = fmt.Sprintf("One iteration moves %s bytes and the L2 holds %s bytes (%.0f MiB): the working set fits in L2, so DRAM bandwidth does not bound it. ", commas(int(f.Bytes)), commas(int(c.L2Bytes)), float64(c.L2Bytes)/(1<<20))
		if c.IterCopyGBps > 0 && c.IterCopyBytes > 0 {
			copyUs := float64(c.IterCopyBytes) / (c.IterCopyGBps * 1e3)
			whose := "one iteration's bytes"
			if s.Base != nil && int64(s.Base.Bytes) == c.IterCopyBytes {
				whose = "the " + s.Base.Implementation + " baseline's iteration" // pkg/cudabind copies the baseline's bytes
			}
			fits += fmt.Sprintf("The L2 ceiling row (one cudaMemcpy of %s: %s bytes read + written) measures %.0f GB/s, %.2f µs", whose, commas(int(c.IterCopyBytes)), c.IterCopyGBps, copyUs)
			if copyUs > b.UsPerIter {
				fits += ": longer than the whole iteration, so it is a copy call's latency, not an L2 bandwidth bound"
			}
			fits += ". "
		}
	}
	s.BoundLine = fmt.Sprintf("Bound: %s. %s%s", f.Bound, fits, Decomposition(b.Implementation, f, c))
	launchBound := 0
	timed := 0
	for _, t := range run.Timings {
		if t.Kind == KindGPU && t.Status == StatusPass {
			timed++
			if c.DesignFloor(t).Bound == BoundLaunch {
				launchBound++
			}
		}
	}
	if timed > 1 {
		s.BoundLine += fmt.Sprintf(" %d of the %d timed GPU designs are launch/barrier-bound (launches + barriers ≥ half their time).", launchBound, timed)
	}
	what := fmt.Sprintf("the fastest GPU design, %s, takes %.2f µs per iteration", b.Implementation, b.UsPerIter)
	if finite(b.VsBaseline) {
		what += fmt.Sprintf(", %s the thread-per-row baseline", timesFaster(b.VsBaseline, 1))
	}
	if finite(b.VsCPU) {
		what += fmt.Sprintf(" and %s the best CPU row", timesFaster(b.VsCPU, 1))
	}
	switch {
	case fits != "":
		s.Finding = fmt.Sprintf("One iteration's working set (%.2f MB) fits in the %.0f MiB L2, so launches, barriers and latency, not DRAM bandwidth, bound the GPU designs (%d of %d are launch/barrier-bound; the best reaches %.3f x DRAM): %s.",
			float64(f.Bytes)/1e6, float64(c.L2Bytes)/(1<<20), launchBound, timed, float64(b.XDRAM), what)
	default:
		s.Finding = fmt.Sprintf("Bound: %s; %s.", f.Bound, what)
	}
}

// next is the generated "next change and its expected effect" paragraph.
func (s *Summary) next(run *Run) {
	b, c := s.BestGPU, s.Ceilings
	switch {
	case b == nil && s.BestCPU != nil:
		var t0 *TimingRow
		for i, t := range run.Timings {
			if t.Implementation == run.Protocol.Oracle && t.Status == StatusPass {
				t0 = &run.Timings[i]
			}
		}
		if t0 == nil || run.Env.GOMAXPROCS < 2 {
			s.Next = "Next change: run on a GPU host (`make cuda-lib`, then `make report`); this run has no GPU and no sequential row to compare the CPU rows with."
			return
		}
		seq := t0.Timing.MsPerIteration() * 1000
		ideal := seq / float64(run.Env.GOMAXPROCS)
		s.Next = fmt.Sprintf("Next change: the CPU rows. %s takes %s per iteration, %s the sequential oracle's %s on %d cores; perfect scaling would give %s (oracle time / GOMAXPROCS, this run's rows), so at most %.2f× is left in parallelising the same algorithm. The GPU rows need `make cuda-lib` on a CUDA host.",
			s.BestCPU.Implementation, micros(s.BestCPU.UsPerIter), timesFaster(seq/s.BestCPU.UsPerIter, 2), micros(seq), run.Env.GOMAXPROCS, micros(ideal), s.BestCPU.UsPerIter/ideal)
	case b == nil:
		s.Next = "Next change: none can be derived: no row was timed."
	case b.Floor.Bound == BoundUnknown:
		s.Next = "Next change: measure the copy rows and the launch primitive with the GPU rows (`prlab report` on a GPU does), so the bound and the next change can be derived."
	case b.Floor.Launches >= 1.5:
		saved := (b.Floor.Launches - 1) * c.LaunchUs
		s.Next = fmt.Sprintf("Next change: fuse %s's %.3g launches per iteration into one. Expected: about %.2f µs per iteration instead of %.2f (%.0f%% less), removing %.3g launches at the %.2f µs one empty launch costs on this card (both from this run's rows).",
			b.Implementation, b.Floor.Launches, b.UsPerIter-saved, b.UsPerIter, 100*saved/b.UsPerIter, b.Floor.Launches-1, c.LaunchUs)
	case b.Floor.Barrier == "grid.sync()" && c.ClusterSyncUs > 0 && c.ClusterSyncUs < b.Floor.BarrierUs:
		saved := b.Floor.BarrierUs - c.ClusterSyncUs
		s.Next = fmt.Sprintf("Next change: a cheaper barrier than %s's grid.sync() (%.2f µs per iteration, measured). A barrier as cheap as one cluster.sync() (%.2f µs, measured in this run, but it spans one thread-block cluster only) would give about %.2f µs per iteration (%.0f%% less), the rest of the split above unchanged (%.2f µs of latency, %.2f µs of bytes).",
			b.Implementation, b.Floor.BarrierUs, c.ClusterSyncUs, b.UsPerIter-saved, 100*saved/b.UsPerIter, b.Floor.RestUs(), b.Floor.DRAMUs)
		s.Next += clusterContrast(run, b, c)
	case b.Floor.Bound == BoundDRAM:
		s.Next = fmt.Sprintf("Next change: move fewer bytes. %s moves %s bytes per iteration at %.3g x DRAM; at the DRAM copy rate those bytes take %.2f µs (this run's 128 MiB copy row), so cutting bytes (relabelled order, smaller indices) is where the time is.",
			b.Implementation, commas(int(b.Floor.Bytes)), float64(b.XDRAM), b.Floor.DRAMUs)
	default:
		s.Next = fmt.Sprintf("Next change: shorten the latency inside %s's iteration (%.3g of %.3g µs are not launches, barriers or DRAM bytes, the split above): fewer dependent gathers per row, a relabelled order for locality. The DRAM copy rate would allow %.3g µs (this run's copy row).",
			b.Implementation, b.Floor.RestUs(), b.UsPerIter, b.Floor.DRAMUs)
	}
}

// Decomposition is the sentence that splits design impl's measured time per
// iteration into launches + barrier + bytes at the DRAM copy rate + the rest
// (Floor.RestUs), in µs, so the parts add up to the total as printed (each
// part rounded to 0.01 µs; the rest is printed as total − the printed parts).
func Decomposition(impl string, f Floor, c Ceilings) string {
	r := func(x float64) float64 { return math.Round(x*100) / 100 }
	total, launch, barrier, dram := r(f.MeasuredUs), r(f.LaunchUs), r(f.BarrierUs), r(f.DRAMUs)
	rest := math.Max(r(total-launch-barrier-dram), 0)
	parts := []string{fmt.Sprintf("%.2f µs launches (%s × %.2f µs)", launch, launchRate(f.Launches), c.LaunchUs)}
	if f.Barrier != "" {
		parts = append(parts, fmt.Sprintf("%.2f µs one %s", barrier, f.Barrier))
	}
	parts = append(parts, fmt.Sprintf("%.2f µs its %s bytes at the DRAM copy rate", dram, commas(int(f.Bytes))))
	parts = append(parts, fmt.Sprintf("%.2f µs the rest (latency of the dependent gathers and reductions inside the iteration)", rest))
	return fmt.Sprintf("%s's %.2f µs per iteration = %s.", impl, total, strings.Join(parts, " + "))
}

// launchRate says launches per iteration in words: "1 launch per 50
// iterations" when a launch covers a whole number of iterations, else
// "3 launches per iteration".
func launchRate(l float64) string {
	if l > 0 && l < 1 {
		if n := 1 / l; math.Abs(n-math.Round(n)) < 1e-6*n {
			return fmt.Sprintf("1 launch per %.0f iterations", n)
		}
	}
	if l == 1 {
		return "1 launch per iteration"
	}
	return fmt.Sprintf("%.3g launches per iteration", l)
}

// clusterContrast is, when this run timed a design whose barrier is
// cluster.sync(), the sentence that says why that design is slower than the
// projection even though its barrier is the cheap one: its time split
// (from its own row) against best's. "" when no such row was timed.
func clusterContrast(run *Run, best *DesignPoint, c Ceilings) string {
	for _, t := range run.Timings {
		if t.Kind != KindGPU || t.Status != StatusPass || t.Implementation == best.Implementation || t.Case != "" && t.Case != run.Graph.Name {
			continue
		}
		f := c.DesignFloor(t)
		if f.Barrier != "cluster.sync()" || !(f.MeasuredUs > 0) {
			continue
		}
		why := fmt.Sprintf("its rest is %.2f µs against %s's %.2f µs", f.RestUs(), best.Implementation, best.Floor.RestUs())
		scope := ""
		for _, st := range t.Stages {
			if strings.HasPrefix(st.Name, primClusterSync) && strings.Contains(st.Name, "one cluster") {
				scope = " because the whole iteration runs in one thread-block cluster, a few SMs instead of the whole card"
				if run.GPU != nil && run.GPU.SMs > 0 {
					scope = fmt.Sprintf(" because the whole iteration runs in one thread-block cluster, a few of the card's %d SMs", run.GPU.SMs)
				}
			}
		}
		return fmt.Sprintf(" Not a contradiction: %s, which does use cluster.sync(), takes %.2f µs per iteration in this run; its barrier costs %.2f µs, but %s%s. The projection keeps %s's full grid and changes only the barrier.",
			t.Implementation, f.MeasuredUs, f.BarrierUs, why, scope, best.Implementation)
	}
	return ""
}

// absPath is an absolute file path inside a reason (no spaces, up to a
// separator).
var absPath = regexp.MustCompile(`/[^\s;:,()'"]+(/[^\s;:,()'"]+)*`)

// ShortReason is a skip reason for a page or notebook without machine paths:
// the CUDA library's "not loaded; tried <every path>" becomes one sentence,
// and any other absolute path keeps only its last two elements
// (".../build/libprlab_cuda.so").
func ShortReason(reason string) string {
	if i := strings.Index(reason, " not loaded; tried "); i > 0 {
		lib := reason[:i]
		hint := ""
		if j := strings.Index(reason, "Build it"); j > 0 {
			hint = " " + strings.TrimSpace(reason[j:])
		}
		return fmt.Sprintf("the CUDA library %s is not built here (or not found).%s", lib, hint)
	}
	reason = causeFirst(reason)
	return absPath.ReplaceAllStringFunc(reason, func(p string) string {
		parts := strings.Split(strings.Trim(p, "/"), "/")
		if len(parts) <= 2 {
			return p
		}
		return "…/" + strings.Join(parts[len(parts)-2:], "/")
	})
}

// unavailableWrap matches the wrapping that pkg/cudabind puts around an
// implementation's own reason ("cudabind: GPU unavailable (implementation
// unavailable here): gpu-cluster: "), up to the reason itself.
var unavailableWrap = regexp.MustCompile(`^[\w.-]+: [^():]*\(` + regexp.QuoteMeta(pagerank.ErrUnavailable.Error()) + `\): (?:[\w.-]+: )?`)

// causeFirst puts the real cause of an "unavailable" reason first: the
// wrapping (unavailableWrap) becomes a short tail, so "cudabind: GPU
// unavailable (implementation unavailable here): gpu-cluster: graph needs
// 117440588 bytes of shared memory …" reads "graph needs 117440588 bytes of
// shared memory … (so the implementation is unavailable here)".
func causeFirst(reason string) string {
	m := unavailableWrap.FindString(reason)
	if m == "" || len(m) == len(reason) {
		return reason
	}
	return strings.TrimSuffix(reason[len(m):], ".") + " (so the implementation is unavailable here)"
}

// commas writes n with thousands separators (263,431,158).
// timesFaster says a speed-up x (other time / this time) in words with
// prec decimals: "1.73× faster than" for x >= 1, "1.25× slower than" (1/x)
// below it, so a ratio never reads as a time.
func timesFaster(x float64, prec int) string {
	if x >= 1 || !(x > 0) {
		return fmt.Sprintf("%.*f× faster than", prec, x)
	}
	return fmt.Sprintf("%.*f× slower than", prec, 1/x)
}

func commas(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

var summaryTemplate = template.Must(template.New("summary").Funcs(funcs).Parse(`<div id="summary" class="prlab-summary" style="border:1px solid #b8c7d9;background:#f5f8fc;padding:10px 14px;margin:10px 0 16px 0;font:14px/1.4 -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;max-width:1060px;break-inside:avoid">
{{if .Graph}}<div style="font-size:15px;margin-bottom:6px"><b>{{.GraphName}}</b> ({{commas .Nodes}} nodes, {{commas .Edges}} edges) on <b>{{.Machine}}</b></div>{{else}}<div style="font-size:15px;margin-bottom:6px"><b>{{.Subject}}</b> on <b>{{.Machine}}</b></div>
<div id="finding" style="font-size:16px;margin:4px 0 6px 0;font-weight:600">Only synthetic cases ran (the real graph, case aan or --graph's, was not among --cases): the correctness gates below are the whole result; nothing was timed, so there are no times, convergence runs or tiers.</div>{{end}}
{{with .Finding}}<div id="finding" style="font-size:16px;margin:4px 0 6px 0;font-weight:600">{{.}}</div>{{end}}
{{if .Rows}}<div style="overflow-x:auto"><table style="border-collapse:collapse;font-size:13px;margin:6px 0">
<tr>{{range .Header}}<th style="border-bottom:2px solid #999;padding:2px 6px;text-align:left;white-space:nowrap"{{with .Title}} title="{{.}}"{{end}}>{{if .Link}}<a href="{{.Link}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}{{if .Title}}<sup style="color:#888">?</sup>{{end}}</th>{{end}}</tr>
{{range .Rows}}<tr><td style="padding:2px 6px;white-space:nowrap;text-align:left">{{.Role}}</td><td style="padding:2px 6px;white-space:nowrap;text-align:left"><span style="display:inline-block;width:10px;height:10px;background:{{.Colour}};margin-right:5px"></span><code>{{.P.Implementation}}</code></td><td style="padding:2px 6px;text-align:right;font-variant-numeric:tabular-nums">{{f "%.2f" .P.UsPerIter}}</td><td style="padding:2px 6px;text-align:right;font-variant-numeric:tabular-nums">{{if .P.Bytes}}{{commas .P.Bytes}}{{else}}—{{end}}</td><td style="padding:2px 6px;text-align:right">{{if .P.XDRAM.Valid}}{{f "%.3f" .P.XDRAM}}{{else}}—{{end}}</td><td style="padding:2px 6px;text-align:left">{{if .P.Tier}}{{.P.Tier}}{{else}}—{{end}}</td><td style="padding:2px 6px;text-align:right">{{f "%.2f×" .P.VsBaseline}}</td><td style="padding:2px 6px;text-align:right">{{f "%.1f×" .P.VsCPU}}</td><td style="padding:2px 6px;text-align:left;white-space:nowrap">{{if eq .P.Kind "gpu"}}{{.P.Floor.Bound}}{{else}}—{{end}}</td></tr>
{{end}}</table></div>{{end}}
{{if .BestGPU}}<p style="margin:2px 0 6px 0;color:#555;font-size:12.5px">x DRAM = (bytes this design moves per iteration / its time per iteration) / the DRAM copy rate{{if .Ceilings.DRAMGBps}} ({{f "%.0f" .Ceilings.DRAMGBps}} GB/s, this run's 128 MiB device-to-device copy){{end}}; designs move different bytes, so compare times, not x DRAM alone. <a href="#tiers">Tier</a>: the course's ladder, pass (all cases correct) → bronze (beats the thread-per-row baseline) → silver / gold (a fraction of the DRAM copy rate).</p>{{end}}
{{with .BoundLine}}<p style="margin:6px 0">{{.}}</p>{{end}}
<p style="margin:6px 0"><b style="color:{{if .GatesOK}}#11661b{{else}}#b00020{{end}}">{{if .GatesOK}}✔{{else}}✘{{end}} {{.Gates}}</b>{{with .Skipped}}<br><span style="color:#666">{{.}}</span>{{end}}</p>
{{with .Failures}}<ul style="margin:2px 0 6px 0;color:#b00020">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .Exercise}}<p style="margin:4px 0;color:#666;font-size:12.5px">Exercise variant ({{$.ExerciseWhat}}; expected to fail where a case has dangling nodes): {{range $i, $e := .}}{{if $i}}; {{end}}{{$e}}{{end}}</p>{{end}}
<p style="margin:6px 0"><b>{{.Next}}</b></p>
</div>`))

type summaryColumn struct{ Name, Title, Link string }

type summaryRow struct {
	Role   string
	Colour string
	P      *DesignPoint
}

// SummaryHTML is the summary block (id "summary") that opens index.html
// and the notebooks: graph and machine, the best GPU design with its speed-up
// over the thread-per-row baseline and the best CPU row, a small table of the
// best GPU, library, baseline and CPU designs (µs per iteration, x DRAM,
// tier, bound), the bound with numbers, the gates, and the next change.
func SummaryHTML(run *Run) (template.HTML, error) {
	s := Summarize(run)
	var rows []summaryRow
	add := func(role string, p *DesignPoint) {
		if p != nil {
			rows = append(rows, summaryRow{role, ImplColour(p.Implementation), p})
		}
	}
	add("best GPU", s.BestGPU)
	if s.Library != nil && (s.BestGPU == nil || s.Library.Implementation != s.BestGPU.Implementation) {
		add("best library", s.Library)
	}
	add("baseline", s.Base)
	add("best CPU", s.BestCPU)
	// The Tiers section stands in the GPU section, which a run without a GPU
	// replaces by the paragraph saying why (report.html.tmpl).
	tierLink := "#gpu-skipped"
	if run.GPU != nil {
		tierLink = "#tiers"
	}
	data := struct {
		Summary
		Header []summaryColumn
		Rows   []summaryRow
	}{s, []summaryColumn{{Name: ""}, {Name: "design"}, {Name: "µs / iteration"},
		{Name: "bytes / iter", Title: "bytes this design reads and writes in one iteration, counted from its kernels (the stage table says how)"},
		{Name: "x DRAM", Title: "(bytes this design moves per iteration / time per iteration) / the DRAM copy rate (the 128 MiB device-to-device copy row)"},
		{Name: "tier", Title: "the course tier (pass, bronze, silver, gold): see the Tiers section", Link: tierLink},
		{Name: "vs baseline", Title: "the thread-per-row baseline's time / this time"}, {Name: "vs best CPU"},
		{Name: "bound", Title: "launch/barrier: launches + barriers take at least half the time; latency (L2-resident): the bytes fit in L2 and the rest is latency inside the iteration; DRAM bandwidth: the bytes do not fit in L2"}}, rows}
	var b strings.Builder
	if err := summaryTemplate.Execute(&b, data); err != nil {
		return "", fmt.Errorf("summary: %w", err)
	}
	return template.HTML(b.String()), nil
}
