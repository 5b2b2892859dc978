package pagerank

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestGraphBytes(t *testing.T) {
	// 1e9+1 nodes, 2 edges: 25 bytes per node + 8 per edge + 8.
	if got, want := GraphBytes(1_000_000_001, 2), int64(25_000_000_025+16+8); got != want {
		t.Errorf("GraphBytes = %d, want %d", got, want)
	}
}

// TestLoadRefusesAGraphLargerThanMemory: a 20-byte .el whose largest id is
// 10^9 (n = 10^9 + 1 as ids are kept as given) and an .mtx whose size line
// says 2·10^9 rows fail with a ParseError at the line of that id (the size
// line), before any n-sized array is allocated; a graph that fits loads.
func TestLoadRefusesAGraphLargerThanMemory(t *testing.T) {
	saved := memAvailable
	defer func() { memAvailable = saved }()
	memAvailable = func() (int64, string) { return 1 << 30, "a test's 1 GiB" }

	dir := t.TempDir()
	for _, tc := range []struct {
		file, content string
		line          int
		want          []string
	}{
		{"sparse.el", "0 1\n1 1000000000\n", 2, []string{"node id 1000000000", "n = 1000000001", "23.3 GiB", "1.0 GiB available (a test's 1 GiB)", "--format snap", "--format csv"}},
		{"commented.el", "# c\n0 1\n\n7 1000000000\n1000000000 2\n3 999999999\n", 4, []string{"node id 1000000000"}},
		{"big.mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n2000000000 2000000000 1\n1 2\n", 3, []string{"2000000000 rows", "46.6 GiB", "--format csv"}},
		{"sym.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n50000000 50000000 1\n1 2\n", 2, []string{"50000000 rows", "1.2 GiB"}},
	} {
		p := filepath.Join(dir, tc.file)
		os.WriteFile(p, []byte(tc.content), 0o644)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _, err := LoadGraph(p, "g", LoadOptions{})
		runtime.ReadMemStats(&after)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != p || pe.Line != tc.line {
			t.Fatalf("%s: error %v, want a ParseError at %s:%d", tc.file, err, p, tc.line)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", tc.file, err, w)
			}
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s: allocated %d bytes before refusing", tc.file, grew)
		}
	}
	// Fits: 1e6+1 nodes need 25 MB.
	p := filepath.Join(dir, "fits.el")
	os.WriteFile(p, []byte("0 1\n1 1000000\n"), 0o644)
	if g, _, err := LoadGraph(p, "g", LoadOptions{}); err != nil || g.N != 1_000_001 {
		t.Fatalf("fits.el: %v", err)
	}
}

func TestCgroupRoom(t *testing.T) {
	write := func(dir, name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v2 := t.TempDir()
	write(v2, "memory.max", "4294967296\n")
	write(v2, "memory.current", "1073741824\n")
	if room, where, ok := cgroupRoom(v2); !ok || room != 3<<30 || !strings.Contains(where, "memory.max") {
		t.Errorf("v2 limit 4 GiB, 1 GiB used: room %d (%q, %v), want 3 GiB", room, where, ok)
	}
	unlimited := t.TempDir()
	write(unlimited, "memory.max", "max\n")
	write(unlimited, "memory/memory.limit_in_bytes", "9223372036854771712\n")
	if room, _, ok := cgroupRoom(unlimited); ok {
		t.Errorf("no limit (v2 max, v1 unlimited): room %d, want none", room)
	}
	v1 := t.TempDir()
	write(v1, "memory/memory.limit_in_bytes", "2147483648\n")
	write(v1, "memory/memory.usage_in_bytes", "3221225472\n")
	if room, _, ok := cgroupRoom(v1); !ok || room != 0 {
		t.Errorf("v1 usage above limit: room %d, %v, want 0", room, ok)
	}
	if _, _, ok := cgroupRoom(filepath.Join(v2, "absent")); ok {
		t.Error("absent cgroup files: want no limit")
	}
}
