package study

import (
	"math"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
)

// Rates are computed here, once, from the bytes and times the
// implementations report (pkg/cudabind returns bytes and milliseconds only):
//
//	GB/s   = bytes / (ms · 1e6)             effective bandwidth, decimal GB per second
//	x DRAM = GB/s / GB/s of the DRAM copy row  the copy row of kind pagerank.StageCopyDRAM
//	                                           (128 MiB device to device) measured in the same process
//	GTEPS, ns per edge, the byte floor and the compressed-stream floor and the
//	fractions of them (fillRates, the scale rows)
//
// The bytes are those the implementation counts from its kernels' loads and
// stores (pkg/cudabind ByteFormula), so a scattered gather's 32-byte sectors
// are not counted and GB/s understates the traffic moved (the course's rule).

// GBps is the effective bandwidth of moving bytes in ms milliseconds, in GB/s
// (0 when ms or bytes is not positive).
func GBps(bytes int64, ms float64) float64 {
	if !(ms > 0) || bytes <= 0 {
		return 0
	}
	return float64(bytes) / (ms * 1e6)
}

// DRAMCopy returns the copy row of kind pagerank.StageCopyDRAM among rows.
func DRAMCopy(rows []pagerank.Stage) (pagerank.Stage, bool) {
	for _, s := range rows {
		if s.Kind == pagerank.StageCopyDRAM {
			return s, true
		}
	}
	return pagerank.Stage{}, false
}

// SetRates sets every row's GBps from its bytes and ms and, when dramGBps
// is positive, its XDRAM = GBps / dramGBps. Rows with no bytes or time (the
// primitives, the host relabel) keep GBps and XDRAM 0.
func SetRates(rows []pagerank.Stage, dramGBps float64) {
	for i := range rows {
		s := &rows[i]
		s.GBps = GBps(s.Bytes, s.Ms)
		s.XDRAM = 0
		if dramGBps > 0 {
			s.XDRAM = s.GBps / dramGBps
		}
	}
}

// fillRates sets the derived numbers of a timed row: GTEPS, ns per edge,
// the byte floor and the compressed-stream floor and the fractions of them
// reached (a fraction above 1 beats that floor).
func fillRates(row *report.ScaleRow, ms float64, copyRow *pagerank.Stage) {
	if !(ms > 0) {
		return
	}
	row.MsPerIter = report.F(ms)
	row.GTEPS = report.F(report.GTEPS(row.NNZ, ms))
	row.NsPerEdge = report.F(ms * 1e6 / float64(max(row.NNZ, 1)))
	row.FloorBytes = FloorBytes(row.N, row.NNZ, row.Precision)
	row.CodeFloorBytes = CodeFloorBytes(row.N, row.NNZ, row.Precision)
	if copyRow != nil && copyRow.GBps > 0 {
		row.CopyRow, row.CopyGBps = copyRow.Name, report.F(copyRow.GBps)
		row.FloorMs = report.F(FloorMs(row.FloorBytes, copyRow.GBps))
		row.FloorFraction = report.F(float64(row.FloorMs) / ms)
		row.CodeFloorMs = report.F(FloorMs(row.CodeFloorBytes, copyRow.GBps))
		row.CodeFloorFraction = report.F(float64(row.CodeFloorMs) / ms)
	}
}

// FloorBytes is the byte floor of one pull-PageRank iteration on n nodes and
// nnz edges in a precision of w bytes (4 for float32, 8 for float64):
//
//	4(n+1) + 4nnz + 3wn
//
// the in-edge CSR read once (row pointer and column index), the rank vector
// read once and written once, and 1/outdeg read once; every gathered
// x[u]/outdeg[u] is assumed to hit in cache (its one DRAM read is the rank
// read). It is the compulsory traffic of the iteration the course's kernels
// implement (pkg/cudabind counts 33n + 8nnz + 4 bytes for its hand-written
// float32 iteration, which also writes and re-reads contrib and the
// dangling mask and counts a 4-byte gather per edge).
func FloorBytes(n, nnz int, prec pagerank.Precision) int64 {
	w := int64(4)
	if prec == pagerank.Float64 {
		w = 8
	}
	return 4*int64(n+1) + 4*int64(nnz) + 3*w*int64(n)
}

// CodeFloorBytes is the second floor, the compressed stream's: FloorBytes
// with the column indices read as the 16-bit column code of
// gpu-hothead-packed (pkg/cudabind EncodeColumns: the gap to the previous
// column of the row) at 2 bytes per edge instead of 4:
//
//	4(n+1) + 2nnz + 3wn
//
// The code's escapes (4 bytes per gap >= 65535) and their per-row offsets
// are not counted, so it is a lower bound of any design that reads the code.
func CodeFloorBytes(n, nnz int, prec pagerank.Precision) int64 {
	return FloorBytes(n, nnz, prec) - 2*int64(nnz)
}

// FloorMs is the time in ms to move bytes at gbps GB/s (1e9 bytes/s): bytes / (gbps * 1e6).
func FloorMs(bytes int64, gbps float64) float64 {
	if !(gbps > 0) {
		return math.NaN()
	}
	return float64(bytes) / (gbps * 1e6)
}
