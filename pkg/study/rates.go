package study

import "github.com/prlab/prlab/pkg/pagerank"

// Rates are computed here, once, from the bytes and times the
// implementations report (pkg/cudabind returns bytes and milliseconds only):
//
//	GB/s   = bytes / (ms · 1e6)             effective bandwidth, decimal GB per second
//	x DRAM = GB/s / GB/s of the DRAM copy row  the copy row of kind pagerank.StageCopyDRAM
//	                                           (128 MiB device to device) measured in the same process
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
