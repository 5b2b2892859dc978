//go:build cgo

package cudabind

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// gpu-hothead-packed through the fake library, which decodes the uploaded
// column code and refuses it unless it gives the graph's columns: the Go
// encoder and the C decoder agree (on R-MAT 2^17 relabelled, with escapes),
// the result counts the escapes' bytes, and the ranks are the fake's
// gpu-hothead ranks (in the graph's order).
func TestHotHeadPackedWithFakeLibrary(t *testing.T) {
	useFake(t)
	defer ReleaseRelabelled()
	rm := rmat(t, 17, 1)
	im := mustDesign(t, NameHotHeadPacked)
	for _, g := range append(pagerank.SyntheticCases(), rm) {
		res, err := im.Run(g, pagerank.Fixed(20))
		if err != nil {
			t.Fatalf("%s on %s: %v", im.Name(), g.Name, err)
		}
		rg, _, _, _ := relabelled(g)
		code, _ := EncodeColumns(rg.InRowPtr, rg.InColIdx)
		if want := im.BytesFormula().Bytes(g.N, g.NNZ) + 4*int64(len(code.Exc)); res.BytesPerIteration != want ||
			!strings.Contains(res.BytesFormula, fmt.Sprintf("+ 4 x %d escapes", len(code.Exc))) {
			t.Errorf("%s on %s: %d bytes (%s), want %d with %d escapes", im.Name(), g.Name, res.BytesPerIteration, res.BytesFormula, want, len(code.Exc))
		}
		plain, err := mustDesign(t, NameHotHead).Run(g, pagerank.Fixed(20))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Ranks, plain.Ranks) || len(res.Ranks) != g.N {
			t.Errorf("%s on %s: the fake's ranks differ from gpu-hothead's", im.Name(), g.Name)
		}
		if g == rm && len(code.Exc) == 0 {
			t.Errorf("R-MAT 2^17 relabelled has no escapes: the escape path is untested")
		}
	}
	// Benchmark reports the one-time encoding beside the relabel, outside the timed iterations.
	oneTimeRows(t, im, rm, "one-time host column code", "one-time setup of the hot head", "one-time host relabel")
}
