// Package study is prlab's main job: the registry of every PageRank
// implementation (CPU from pkg/reference, GPU through the GPU interface that
// pkg/cudabind provides) and the runner that loads the real graph, runs every
// implementation on the six synthetic cases and the real graph, validates
// each Result against the float64 oracle, runs tolerance mode and the timing
// protocol on the real graph, and returns a report.Run.
//
// One implementation failing (an error, a panic, a NaN) marks its rows
// failed with the error; every other row is still computed.
//
// What lives where: registry.go, the implementations; measure.go, Measure
// (validate, time and rate one implementation on one graph, for every
// command) and rates.go (every GB/s, x DRAM, GTEPS and byte floor);
// runner.go, `prlab report`'s run; scale.go, scale_plan.go, scale_goals.go
// and generated.go, the scale study and its generated graphs;
// incremental.go, the incremental study; reverify.go, the configurations of
// verify's reruns; gpu.go and cuda.go, the GPU interface and its
// pkg/cudabind implementation; membw.go, the host copy rows.
package study

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/reference"
	"github.com/prlab/prlab/pkg/report"
)

// OracleName is the registry name of the float64 sequential oracle every
// Result is validated against.
const OracleName = "t0-oracle"

// Entry is one registered implementation and its kind (report.KindCPU,
// report.KindGPU or report.KindExercise).
type Entry struct {
	Impl pagerank.Implementation
	Kind string
}

// Identity is the implementation's name, label, kind and precision, as
// every report row carries them.
func (e Entry) Identity() report.Identity {
	return report.Identity{Implementation: e.Impl.Name(), Label: e.Impl.Label(), Kind: e.Kind, Precision: e.Impl.Precision()}
}

// CPUEntries returns the CPU implementations of pkg/reference: the T0 oracle,
// T1 multi-core in float64 and float32 (GOMAXPROCS workers), and the course
// exercise's deliberately wrong variant without dangling redistribution.
func CPUEntries() []Entry { return CPUEntriesWorkers(0) }

// CPUEntriesWorkers is CPUEntries with T1 on the given number of worker
// goroutines (0: GOMAXPROCS).
func CPUEntriesWorkers(workers int) []Entry {
	return []Entry{
		{reference.Oracle(), report.KindCPU},
		{reference.Multicore(pagerank.Float64, workers), report.KindCPU},
		{reference.Multicore(pagerank.Float32, workers), report.KindCPU},
		{reference.NoDangling(), report.KindExercise},
	}
}

// MaxWorkers is the largest T1 worker count the CLI accepts.
const MaxWorkers = 1024

// ResolveWorkers is the T1 worker count a Workers field means: n, or
// GOMAXPROCS when n is 0 or negative.
func ResolveWorkers(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// Registry returns every implementation: the CPU entries, then the GPU
// implementations of gpu (none when gpu is nil).
func Registry(gpu GPU) []Entry { return RegistryWorkers(gpu, 0) }

// RegistryWorkers is Registry with T1 on the given number of worker
// goroutines (0: GOMAXPROCS).
func RegistryWorkers(gpu GPU, workers int) []Entry {
	entries := CPUEntriesWorkers(workers)
	if gpu != nil {
		for _, im := range gpu.Implementations() {
			entries = append(entries, Entry{im, report.KindGPU})
		}
	}
	return entries
}

// Availability says whether e can run here: "" when it can, otherwise why not
// (the GPU's reason when the GPU is unavailable, or the implementation's own
// pagerank.Unavailable reason).
func Availability(e Entry, gpu GPU) string {
	if e.Kind == report.KindGPU && gpu != nil {
		if ok, why := gpu.Available(); !ok {
			return why
		}
	}
	if u, ok := e.Impl.(pagerank.Unavailable); ok {
		return u.Reason()
	}
	return ""
}

// Names returns the registry names of entries, in order.
func Names(entries []Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Impl.Name()
	}
	return out
}

// Select keeps the entries named in names (all when names is empty), in
// registry order. The oracle is always kept: every other row is validated
// against it. An unknown name is an error listing the valid ones.
func Select(entries []Entry, names []string) ([]Entry, error) {
	if len(names) == 0 {
		return entries, nil
	}
	valid := Names(entries)
	for _, n := range names {
		if !slices.Contains(valid, n) {
			return nil, fmt.Errorf("unknown implementation %q: valid names are %s", n, strings.Join(valid, ", "))
		}
	}
	var out []Entry
	for _, e := range entries {
		if e.Impl.Name() == OracleName || slices.Contains(names, e.Impl.Name()) {
			out = append(out, e)
		}
	}
	return out, nil
}
