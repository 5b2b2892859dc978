package pagerank

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// GraphBytes estimates the bytes a Graph of n nodes and nnz edges holds
// once built (NewGraph, NewGraphParallel): the out- and in-CSR row pointers
// 2·4·(n+1), their column indices 2·4·nnz, OutDegree 4·n, InvOutDegree
// 8·n and Dangling 1·n, that is 25·n + 8·nnz + 8. The build's scratch (the
// edge list being built from, the parallel build's count matrix of at most
// 1 GiB) and the rank vectors come on top, so this is a lower bound on the
// load's peak.
func GraphBytes(n, nnz int64) int64 { return 25*n + 8*nnz + 8 }

// unknownMemoryCap is the memory assumed available (bytes) where
// /proc/meminfo gives no MemAvailable (not Linux, or a kernel before 3.14).
const unknownMemoryCap = 16 << 30

// memAvailable returns the memory available for new allocations (bytes):
// MemAvailable of /proc/meminfo, else unknownMemoryCap; the string says
// where the number came from. A variable so that tests can set it.
var memAvailable = func() (int64, string) {
	if f, err := os.Open("/proc/meminfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
				if kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64); err == nil {
					return kb << 10, "MemAvailable in /proc/meminfo"
				}
			}
		}
	}
	return unknownMemoryCap, "the 16 GiB assumed where /proc/meminfo gives no MemAvailable"
}

// checkGraphMemory refuses, before anything n-sized is allocated, a graph
// whose arrays (GraphBytes(n, nnz)) exceed the memory available, instead of
// letting the allocation kill the process ("runtime: out of memory"). The
// error says both sizes; callers add the file, line and what to do.
func checkGraphMemory(n, nnz int64) error {
	need := GraphBytes(n, nnz)
	avail, from := memAvailable()
	if need <= avail {
		return nil
	}
	return fmt.Errorf("its arrays need about %s (25 bytes per node + 8 per edge), more than the %s available (%s)",
		gib(need), gib(avail), from)
}

func gib(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
