package report

import (
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Copy rows are found by their kind; a report written before rows had a
// kind has the DRAM row first and one iteration's bytes second.
func TestCopyRowsByKind(t *testing.T) {
	run := &Run{CopyRows: []pagerank.Stage{
		{Name: "copy, one iteration's bytes", Kind: pagerank.StageCopyIteration, GBps: 3000, Bytes: 1000},
		{Name: "a copy named anything", Kind: pagerank.StageCopyDRAM, GBps: 4000},
	}}
	if got := DRAMCopyRow(run); got != 4000 {
		t.Errorf("DRAM row by kind: %v GB/s, want 4000", got)
	}
	if c := MeasuredCeilings(run); c.IterCopyGBps != 3000 || c.IterCopyBytes != 1000 {
		t.Errorf("iteration copy row by kind: %+v", c)
	}
	old := &Run{CopyRows: []pagerank.Stage{{Name: "copy, 128 MiB (DRAM)", GBps: 4100}, {Name: "copy, one iteration's bytes", GBps: 2900}}}
	if got, c := DRAMCopyRow(old), MeasuredCeilings(old); got != 4100 || c.IterCopyGBps != 2900 {
		t.Errorf("report without kinds: DRAM %v, iteration %v; want 4100, 2900 (by position)", got, c.IterCopyGBps)
	}
	if got := DRAMCopyRow(&Run{CopyRows: []pagerank.Stage{{Kind: pagerank.StageCopyIteration, GBps: 1}}}); got != 0 {
		t.Errorf("no DRAM row among kinded rows: %v, want 0", got)
	}
	if got := DRAMCopyRow(&Run{}); got != 0 {
		t.Errorf("no copy rows: %v", got)
	}
}
