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
// the smaller of MemAvailable of /proc/meminfo and the room left under the
// process's cgroup limit (cgroupRoom: a container's memory.max is often far
// below the host's MemAvailable), else unknownMemoryCap; the string says
// where the number came from. A variable so that tests can set it.
var memAvailable = func() (int64, string) {
	avail, from := int64(unknownMemoryCap), "the 16 GiB assumed where /proc/meminfo gives no MemAvailable"
	if f, err := os.Open("/proc/meminfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
				if kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64); err == nil {
					avail, from = kb<<10, "MemAvailable in /proc/meminfo"
				}
			}
		}
	}
	if room, where, ok := cgroupRoom(cgroupRoot); ok && room < avail {
		return room, where
	}
	return avail, from
}

// cgroupRoot is where the cgroup filesystem is mounted (a variable for tests).
var cgroupRoot = "/sys/fs/cgroup"

// cgroupRoom is the memory left under this process's cgroup limit (bytes),
// limit − usage, from cgroup v2's memory.max and memory.current at root, or
// cgroup v1's memory/memory.limit_in_bytes and memory.usage_in_bytes; ok is
// false when there is no limit ("max", or v1's near-2^63 "unlimited") or the
// files are absent. Inside a container the namespace's root is its own cgroup.
func cgroupRoom(root string) (room int64, where string, ok bool) {
	read := func(name string) (int64, bool) {
		b, err := os.ReadFile(root + "/" + name)
		if err != nil {
			return 0, false
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return v, err == nil
	}
	for _, c := range []struct{ limit, usage string }{
		{"memory.max", "memory.current"},
		{"memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes"},
	} {
		limit, okL := read(c.limit)
		if !okL || limit >= 1<<62 {
			continue
		}
		usage, _ := read(c.usage)
		room = max(limit-usage, 0)
		return room, fmt.Sprintf("the cgroup limit %s in %s/%s less %s in use", gib(limit), root, c.limit, gib(usage)), true
	}
	return 0, "", false
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
