package study

import (
	"fmt"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
)

// GPU is the GPU half of the study, kept apart from the CPU runner so that
// the module builds and the study runs on machines without CUDA. pkg/cudabind
// provides it; a nil GPU means this binary has no GPU support, and every GPU
// row is reported as skipped with NoGPUReason.
type GPU interface {
	// Available reports whether the CUDA library, a driver and a device are
	// present; when not, the reason (e.g. "libprlab_cuda.so not found").
	Available() (bool, string)
	// Implementations lists the GPU implementations (names like those of the
	// CPU registry). Each may also implement pagerank.Benchmarker (timed with
	// CUDA events) and pagerank.Unavailable.
	Implementations() []pagerank.Implementation
	// Context describes the device every GPU number is measured on.
	Context() (*report.GPUContext, error)
	// StageTable measures, in this process, the device-to-device copy rows
	// (the 128 MiB DRAM row of kind pagerank.StageCopyDRAM that every
	// "x DRAM" divides by, and one iteration's bytes, StageCopyIteration) and
	// every stage timed alone on g (the course's stage table). Stage.Ms,
	// Bytes and Kind are set; the study computes the rates (rates.go).
	StageTable(g *pagerank.Graph) (copyRows, stages []pagerank.Stage, err error)
	// Baseline is the implementation the bronze tier compares against (the
	// course's thread-per-row version).
	Baseline() string
	// WriteBudget says, per implementation name, whether its reduction stages
	// wrote at most gridDim.x + 1 floats ("met" or "not met"); an absent name
	// means not checked.
	WriteBudget(g *pagerank.Graph) (map[string]string, error)
}

// NoGPUReason is the skip reason when the binary was built without a GPU.
const NoGPUReason = "this binary has no GPU support (pkg/cudabind is not linked into the study)"

// gpuSkipReason is why every GPU row of a study is skipped here:
// NoGPUReason without a GPU, the GPU's own reason (GPU.Available) when it is
// not available, "" when it is.
func gpuSkipReason(gpu GPU) string {
	if gpu == nil {
		return NoGPUReason
	}
	if ok, why := gpu.Available(); !ok {
		return why
	}
	return ""
}

// openGPU describes the device every GPU number of a study is measured on
// (GPU.Context, a panic contained), or says why the study's GPU rows are
// skipped: gpuSkipReason, else "GPU context: " and Context's error, which
// err then holds too.
func openGPU(gpu GPU) (ctx *report.GPUContext, skipped string, err error) {
	if why := gpuSkipReason(gpu); why != "" {
		return nil, why, nil
	}
	ctx, err = safeCall(func() (*report.GPUContext, error) { return gpu.Context() })
	if err != nil {
		return nil, "GPU context: " + err.Error(), err
	}
	return ctx, "", nil
}

// gpuSkippedLine is the one progress line for every GPU row skipped for the
// same reason, e.g. "17 GPU designs skipped: the CUDA library is not built —
// run `make cuda-lib` on a CUDA host (…)": the per-row lines leave them out.
func gpuSkippedLine(entries []Entry, avail map[string]string, why string) string {
	switch n := len(gpuSkippedNames(entries, avail, why)); n {
	case 0:
		return "GPU designs skipped: " + why
	case 1:
		return "1 GPU design skipped: " + why
	default:
		return fmt.Sprintf("%d GPU designs skipped: %s", n, why)
	}
}

// gpuSkippedNames lists, in order, the GPU entries that cannot run here for
// the study-wide reason why (avail holds each entry's Availability).
func gpuSkippedNames(entries []Entry, avail map[string]string, why string) []string {
	var names []string
	for _, e := range entries {
		if e.Kind == report.KindGPU && avail[e.Impl.Name()] == why {
			names = append(names, e.Impl.Name())
		}
	}
	return names
}

// skippedForGPU reports whether a row of status and reason was skipped for
// a study's run-wide GPU reason gpuWhy ("" when the GPU is available).
func skippedForGPU(status, reason, gpuWhy string) bool {
	return status == report.StatusSkipped && gpuWhy != "" && reason == gpuWhy
}
