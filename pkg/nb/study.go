package nb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/prlab/prlab/pkg/dataset"
	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/report"
	"github.com/prlab/prlab/pkg/study"
)

// Data file names inside the graph directory, as its SHA256SUMS lists them
// (stored as NAME.gz in the bundled data/aan).
const (
	EdgeFile   = dataset.EdgeName
	PapersFile = dataset.PapersName
)

// Params are a notebook's parameters (its cell tagged "parameters").
type Params struct {
	// GraphDir is the data directory holding SHA256SUMS, acl.txt(.gz) and
	// papers.tsv(.gz), relative to the checkout (default "data/aan", the
	// bundled graph). Its files are verified against SHA256SUMS
	// (pkg/dataset), as `prlab report` does; nothing is fetched or copied.
	GraphDir string
	// Iterations is the fixed iteration count of the correctness runs (the
	// course uses 100 on both sides).
	Iterations int
	// Impls is a comma-separated list of implementation names ("" = all; the
	// oracle always runs). `prlab list` prints the names.
	Impls string
	// Runs is the number of timed runs per implementation (default 10).
	Runs int
}

func (p Params) withDefaults() Params {
	if p.GraphDir == "" {
		p.GraphDir = "data/aan"
	}
	if p.Iterations == 0 {
		p.Iterations = pagerank.CorrectnessIterations
	}
	if p.Runs == 0 {
		p.Runs = pagerank.TimingRuns
	}
	return p
}

func (p Params) implList() []string {
	var out []string
	for _, s := range strings.Split(p.Impls, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// GPU is the GPU half the notebooks' study runs with: pkg/cudabind through
// study.CUDA, as `prlab report` does. Without libprlab_cuda.so, a driver or a
// device, every GPU row is skipped with the reason. Set it to nil before
// calling Study for a CPU-only run.
var GPU study.GPU = study.CUDA{}

// DataDir resolves p.GraphDir against the checkout and checks its files
// against SHA256SUMS (pkg/dataset: NAME.gz or NAME, decompressed content).
// It returns the directory and the verified entries (each with its Path).
// A missing or changed file is an error naming it and the mend; nothing is
// ever copied or written.
func DataDir(graphDir string) (string, []dataset.Entry, error) {
	dir, err := Path(graphDir)
	if err != nil {
		return "", nil, err
	}
	entries, err := dataset.Verify(dir)
	if err != nil {
		return "", nil, err
	}
	return dir, entries, nil
}

// StudyRun is a study run and where it came from.
type StudyRun struct {
	*report.Run
	CachePath string        // results.json in the cache
	FromCache bool          // loaded from the cache rather than computed by this cell
	Took      time.Duration // computing it (0 when loaded from the cache)
}

// Study runs prlab's main job (pkg/study: every implementation on the six
// synthetic cases and the real graph, validated against the float64 oracle;
// tolerance mode and the timing protocol on the real graph) with the
// notebook's parameters, or loads the same run from the cache: GoNB runs
// the program again for every cell, and this keeps a notebook from
// recomputing (or re-timing) the study in every cell. The cache key is the
// parameters and the data files' SHA-256; the file is
// <CacheDir>/study-<key>/results.json, written with report.Write.
func Study(p Params) (*StudyRun, error) {
	p = p.withDefaults()
	dir, entries, err := DataDir(p.GraphDir)
	if err != nil {
		return nil, err
	}
	var sums, files []string
	for _, e := range entries {
		sums = append(sums, e.Name+"="+e.SHA256)
		files = append(files, e.Path)
	}
	gpuTag := "nogpu"
	if GPU != nil {
		gpuTag = "gpu"
	}
	key := cacheKey(fmt.Sprintf("study|%s|%d|%s|%d|%s|%s", dir, p.Iterations, p.Impls, p.Runs, gpuTag, strings.Join(sums, ",")))
	cfg := study.Config{
		Name:       "notebook",
		GraphName:  "aan",
		EdgeList:   dataset.Lookup(entries, EdgeFile),
		Papers:     dataset.Lookup(entries, PapersFile),
		Datasets:   files,
		Impls:      p.implList(),
		Iterations: p.Iterations,
		Runs:       p.Runs,
		GPU:        GPU,
		Progress:   io.Discard,
	}
	// Reject bad parameters (with the valid range) before touching the cache:
	// study.Run applies the same checks after filling in its defaults.
	check := cfg
	check.Entries = study.Registry(GPU)
	check.TimingIterations, check.Warmups, check.FloatTolerance, check.OracleTolerance, check.MaxIterations =
		pagerank.TimingIterations, pagerank.TimingWarmups, pagerank.FloatTolerance, pagerank.OracleTolerance, pagerank.MaxIterationsCap
	if err := check.Validate(); err != nil {
		return nil, err
	}
	cache, err := CacheDir()
	if err != nil {
		return nil, err
	}
	out := filepath.Join(cache, "study-"+key)
	path := filepath.Join(out, report.JSONFile)
	var took time.Duration
	run, fromCache, err := cachedCompute(cache, out+".lock",
		func() (*report.Run, bool) { run, err := report.Read[report.Run](path); return run, err == nil },
		func() (*report.Run, error) {
			start := time.Now()
			run, err := study.Run(context.Background(), cfg)
			took = time.Since(start)
			return run, err
		},
		func(run *report.Run) error {
			if err := report.Write(out, run); err != nil {
				return fmt.Errorf("cache the study run: %w", err)
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	return &StudyRun{Run: run, CachePath: path, FromCache: fromCache, Took: took}, nil
}

// Cached returns the value compute returns, computing it only when
// <CacheDir>/<name>.json does not hold it yet (JSON; written atomically).
// name must be a file name; key parameters belong in it (see CacheKey).
func Cached[T any](name string, compute func() (T, error)) (T, error) {
	var zero T
	cache, err := CacheDir()
	if err != nil {
		return zero, err
	}
	path := filepath.Join(cache, name+".json")
	v, _, err := cachedCompute(cache, path+".lock",
		func() (T, bool) {
			var v T
			b, err := os.ReadFile(path)
			ok := err == nil && json.Unmarshal(b, &v) == nil
			return v, ok
		},
		compute,
		func(v T) error {
			b, err := json.Marshal(v)
			if err != nil {
				return fmt.Errorf("cache %s: %w", name, err)
			}
			return report.WriteFileAtomic(path, b)
		})
	return v, err
}

// cachedCompute is the notebook cache's protocol: read the cached value;
// failing that, create the cache directory, take the lock file lockPath
// (one computation per value across kernels), read again (another kernel
// may have computed it while this one waited), and only then compute and
// write it. fromCache says the value was read.
func cachedCompute[T any](cache, lockPath string, read func() (T, bool), compute func() (T, error), write func(T) error) (v T, fromCache bool, err error) {
	if v, ok := read(); ok {
		return v, true, nil
	}
	var zero T
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return zero, false, err
	}
	unlock, err := lockFile(lockPath)
	if err != nil {
		return zero, false, err
	}
	defer unlock()
	if v, ok := read(); ok { // computed while we waited
		return v, true, nil
	}
	if v, err = compute(); err != nil {
		return zero, false, err
	}
	if err := write(v); err != nil {
		return zero, false, err
	}
	return v, false, nil
}

// CacheKey is a short hex digest of the parts, for cache names.
func CacheKey(parts ...any) string { return cacheKey(fmt.Sprint(parts...)) }

func cacheKey(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// ClearCache removes the notebooks' results cache.
func ClearCache() error {
	cache, err := CacheDir()
	if err != nil {
		return err
	}
	return os.RemoveAll(cache)
}

// LoadGraph loads the real graph and its paper metadata from the (verified)
// data directory graphDir, e.g. "data/aan".
func LoadGraph(graphDir string) (*pagerank.Graph, *pagerank.Papers, error) {
	_, entries, err := DataDir(graphDir)
	if err != nil {
		return nil, nil, err
	}
	g, err := pagerank.LoadEdgeList(dataset.Lookup(entries, EdgeFile), "aan")
	if err != nil {
		return nil, nil, err
	}
	papers, err := pagerank.LoadPapers(dataset.Lookup(entries, PapersFile))
	if err != nil {
		return nil, nil, err
	}
	return g, papers, nil
}

// CommittedRun is a results.json committed under reports/ (a real run's
// report, see DESIGN.md) and its path relative to the checkout.
type CommittedRun struct {
	*report.Run
	Path string
}

// CommittedGPURuns returns every committed report under <checkout>/reports
// (reports/*/results.json and reports/*/*/results.json) whose run measured a
// GPU, newest first (by the run's date). Files that do not read as a
// results.json are skipped.
func CommittedGPURuns() ([]CommittedRun, error) {
	runs, err := committedReports([]string{"reports/*/" + report.JSONFile, "reports/*/*/" + report.JSONFile}, report.Read[report.Run],
		func(r *report.Run) (bool, string) { return r.GPU != nil, r.Env.Date },
		func(r *report.Run, path string) CommittedRun { return CommittedRun{r, path} })
	// GPU runs sort first: keep them, newest first.
	i := slices.IndexFunc(runs, func(r CommittedRun) bool { return r.GPU == nil })
	if i >= 0 {
		runs = runs[:i]
	}
	return runs, err
}

// committedFilter returns a test of whether a path (relative to the
// checkout root, under reports/) is a committed report: not a scratch
// output (scratchReport) and, when root is a git work tree, tracked by git
// (committed or staged). Folders a run left under reports/ without
// committing them (a loaded machine's trial run, say) are not reports the
// notebooks present. Without git, or outside a work tree, every
// non-scratch path counts.
func committedFilter(root string) func(rel string) bool {
	tracked, useGit := report.GitTracked(root, "reports")
	return func(rel string) bool {
		rel = filepath.ToSlash(rel)
		if scratchReport(rel) {
			return false
		}
		if !useGit {
			return true
		}
		if tracked[rel] {
			return true
		}
		// A folder: tracked when any file under it is.
		for f := range tracked {
			if strings.HasPrefix(f, strings.TrimSuffix(rel, "/")+"/") {
				return true
			}
		}
		return false
	}
}

// scratchReport reports whether a results path under reports/ is a run's
// scratch output (reports/latest, reports/*-latest: git-ignored, never
// committed) rather than a committed report.
func scratchReport(rel string) bool {
	for _, part := range strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/") {
		if part == "latest" || strings.HasSuffix(part, "-latest") {
			return true
		}
	}
	return false
}

// StagesSource picks the run notebook 03 draws its stage table and x DRAM
// chart from, and says which in Markdown: this notebook's own run when it
// measured a GPU; else the newest GPU report committed under reports/; else
// this machine's CPU-only run, saying plainly that no GPU numbers exist yet.
func StagesSource(s *StudyRun) (Source, error) {
	if s.GPU != nil {
		return Source{s.Run, fmt.Sprintf("**Source: this notebook's own run**, measured just now on %s (compute capability %s).", s.GPU.Name, s.GPU.ComputeCapability)}, nil
	}
	runs, err := CommittedGPURuns()
	if err != nil {
		return Source{}, err
	}
	if len(runs) > 0 {
		r := runs[0]
		return Source{r.Run, fmt.Sprintf("**Source: the committed report `%s`** (this machine has no GPU; notebook 01 says why), measured on %s (compute capability %s), driver %s, runtime %s, on %s at commit %s.",
			r.Path, r.GPU.Name, r.GPU.ComputeCapability, r.GPU.Driver, r.GPU.Runtime, r.Env.Date, r.Env.Commit)}, nil
	}
	return Source{s.Run, fmt.Sprintf("**Source: this machine's CPU-only run. There are no GPU numbers here.** This machine has no GPU (%s), and no GPU report is committed under `reports/` yet. "+
		"The stage table and the x DRAM chart need CUDA-event stage timings and the device-to-device copy rows, so they stay empty below; "+
		"the CPU timing rows (Go's monotonic clock) are what this machine can measure. Once a GPU report (results.json with a GPU context) is committed under `reports/`, this notebook loads it instead.", report.ShortReason(s.GPUSkipped)) + ReportsIndex()}, nil
}

// ReportsIndex is a Markdown sentence listing the folders under reports/
// and what each holds for these notebooks: a study report (results.json,
// with or without a GPU), a scale report (scale.json), or other files (raw
// logs and JSON of other tools, which the notebooks do not read).
func ReportsIndex() string {
	root, err := Root()
	if err != nil {
		return ""
	}
	dirs, err := os.ReadDir(filepath.Join(root, "reports"))
	if err != nil {
		return ""
	}
	committed := committedFilter(root)
	var items []string
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "notebooks" || strings.HasPrefix(d.Name(), ".") || !committed(filepath.Join("reports", d.Name())) {
			continue
		}
		dir := filepath.Join(root, "reports", d.Name())
		what := "other files, not a report these notebooks read"
		if run, err := report.Read[report.Run](filepath.Join(dir, report.JSONFile)); err == nil {
			what = "study report, no GPU"
			if run.GPU != nil {
				what = "study report on " + run.GPU.Name
			}
		} else if sc, err := report.Read[report.ScaleStudy](filepath.Join(dir, "scale.json")); err == nil {
			what = "scale-study report, no GPU"
			if sc.GPU != nil {
				what = "scale-study report on " + sc.GPU.Name
			}
		}
		items = append(items, fmt.Sprintf("`%s` (%s)", d.Name(), what))
	}
	if len(items) == 0 {
		return ""
	}
	return " Committed under `reports/`: " + strings.Join(items, ", ") + "."
}

// Source is the run a notebook draws from and a Markdown line saying which
// run that is (see StagesSource).
type Source struct {
	Run      *report.Run
	Markdown string
}
