package cudabind

import "fmt"

// ColumnEscape is the 16-bit code that says "the gap is in the escape list".
const ColumnEscape = 0xFFFF

// ColumnSegment is the length of the segments a row's code restarts in
// (PRLAB_HOT_SEGMENT, csrc/hothead.cu): the first edge of each segment of
// ColumnSegment edges codes its column itself, so that the warps of a block
// decode the segments of one long row independently.
const ColumnSegment = 1024

// ColumnCode is the in-edge CSR's column indices as 16-bit gaps with a
// 4-byte escape (gpu-hothead-packed, csrc/hothead.cu). Row v's edges keep
// their positions rowPtr[v] .. rowPtr[v+1]-1: Codes[e] is the gap from the
// previous column of the row's segment (edges ColumnSegment*m ..
// ColumnSegment*(m+1)-1 of the row; a segment's first gap is its column
// itself, from 0), or ColumnEscape when the gap is >= ColumnEscape; then the
// gap is the next of row v's escapes, Exc[ExcPtr[v]], Exc[ExcPtr[v]+1], ...
// in row order. Fixed positions let a warp decode 32 consecutive edges at once (a
// ballot of the escapes, then a prefix sum of the gaps). Columns must be
// sorted ascending within each row (gaps >= 0), as pagerank.Relabel and the
// loaders make them.
//
// Shapes: Codes [nnz], ExcPtr [n+1], Exc [escapes]. Bytes on the device:
// 2 nnz + 4 (n+1) + 4 escapes, against 4 nnz for colIdx.
type ColumnCode struct {
	Codes  []uint16
	ExcPtr []int32
	Exc    []int32
}

// EncodeColumns codes the columns of the CSR (rowPtr [n+1], colIdx [nnz]).
// Errors: a malformed rowPtr, or a row whose columns are not ascending
// (naming the row and the edge).
func EncodeColumns(rowPtr, colIdx []int32) (ColumnCode, error) {
	n := len(rowPtr) - 1
	if n < 0 || rowPtr[0] != 0 || int(rowPtr[n]) != len(colIdx) {
		return ColumnCode{}, fmt.Errorf("column code: rowPtr of %d entries does not describe %d edges", len(rowPtr), len(colIdx))
	}
	c := ColumnCode{Codes: make([]uint16, len(colIdx)), ExcPtr: make([]int32, n+1)}
	for v := 0; v < n; v++ {
		c.ExcPtr[v] = int32(len(c.Exc))
		b, e := rowPtr[v], rowPtr[v+1]
		if e < b || int(e) > len(colIdx) {
			return ColumnCode{}, fmt.Errorf("column code: row %d spans edges [%d, %d) of %d", v, b, e, len(colIdx))
		}
		prev := int32(0)
		for j := b; j < e; j++ {
			if (j-b)%ColumnSegment == 0 {
				prev = 0
			}
			gap := colIdx[j] - prev
			if gap < 0 {
				return ColumnCode{}, fmt.Errorf("column code: row %d is not sorted: edge %d has column %d after %d", v, j, colIdx[j], prev)
			}
			if gap >= ColumnEscape {
				c.Codes[j] = ColumnEscape
				c.Exc = append(c.Exc, gap)
			} else {
				c.Codes[j] = uint16(gap)
			}
			prev = colIdx[j]
		}
	}
	c.ExcPtr[n] = int32(len(c.Exc))
	return c, nil
}

// Decode returns the column indices the code holds for rowPtr (the inverse
// of EncodeColumns).
func (c ColumnCode) Decode(rowPtr []int32) []int32 {
	out := make([]int32, len(c.Codes))
	for v := 0; v+1 < len(rowPtr); v++ {
		col, x := int32(0), c.ExcPtr[v]
		for j := rowPtr[v]; j < rowPtr[v+1]; j++ {
			if (j-rowPtr[v])%ColumnSegment == 0 {
				col = 0
			}
			if g := c.Codes[j]; g == ColumnEscape {
				col += c.Exc[x]
				x++
			} else {
				col += int32(g)
			}
			out[j] = col
		}
	}
	return out
}

// Bytes is the code's size on the device: 2 nnz + 4 (n+1) + 4 escapes.
func (c ColumnCode) Bytes() int64 {
	return 2*int64(len(c.Codes)) + 4*int64(len(c.ExcPtr)) + 4*int64(len(c.Exc))
}
