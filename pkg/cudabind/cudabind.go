package cudabind

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/prlab/prlab/pkg/pagerank"
)

// LibraryName is the file name of the CUDA library built by `make cuda-lib`.
const LibraryName = "libprlab_cuda.so"

// abiVersion must equal PRLAB_ABI_VERSION in csrc/prlab_cuda.h.
const abiVersion = 3

// ErrUnavailable wraps every error returned because the GPU path cannot run
// here; errors.Is(err, ErrUnavailable) tells a skip from a failure.
var ErrUnavailable = fmt.Errorf("cudabind: GPU unavailable (%w)", pagerank.ErrUnavailable)

// errNoCgo is the reason when the package was built without cgo (no dlopen).
var errNoCgo = errors.New("built without cgo (CGO_ENABLED=0): the CUDA library cannot be opened")

// Error is a failed library call: Op names the C function, Status is its
// PRLAB_ERR_* code and Message the library's text, which names the failing
// CUDA/cuSPARSE/Thrust call (e.g. "cudaMalloc(d_colIdx, 379724 bytes): out of memory").
type Error struct {
	Op      string
	Status  int
	Message string
}

var statusNames = map[int]string{1: "bad argument", 2: "CUDA error", 3: "no device", 4: "library error", 5: "internal error", statusUnavailable: "unavailable"}

// statusUnavailable is PRLAB_ERR_UNAVAILABLE: the design cannot run on this
// graph or device (e.g. the graph is too large for one cluster); a skip.
const statusUnavailable = 6

// Unwrap makes a PRLAB_ERR_UNAVAILABLE status an ErrUnavailable (a skip,
// not a failure: errors.Is(err, ErrUnavailable)).
func (e *Error) Unwrap() error {
	if e.Status == statusUnavailable {
		return ErrUnavailable
	}
	return nil
}

func (e *Error) Error() string {
	name := statusNames[e.Status]
	if name == "" {
		name = "status " + strconv.Itoa(e.Status)
	}
	return fmt.Sprintf("cudabind: %s: %s [%s]", e.Op, e.Message, name)
}

// Device is the GPU context reported with every number.
type Device struct {
	Index               int    `json:"index"`
	Name                string `json:"name"`
	CCMajor             int    `json:"cc_major"`
	CCMinor             int    `json:"cc_minor"`
	SMs                 int    `json:"sms"`
	L2Bytes             int    `json:"l2_bytes"`
	MaxThreadsPerBlock  int    `json:"max_threads_per_block"`
	WarpSize            int    `json:"warp_size"`
	GlobalMemBytes      int64  `json:"global_mem_bytes"`
	DriverVersion       int    `json:"driver_version"`  // CUDA driver API version, e.g. 13000
	RuntimeVersion      int    `json:"runtime_version"` // CUDA runtime linked into the library
	CusparseVersion     int    `json:"cusparse_version"`
	KernelBinaryVersion int    `json:"kernel_binary_version"` // SASS our kernels run as here, e.g. 90
	KernelPTXVersion    int    `json:"kernel_ptx_version"`
	DeviceCount         int    `json:"device_count"`
	CCCL                string `json:"cccl"`           // e.g. "CCCL 3.0.1"
	CompiledArchs       string `json:"compiled_archs"` // __CUDA_ARCH_LIST__ of the build
	Library             string `json:"library"`        // path of the loaded libprlab_cuda.so
}

// ComputeCapability is "major.minor", e.g. "9.0".
func (d Device) ComputeCapability() string { return fmt.Sprintf("%d.%d", d.CCMajor, d.CCMinor) }

// cudaVersion renders a CUDA version integer (1000*major + 10*minor) as "13.0".
func cudaVersion(v int) string { return fmt.Sprintf("%d.%d", v/1000, (v%1000)/10) }

// String is the course's context line, e.g. "NVIDIA H200 (compute capability
// 9.0), 132 SMs, 62914560 bytes of L2, 1024 threads per block; driver 13.0,
// runtime 13.0, CCCL 3.0.1".
func (d Device) String() string {
	return fmt.Sprintf("%s (compute capability %s), %d SMs, %d bytes of L2, %d threads per block; driver %s, runtime %s, cuSPARSE %d, %s; kernels sm_%d",
		d.Name, d.ComputeCapability(), d.SMs, d.L2Bytes, d.MaxThreadsPerBlock,
		cudaVersion(d.DriverVersion), cudaVersion(d.RuntimeVersion), d.CusparseVersion, d.CCCL, d.KernelBinaryVersion)
}

// ---------------------------------------------------------------- loading

type state struct {
	lib    *library
	path   string
	reason string
	device int
}

var (
	loadOnce sync.Once
	loaded   state
	// mu serialises every call into the library (one graph upload cached, one
	// CUDA context, and timings that must not overlap).
	mu sync.Mutex
)

// deviceIndex is PRLAB_CUDA_DEVICE (default 0).
func deviceIndex() int {
	if s := os.Getenv("PRLAB_CUDA_DEVICE"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v >= 0 {
			return v
		}
	}
	return 0
}

// LibraryCandidates returns the paths tried, in order: $PRLAB_CUDA_LIB, then
// build/libprlab_cuda.so under the module root found from the working
// directory, under the working directory, under the executable's directory
// and the module root found from there, the executable's directory itself,
// and finally the bare name (the dynamic loader's search path). The
// executable's directory is left out when it is a temporary build directory
// (`go run` and `go test` build into $TMPDIR/go-build…): nothing is ever
// installed there.
func LibraryCandidates() []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	add(os.Getenv("PRLAB_CUDA_LIB"))
	rel := filepath.Join("build", LibraryName)
	if wd, err := os.Getwd(); err == nil {
		if root := moduleRoot(wd); root != "" {
			add(filepath.Join(root, rel))
		}
		add(filepath.Join(wd, rel))
	}
	if exe, err := os.Executable(); err == nil && !temporaryBuild(exe) {
		dir := filepath.Dir(exe)
		add(filepath.Join(dir, rel))
		if root := moduleRoot(dir); root != "" {
			add(filepath.Join(root, rel))
		}
		add(filepath.Join(dir, LibraryName))
	}
	add(LibraryName)
	return out
}

// temporaryBuild reports whether exe lies in a directory the go command
// builds into and deletes afterwards (a path element named go-build…).
func temporaryBuild(exe string) bool {
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// NotBuiltReason is the reason Available gives when no candidate library
// exists at all: the usual state of a machine without a GPU.
const NotBuiltReason = "the CUDA library is not built — run `make cuda-lib` on a CUDA host " +
	"(or set PRLAB_CUDA_LIB to a built " + LibraryName + "; looked in build/ of the checkout, beside the executable and on the loader path)"

// shortPath prints p relative to the working directory when it lies below
// it, so that reasons (which reports and notebooks keep) carry no machine path.
func shortPath(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}

// moduleRoot walks up from dir to the directory whose go.mod declares
// module github.com/prlab/prlab ("" if none).
func moduleRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && f[1] == "github.com/prlab/prlab" {
					return d
				}
			}
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// probe opens the first loadable library among paths and asks it for a
// device. It returns the library (nil if none loaded), its path, and the
// reason the GPU path is unavailable ("" when it is available): NotBuiltReason
// when no candidate exists; otherwise each candidate that exists but could
// not be used, with why (dlopen error, ABI version), paths relative to the
// working directory where they lie below it.
func probe(paths []string, device int) (*library, string, string) {
	if !cgoEnabled {
		return nil, "", errNoCgo.Error()
	}
	var tried []string
	env := os.Getenv("PRLAB_CUDA_LIB")
	for _, p := range paths {
		if strings.ContainsRune(p, os.PathSeparator) {
			if _, err := os.Stat(p); err != nil {
				if p == env {
					tried = append(tried, fmt.Sprintf("PRLAB_CUDA_LIB=%s does not exist", p))
				}
				continue
			}
		}
		lib, err := openLibrary(p)
		if err != nil {
			if !strings.ContainsRune(p, os.PathSeparator) && strings.Contains(err.Error(), "No such file") {
				continue // not on the loader's search path either
			}
			tried = append(tried, fmt.Sprintf("%s could not be loaded (%v)", shortPath(p), err))
			continue
		}
		if v := lib.abiVersion(); v != abiVersion {
			lib.close()
			tried = append(tried, fmt.Sprintf("%s has ABI version %d, this binary needs %d: rebuild it with `make cuda-lib`", shortPath(p), v, abiVersion))
			continue
		}
		count, err := lib.deviceCount()
		if err != nil {
			return lib, p, fmt.Sprintf("%s loaded, but no usable GPU: %v", shortPath(p), err)
		}
		if device >= count {
			return lib, p, fmt.Sprintf("%s loaded, but PRLAB_CUDA_DEVICE=%d and only %d device(s)", shortPath(p), device, count)
		}
		return lib, p, ""
	}
	if len(tried) == 0 {
		return nil, "", NotBuiltReason
	}
	return nil, "", fmt.Sprintf("%s not loaded: %s. Build it on a CUDA host with `make cuda-lib`, or set PRLAB_CUDA_LIB",
		LibraryName, strings.Join(tried, "; "))
}

func load() state {
	loadOnce.Do(func() {
		loaded.device = deviceIndex()
		loaded.lib, loaded.path, loaded.reason = probe(LibraryCandidates(), loaded.device)
	})
	return loaded
}

// Available reports whether the GPU implementations can run here; when not,
// reason says why (library not found at the paths tried, dlopen error, ABI
// mismatch, no driver, no device). The probe runs once per process.
func Available() (ok bool, reason string) {
	s := load()
	return s.reason == "", s.reason
}

// LibraryPath is the path of the loaded library ("" if none was loaded).
func LibraryPath() string { return load().path }

// DeviceInfo returns the GPU context (name, compute capability, SMs, L2
// bytes, max threads per block, driver/runtime/cuSPARSE/CCCL versions).
// The error wraps ErrUnavailable when there is no usable GPU.
func DeviceInfo() (Device, error) {
	s := load()
	if s.reason != "" {
		return Device{}, fmt.Errorf("%w: %s", ErrUnavailable, s.reason)
	}
	mu.Lock()
	defer mu.Unlock()
	return s.lib.deviceInfo(s.device)
}

// runOut is what prlab_run returns: ranks, per-iteration residuals and sums.
type runOut struct {
	ranks     []float32
	residuals []float32
	sums      []float64
	done      int
	converged bool
}
