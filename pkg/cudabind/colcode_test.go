package cudabind

import (
	"slices"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// A known answer: gaps below the escape as themselves, the first edge's
// column from 0, gaps of 65535 and more escaped in row order.
func TestEncodeColumnsKnownAnswer(t *testing.T) {
	rowPtr := []int32{0, 3, 3, 7}
	colIdx := []int32{5, 6, 70000, 65534, 65535, 131070, 200000}
	c, err := EncodeColumns(rowPtr, colIdx)
	if err != nil {
		t.Fatal(err)
	}
	wantCodes := []uint16{5, 1, ColumnEscape, 65534, 1, ColumnEscape, ColumnEscape}
	wantExc := []int32{70000 - 6, 131070 - 65535, 200000 - 131070}
	if !slices.Equal(c.Codes, wantCodes) || !slices.Equal(c.Exc, wantExc) || !slices.Equal(c.ExcPtr, []int32{0, 1, 1, 3}) {
		t.Errorf("codes %v exc %v excPtr %v; want %v, %v, [0 1 1 3]", c.Codes, c.Exc, c.ExcPtr, wantCodes, wantExc)
	}
	if got := c.Decode(rowPtr); !slices.Equal(got, colIdx) {
		t.Errorf("decode %v, want %v", got, colIdx)
	}
	// 2 bytes per edge + 4 (n+1) + 4 per escape.
	if got, want := c.Bytes(), int64(2*7+4*4+4*3); got != want {
		t.Errorf("bytes %d, want %d", got, want)
	}
}

// Round trip on every synthetic case, R-MAT 2^17 as given and relabelled by
// out-degree (the graph gpu-hothead-packed codes): the escapes are exactly
// the gaps >= 65535, and the relabelled graph needs fewer of them.
func TestEncodeColumnsRoundTrip(t *testing.T) {
	rm := rmat(t, 17, 1)
	rg, _, _, err := relabelled(rm)
	if err != nil {
		t.Fatal(err)
	}
	defer ReleaseRelabelled()
	escapes := map[string]int{}
	for _, g := range append(pagerank.SyntheticCases(), rm, rg) {
		c, err := EncodeColumns(g.InRowPtr, g.InColIdx)
		if err != nil {
			t.Fatalf("%s: %v", g.Name, err)
		}
		if got := c.Decode(g.InRowPtr); !slices.Equal(got, g.InColIdx) {
			t.Errorf("%s: the decoded columns differ from the graph's", g.Name)
		}
		want := 0
		for v := 0; v < g.N; v++ {
			prev := int32(0)
			for k, col := range g.InColIdx[g.InRowPtr[v]:g.InRowPtr[v+1]] {
				if k%ColumnSegment == 0 {
					prev = 0
				}
				if col-prev >= ColumnEscape {
					want++
				}
				prev = col
			}
		}
		if len(c.Exc) != want || int(c.ExcPtr[g.N]) != want {
			t.Errorf("%s: %d escapes (ExcPtr[n] %d), want %d", g.Name, len(c.Exc), c.ExcPtr[g.N], want)
		}
		escapes[g.Name] = want
	}
	if escapes[rg.Name] >= escapes[rm.Name] || escapes[rm.Name] == 0 {
		t.Errorf("escapes: %d relabelled, %d as given (R-MAT 2^17 has gaps >= 65535 and the relabel shortens them)", escapes[rg.Name], escapes[rm.Name])
	}
	t.Logf("R-MAT 2^17: %d escapes as given, %d relabelled, of %d edges", escapes[rm.Name], escapes[rg.Name], rm.NNZ)
}

func TestEncodeColumnsErrors(t *testing.T) {
	if _, err := EncodeColumns([]int32{0, 2}, []int32{4, 3}); err == nil || !strings.Contains(err.Error(), "row 0 is not sorted: edge 1") {
		t.Errorf("unsorted row: %v", err)
	}
	if _, err := EncodeColumns([]int32{0, 3}, []int32{1, 2}); err == nil || !strings.Contains(err.Error(), "does not describe 2 edges") {
		t.Errorf("short colIdx: %v", err)
	}
	if _, err := EncodeColumns([]int32{0, 2, 1}, []int32{1}); err == nil {
		t.Error("decreasing rowPtr accepted")
	}
}

// A row longer than ColumnSegment restarts its gaps at every segment: edge
// 1024 of the row codes its column from 0 (an escape when >= 65535).
func TestEncodeColumnsSegments(t *testing.T) {
	const d = 2*ColumnSegment + 5
	rowPtr := []int32{0, 2, 2 + d}
	colIdx := []int32{1, 2}
	for k := 0; k < d; k++ {
		colIdx = append(colIdx, int32(100*k))
	}
	c, err := EncodeColumns(rowPtr, colIdx)
	if err != nil {
		t.Fatal(err)
	}
	s0, s1, s2 := 2, 2+ColumnSegment, 2+2*ColumnSegment
	if c.Codes[s0] != 0 || c.Codes[s0+1] != 100 || c.Codes[s1] != ColumnEscape || c.Codes[s1+1] != 100 || c.Codes[s2] != ColumnEscape {
		t.Errorf("segment starts coded %d, %d, %d, %d, %d; want 0, 100, escape, 100, escape", c.Codes[s0], c.Codes[s0+1], c.Codes[s1], c.Codes[s1+1], c.Codes[s2])
	}
	if !slices.Equal(c.Exc, []int32{100 * ColumnSegment, 200 * ColumnSegment}) || !slices.Equal(c.ExcPtr, []int32{0, 0, 2}) {
		t.Errorf("escapes %v at %v, want [102400 204800] at [0 0 2]", c.Exc, c.ExcPtr)
	}
	if got := c.Decode(rowPtr); !slices.Equal(got, colIdx) {
		t.Error("decode of a segmented row differs")
	}
}
