// Package nb holds what prlab's GoNB notebooks (notebooks/*.ipynb) call:
// the notebooks stay thin, every computation is in pkg/, and every table,
// chart and finding is a pkg/report fragment, the same one index.html shows;
// this package wraps those fragments for GoNB cells. A notebook cell does
//
//	nb.Show(nb.CorrectnessTable(run))
//
// and nothing else. Functions that build HTML return it as a string (they are
// tested without a kernel); Show, ShowMarkdown and Setup send it to the
// notebook through GoNB's gonbui.
//
// GoNB compiles and runs the whole program again for every cell, so anything
// expensive goes through Cached, which keeps its JSON result under CacheDir()
// (notebooks/.cache by default) and returns it on the next cell.
package nb

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
)

// EnvRoot names the environment variable holding the prlab checkout; the
// kernel spec written by `make kernel` (tools/nbkernel) sets it.
const EnvRoot = "PRLAB_ROOT"

// EnvCache overrides the cache directory (default <root>/notebooks/.cache).
const EnvCache = "PRLAB_NB_CACHE"

// Root returns the prlab checkout: $PRLAB_ROOT if set, else the first
// directory at or above $GONB_DIR (the notebook's directory in GoNB) or the
// working directory that holds a go.mod naming module github.com/prlab/prlab.
func Root() (string, error) {
	if r := os.Getenv(EnvRoot); r != "" {
		if isRoot(r) {
			return filepath.Abs(r)
		}
		return "", fmt.Errorf("%s=%s is not a prlab checkout (no go.mod of github.com/prlab/prlab there)", EnvRoot, r)
	}
	var starts []string
	if d := os.Getenv("GONB_DIR"); d != "" {
		starts = append(starts, d)
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, s := range starts {
		d, err := filepath.Abs(s)
		if err != nil {
			continue
		}
		for {
			if isRoot(d) {
				return d, nil
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	return "", fmt.Errorf("cannot find the prlab checkout: set %s, or start Jupyter inside the checkout", EnvRoot)
}

func isRoot(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	return err == nil && strings.Contains(string(b), "module github.com/prlab/prlab\n")
}

// Path resolves p against the checkout when it is relative ("data/aan" ->
// <root>/data/aan); an absolute p is returned unchanged.
func Path(p string) (string, error) {
	if filepath.IsAbs(p) {
		return p, nil
	}
	root, err := Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, p), nil
}

// CacheDir returns $PRLAB_NB_CACHE, else <root>/notebooks/.cache (git-ignored).
func CacheDir() (string, error) {
	if d := os.Getenv(EnvCache); d != "" {
		return d, nil
	}
	root, err := Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "notebooks", ".cache"), nil
}

// Show displays an HTML fragment as the cell's output and waits until GoNB
// has forwarded it (gonbui.Sync: without it, large outputs written just
// before the program exits are dropped silently).
func Show(html string) {
	gonbui.DisplayHTML(html)
	gonbui.Sync()
	checkPipe()
}

// checkPipe stops the cell when GoNB's display pipe broke: the output would
// be lost silently otherwise.
func checkPipe() {
	if gonbui.IsNotebook {
		if err := gonbui.Error(); err != nil {
			panic(fmt.Errorf("display to the notebook failed: %w", err))
		}
	}
}

// ShowMarkdown displays Markdown as the cell's output (and syncs).
func ShowMarkdown(md string) {
	gonbui.DisplayMarkdown(md)
	gonbui.Sync()
	checkPipe()
}

// Must stops the cell with err: it panics, so the program exits non-zero and
// GoNB reports the cell as failed (a headless run then fails too).
func Must(err error) {
	if err != nil {
		panic(err)
	}
}

// Must1 returns v, or stops the cell with err (see Must).
func Must1[T any](v T, err error) T {
	Must(err)
	return v
}

// Must2 returns a and b, or stops the cell with err (see Must).
func Must2[A, B any](a A, b B, err error) (A, B) {
	Must(err)
	return a, b
}

// Setup is the first Go call of every notebook: it checks that the notebook
// imports the checkout it sits in, shows where the checkout and the cache are,
// and loads ECharts into the page (LibraryHTML). It returns the checkout.
func Setup() string {
	root := Must1(Root())
	cache := Must1(CacheDir())
	// Paths relative to the checkout: an output names no machine path.
	Show(LibraryHTML() + fmt.Sprintf(`<div style="font:12px sans-serif;color:#666">prlab checkout found (<code>%s</code>, or the notebook's parent directory); results cache <code>%s</code> (delete it, or call <code>nb.ClearCache()</code>, to recompute).</div>`,
		EnvRoot, escape(relToRoot(cache))))
	return root
}
