package cudabind

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

func TestLibraryCandidatesOrder(t *testing.T) {
	t.Setenv("PRLAB_CUDA_LIB", "/opt/x/libprlab_cuda.so")
	c := LibraryCandidates()
	if len(c) < 3 || c[0] != "/opt/x/libprlab_cuda.so" || c[len(c)-1] != LibraryName {
		t.Fatalf("candidates %v", c)
	}
	root := moduleRoot(".")
	if root == "" {
		t.Fatal("module root not found from the package directory")
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "build", LibraryName); c[1] != want {
		t.Errorf("second candidate %q, want %q (module root)", c[1], want)
	}
	if moduleRoot(t.TempDir()) != "" {
		t.Error("module root found under a temporary directory")
	}
}

func TestProbeReasons(t *testing.T) {
	if !cgoEnabled {
		if _, _, reason := probe([]string{"/x/" + LibraryName}, 0); !strings.Contains(reason, "without cgo") {
			t.Errorf("reason without cgo: %q", reason)
		}
		return
	}
	dir := t.TempDir()
	t.Setenv("PRLAB_CUDA_LIB", "")
	missing := filepath.Join(dir, "nope", LibraryName)
	lib, _, reason := probe([]string{missing, "libprlab_cuda_absent.so"}, 0)
	if lib != nil || reason != NotBuiltReason {
		t.Errorf("no library anywhere: lib %v reason %q, want %q", lib, reason, NotBuiltReason)
	}
	if strings.Contains(reason, dir) {
		t.Errorf("reason %q names a path that does not exist", reason)
	}
	t.Setenv("PRLAB_CUDA_LIB", missing)
	_, _, reason = probe([]string{missing}, 0)
	if !strings.Contains(reason, "PRLAB_CUDA_LIB="+missing+" does not exist") || !strings.Contains(reason, "make cuda-lib") {
		t.Errorf("PRLAB_CUDA_LIB names a missing file: reason %q", reason)
	}
	t.Setenv("PRLAB_CUDA_LIB", "")
	junk := filepath.Join(dir, "junk.so")
	if err := os.WriteFile(junk, []byte("not an ELF file"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, reason = probe([]string{missing, junk}, 0)
	if !strings.Contains(reason, junk+" could not be loaded (dlopen: ") || strings.Contains(reason, missing) {
		t.Errorf("junk library: reason %q, want the dlopen error of %s only", reason, junk)
	}
}

func TestTemporaryBuildDirectoryIsNotSearched(t *testing.T) {
	for exe, want := range map[string]bool{
		"/tmp/go-build3175741865/b001/exe/prlab": true,
		"/work/prlab/.gpu/prlab":                 false,
		"/usr/local/bin/prlab":                   false,
	} {
		if got := temporaryBuild(exe); got != want {
			t.Errorf("temporaryBuild(%q) = %v, want %v", exe, got, want)
		}
	}
	// This test binary itself runs from go test's temporary build directory.
	for _, c := range LibraryCandidates() {
		if strings.Contains(c, "go-build") {
			t.Errorf("candidate %q lies in a temporary build directory", c)
		}
	}
	if wd, err := os.Getwd(); err == nil {
		if got := shortPath(filepath.Join(wd, "build", LibraryName)); got != filepath.Join("build", LibraryName) {
			t.Errorf("shortPath under the working directory = %q", got)
		}
	}
}

// Whatever this machine has, the package must answer consistently: with no
// GPU, every implementation names the same reason and fails with
// ErrUnavailable; with one, Reason is empty.
func TestAvailabilityConsistent(t *testing.T) {
	ok, reason := Available()
	if ok != (reason == "") {
		t.Fatalf("Available() = %v, %q", ok, reason)
	}
	g, err := pagerank.SyntheticCase("tiny")
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range stageDesigns() {
		if r := im.(pagerank.Unavailable).Reason(); r != reason {
			t.Errorf("%s: Reason() %q, Available %q", im.Name(), r, reason)
		}
		if !ok {
			if _, err := im.Run(g, pagerank.Fixed(5)); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), reason) {
				t.Errorf("%s: Run without a GPU returned %v", im.Name(), err)
			}
			if _, err := im.(pagerank.Benchmarker).Benchmark(g, pagerank.Fixed(5), 1, 1); !errors.Is(err, ErrUnavailable) {
				t.Errorf("%s: Benchmark without a GPU returned %v", im.Name(), err)
			}
		}
	}
	if !ok {
		t.Logf("GPU path unavailable here: %s", reason)
		if _, err := DeviceInfo(); !errors.Is(err, ErrUnavailable) {
			t.Errorf("DeviceInfo without a GPU: %v", err)
		}
	}
	if _, ok := DesignByName("gpu-nonexistent"); ok {
		t.Error("DesignByName found a nonexistent name")
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	im := stageDesigns()[0]
	g, _ := pagerank.SyntheticCase("tiny")
	if _, err := im.Run(g, pagerank.Params{Damping: 1.5, Mode: pagerank.FixedIterations, Iterations: 10}); err == nil || !strings.Contains(err.Error(), "damping") {
		t.Errorf("damping 1.5 accepted: %v", err)
	}
	bad := *g
	bad.InColIdx = bad.InColIdx[:3]
	if err := checkGraph(&bad); err == nil || !strings.Contains(err.Error(), "inconsistent") {
		t.Errorf("inconsistent graph accepted: %v", err)
	}
	if err := checkGraph(g); err != nil {
		t.Error(err)
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{Op: "prlab_graph_create", Status: 2, Message: "cudaMalloc(d_colIdx, 379724 bytes): out of memory (cudaErrorMemoryAllocation)"}
	if got := e.Error(); got != "cudabind: prlab_graph_create: cudaMalloc(d_colIdx, 379724 bytes): out of memory (cudaErrorMemoryAllocation) [CUDA error]" {
		t.Errorf("Error() = %q", got)
	}
}
