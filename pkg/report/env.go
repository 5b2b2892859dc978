package report

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/prlab/prlab/pkg/dataset"
	"github.com/prlab/prlab/pkg/pagerank"
)

// CollectEnvironment describes this machine and checkout: the date (UTC,
// RFC 3339), the git commit of the working directory (with "+dirty" when
// tracked files are modified; "unknown" outside git), Go version, OS and
// kernel release, CPU model and logical cores, and the size and SHA-256 of
// each dataset file. A dataset file that cannot be read is an error naming it.
func CollectEnvironment(now time.Time, datasets []string) (Environment, error) {
	env := Environment{
		Date:        now.UTC().Format(time.RFC3339),
		Commit:      gitCommit(),
		GoVersion:   runtime.Version(),
		OS:          runtime.GOOS + "/" + runtime.GOARCH,
		CPUModel:    cpuModel(),
		CPUCores:    runtime.NumCPU(),
		GOMAXPROCS:  runtime.GOMAXPROCS(0),
		LoadAverage: LoadAverage(),
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		env.OS += ", kernel " + strings.TrimSpace(string(b))
	}
	for _, p := range datasets {
		c, err := FileChecksum(p)
		if err != nil {
			return env, err
		}
		env.Datasets = append(env.Datasets, c)
	}
	return env, nil
}

// FileChecksum returns the size in bytes and SHA-256 of the file at path
// and, when the file is gzip-compressed, the SHA-256 of its decompressed
// content (ContentSHA256: what data/aan/SHA256SUMS lists and what reports
// written before the data were bundled recorded as SHA256).
//
// A file that is not regular (a pipe, FIFO, /dev/stdin, process
// substitution) can be read only once: its checksum is the one
// pagerank.OpenInput took while the loader read it
// ([pagerank.StreamedChecksum]), and an error when it was not read to the
// end before; it is never read a second time.
func FileChecksum(path string) (Checksum, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		s, ok := pagerank.StreamedChecksum(path)
		if !ok {
			return Checksum{}, fmt.Errorf("dataset checksum: %s is not a regular file (a pipe?) and was not read to its end before, "+
				"so its size and SHA-256 are unknown; pass a regular file", path)
		}
		return Checksum{File: filepath.ToSlash(path), Bytes: s.Bytes, SHA256: s.SHA256, ContentSHA256: s.ContentSHA256}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return Checksum{}, fmt.Errorf("dataset checksum: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return Checksum{}, fmt.Errorf("dataset checksum: %s: %w", path, err)
	}
	c := Checksum{File: filepath.ToSlash(path), Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}
	content, err := dataset.ContentSHA256(path)
	if err != nil {
		return Checksum{}, fmt.Errorf("dataset checksum: %w", err)
	}
	if content != c.SHA256 {
		c.ContentSHA256 = content
	}
	return c, nil
}

// EnvCommit overrides the git lookup: the GPU host's copy of the tree has no
// .git, so `make gpu-bundle` records the commit and scripts/h200-study.sh
// passes it in PRLAB_COMMIT.
const EnvCommit = "PRLAB_COMMIT"

func gitCommit() string {
	if c := os.Getenv(EnvCommit); c != "" {
		return c
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += "+dirty"
	}
	return c
}

// cpuModel reads the first "model name" of /proc/cpuinfo (Linux), else GOARCH.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// LoadAverage is the 1, 5 and 15 minute load averages from /proc/loadavg
// (Linux), e.g. "3.52 3.63 4.02", or "" where there is none.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// CPUTicks is one reading of the machine's and this process's CPU time in
// clock ticks (USER_HZ): Busy and Total over all cores from /proc/stat's
// "cpu" line (Total adds idle and iowait to Busy), Self this process's
// user + system time from /proc/self/stat (fields 14 and 15, proc(5)).
// OK is false where /proc is absent (not Linux).
type CPUTicks struct {
	Busy, Total, Self uint64
	OK                bool
}

// ReadCPUTicks reads the machine's and this process's CPU ticks now.
func ReadCPUTicks() CPUTicks {
	var t CPUTicks
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return t
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return t
	}
	for i, s := range f[1:] {
		if i >= 8 { // guest and guest_nice are already counted in user and nice
			break
		}
		var v uint64
		if _, err := fmt.Sscan(s, &v); err != nil {
			return t
		}
		t.Total += v
		if i != 3 && i != 4 { // idle, iowait
			t.Busy += v
		}
	}
	b, err = os.ReadFile("/proc/self/stat")
	if err != nil {
		return t
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	_, rest, ok := strings.Cut(string(b), ") ")
	g := strings.Fields(rest)
	if !ok || len(g) < 13 {
		return t
	}
	var ut, st uint64
	if _, err := fmt.Sscan(g[11], &ut); err != nil {
		return t
	}
	if _, err := fmt.Sscan(g[12], &st); err != nil {
		return t
	}
	t.Self, t.OK = ut+st, true
	return t
}

// OtherCPUShare is the share (0..1) of all cores' time between two readings
// that processes other than this one kept busy: (Δbusy − Δself) / Δtotal,
// clamped to [0, 1]. A multi-core CPU implementation uses every core, so
// its time grows by about this share when others compete for the cores;
// nil when either reading failed or no tick passed.
func OtherCPUShare(start, end CPUTicks) *float64 {
	if !start.OK || !end.OK || end.Total <= start.Total {
		return nil
	}
	other := float64(end.Busy-start.Busy) - float64(end.Self-start.Self)
	share := min(max(other/float64(end.Total-start.Total), 0), 1)
	return &share
}
