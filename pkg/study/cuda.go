package study

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/prlab/prlab/pkg/cudabind"
	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
)

// CUDA is the GPU half of the study backed by pkg/cudabind (libprlab_cuda.so
// opened at run time). Without the library, a driver or a device, Available
// says why and every GPU row is reported as skipped with that reason.
type CUDA struct{}

// Available is cudabind.Available: the library, driver and device check.
func (CUDA) Available() (bool, string) { return cudabind.Available() }

// Implementations is cudabind.Designs: the stage-by-stage designs (naive,
// thread per row, warp per row, Thrust + CUB, Thrust + CUB without syncs,
// cuSPARSE), then the layout designs (T4 buckets, fused, CUDA Graph,
// persistent, cluster), then cuSPARSE, fused and T4 on the graph relabelled
// by out-degree.
func (CUDA) Implementations() []pagerank.Implementation { return cudabind.Designs() }

// Context is cudabind.DeviceInfo in the report's terms; versions are CUDA's
// 1000·major + 10·minor integers written as "major.minor".
func (CUDA) Context() (*report.GPUContext, error) {
	d, err := cudabind.DeviceInfo()
	if err != nil {
		return nil, err
	}
	v := func(x int) string { return fmt.Sprintf("%d.%d", x/1000, (x%1000)/10) }
	return &report.GPUContext{Name: d.Name, ComputeCapability: d.ComputeCapability(), SMs: d.SMs, L2Bytes: int64(d.L2Bytes),
		MaxThreadsPerBlock: d.MaxThreadsPerBlock, GlobalMemBytes: d.GlobalMemBytes, Driver: v(d.DriverVersion),
		KernelDriver: kernelDriver(nvidiaVersionFile), Runtime: v(d.RuntimeVersion), CCCL: d.CCCL, Library: relativeToWorkDir(d.Library)}, nil
}

// relativeToWorkDir is path relative to the working directory when it lies
// under it (the repository's build/libprlab_cuda.so), so committed reports
// hold no absolute path of the checkout they were made in; other paths
// (a system library, $PRLAB_CUDA_LIB elsewhere) stay as they are.
func relativeToWorkDir(path string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(path) {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}

// nvidiaVersionFile is where the NVIDIA kernel module states its version on Linux
// ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  ...", or
// "... Open Kernel Module for x86_64  570.86.15 ...").
const nvidiaVersionFile = "/proc/driver/nvidia/version"

// kernelDriver is the kernel module's version from path's first line: the first
// field starting with a digit after "Kernel Module"; "" if path is missing or
// says something else (containers without /proc/driver, other OSes).
func kernelDriver(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	_, rest, ok := strings.Cut(line, "Kernel Module")
	if !ok {
		return ""
	}
	for _, f := range strings.Fields(rest) {
		if f[0] >= '0' && f[0] <= '9' {
			return f
		}
	}
	return ""
}

// StageTable is cudabind.MeasureStages: the 128 MiB and one-iteration copy
// rows, then every stage timed alone on g (median of cudabind.StageRepeats
// after 3 warm-ups, CUDA events); ms and bytes, no rates.
func (CUDA) StageTable(g *pagerank.Graph) (copyRows, stages []pagerank.Stage, err error) {
	t, err := cudabind.MeasureStages(g, cudabind.StageOptions{})
	if err != nil {
		return nil, nil, err
	}
	return []pagerank.Stage{t.CopyDRAM, t.CopyIteration}, t.Stages, nil
}

// Baseline is the course's thread-per-row version, the bronze tier's bar.
func (CUDA) Baseline() string { return cudabind.NameThreadPerRow }

// WriteBudget runs cudabind.CheckWriteBudgets on g: per implementation,
// whether its two-pass reductions wrote at most gridDim.x + 1 floats.
func (CUDA) WriteBudget(g *pagerank.Graph) (map[string]string, error) {
	return cudabind.CheckWriteBudgets(g)
}
