package study

import (
	"errors"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/report"
)

// contextGPU is fakeGPU with a Context that fails with err or panics.
type contextGPU struct {
	fakeGPU
	err   error
	panic bool
}

func (c contextGPU) Context() (*report.GPUContext, error) {
	if c.panic {
		panic("no device context")
	}
	return nil, c.err
}

// The skip reason every study records: no GPU, an unavailable one, a
// Context that fails or panics (contained); none for a working GPU.
func TestOpenGPUSkipReasons(t *testing.T) {
	for _, c := range []struct {
		name     string
		gpu      GPU
		skipped  string // prefix
		wantErr  bool
		wantName string
	}{
		{"nil", nil, NoGPUReason, false, ""},
		{"unavailable", fakeGPU{why: "libprlab_cuda.so not found"}, "libprlab_cuda.so not found", false, ""},
		{"context error", contextGPU{fakeGPU: fakeGPU{available: true}, err: errors.New("cudaGetDeviceProperties failed")}, "GPU context: cudaGetDeviceProperties failed", true, ""},
		{"context panic", contextGPU{fakeGPU: fakeGPU{available: true}, panic: true}, "GPU context: panic: no device context\n", true, ""},
		{"working", fakeGPU{available: true}, "", false, "Fake H200"},
	} {
		ctx, skipped, err := openGPU(c.gpu)
		if !strings.HasPrefix(skipped, c.skipped) || (c.skipped == "") != (skipped == "") || (err != nil) != c.wantErr {
			t.Errorf("%s: skipped %q, err %v; want %q..., error %v", c.name, skipped, err, c.skipped, c.wantErr)
		}
		if (ctx == nil) != (c.wantName == "") || (ctx != nil && ctx.Name != c.wantName) {
			t.Errorf("%s: context %+v, want %q", c.name, ctx, c.wantName)
		}
		if got := gpuSkipReason(c.gpu); c.name == "nil" || c.name == "unavailable" {
			if got != c.skipped {
				t.Errorf("%s: gpuSkipReason %q, want %q", c.name, got, c.skipped)
			}
		} else if got != "" {
			t.Errorf("%s: gpuSkipReason %q for an available GPU", c.name, got)
		}
	}
}
