//go:build cgo

package cudabind

import (
	"errors"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// gpu-cluster-dsmem through the binding on the CPU stand-in library: its
// row of the table of designs, its knobs, ranks on a graph that fits, and a
// graph too large for one cluster as a skip (PRLAB_ERR_UNAVAILABLE ->
// ErrUnavailable) that names why, in Run and in Benchmark.
func TestClusterDSMEMWithFakeLibrary(t *testing.T) {
	useFake(t)
	im := mustDesign(t, NameClusterDSMEM)
	if im.id != implClusterDSMEM || !isLayout(im) || designFamily(implClusterDSMEM) != 1 || im.minCC != 90 {
		t.Fatalf("design row %+v, C family %d", im.design, designFamily(implClusterDSMEM))
	}
	chain, _ := pagerank.SyntheticCase("chain")
	if got := im.BytesFormula().Bytes(chain.N, chain.NNZ); got != 16*int64(chain.N)+8*int64(chain.NNZ)+4 {
		t.Errorf("bytes %d on chain", got)
	}
	if c := im.Costs(chain, 50); c.DeviceBarriers != 52.0/50 || c.HostLaunches != 1.0/50 || c.Barrier != "cluster.sync()" {
		t.Errorf("costs %+v", c)
	}
	for k := knobDSMFirst; k < knobDSMEnd; k++ {
		if err := setLayoutKnob(chain, k, 1); err != nil {
			t.Errorf("knob %d: %v", k, err)
		}
		if err := setLayoutKnob(chain, k, 0); err != nil {
			t.Errorf("knob %d back to auto: %v", k, err)
		}
	}
	want, _ := oracle64(chain, pagerank.DefaultDamping, 30, 0)
	res, err := im.Run(chain, pagerank.Fixed(30))
	if err != nil || maxRelErr(res.Ranks, want) > 1e-3 || res.Implementation != NameClusterDSMEM {
		t.Fatalf("Run on chain: %v, %+v", err, res)
	}
	big := courseLikeGraph(t, "too-large", 20000, 60000)
	_, err = im.Run(big, pagerank.Fixed(10))
	var le *Error
	if !errors.Is(err, ErrUnavailable) || !errors.As(err, &le) || le.Status != statusUnavailable ||
		!strings.Contains(err.Error(), "graph too large for one cluster") || !strings.Contains(err.Error(), "[unavailable]") {
		t.Errorf("Run on n = %d: %v; want ErrUnavailable naming the cluster's limit", big.N, err)
	}
	if _, err := im.Benchmark(big, pagerank.Fixed(50), 1, 2); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Benchmark on n = %d: %v; want ErrUnavailable", big.N, err)
	}
	// Another status is not a skip.
	if errors.Is(&Error{Op: "prlab_run", Status: 2, Message: "x"}, ErrUnavailable) {
		t.Error("a CUDA error unwraps to ErrUnavailable")
	}
}
