package nb

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Limits on the committed notebook files (tools/nbrun.py writes them): the
// exports share one copy of ECharts and of nbconvert's stylesheets under
// reports/notebooks/assets, and the committed notebooks leave ECharts out,
// so the tracked tree stays small (the GPU tool carries at most 64 MiB).
const (
	// exportInlineMax is the longest <script> or <style> body an export may
	// inline, in bytes; a chart's script is about 12 KB, ECharts 1 MB.
	exportInlineMax = 64 << 10
	// notebookOutputMax is the longest output (one MIME type of one output)
	// a committed notebook may hold, in bytes; the largest table is 180 KB.
	notebookOutputMax = 256 << 10
)

var (
	inlineElement = regexp.MustCompile(`(?is)<(script|style)\b([^>]*)>(.*?)</(?:script|style)>`)
	localRef      = regexp.MustCompile(`(?i)<(?:script|link)\b[^>]*\b(?:src|href)\s*=\s*"([^"]+)"`)
	libraryElem   = regexp.MustCompile(`(?i)<script\b[^>]*\b` + LibraryAttr + `\b`)
)

// TestCommittedNotebookExportsShareAssets checks the committed exports
// reports/notebooks/*.html: no inline script or stylesheet over
// exportInlineMax, every script and stylesheet they load is a file of
// reports/notebooks/assets (relative URL, so file:// works in a clone), each
// page loads ECharts from there, and every file there is loaded by a page.
func TestCommittedNotebookExportsShareAssets(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "reports", "notebooks")
	pages, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	if len(pages) == 0 {
		t.Fatalf("no %s/*.html (make notebooks-commit writes them)", dir)
	}
	used := map[string]bool{}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		name := filepath.Base(p)
		for _, m := range inlineElement.FindAllStringSubmatch(page, -1) {
			if len(m[3]) > exportInlineMax {
				t.Errorf("%s: inline <%s%s> holds %d bytes (at most %d): tools/nbrun.py share_assets should have moved it to assets/", name, m[1], m[2], len(m[3]), exportInlineMax)
			}
		}
		echarts := false
		for _, m := range localRef.FindAllStringSubmatch(page, -1) {
			ref := m[1]
			if !strings.HasPrefix(ref, "assets/") || strings.Contains(ref, "..") {
				t.Errorf("%s loads %q: want a relative assets/ URL (offline, from any clone)", name, ref)
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(ref))); err != nil {
				t.Errorf("%s loads %s, which is missing: %v", name, ref, err)
			}
			used[strings.TrimPrefix(ref, "assets/")] = true
			echarts = echarts || strings.HasPrefix(ref, "assets/prlab-echarts-")
		}
		if !echarts {
			t.Errorf("%s does not load assets/prlab-echarts-*.js (every notebook's setup cell loads ECharts)", name)
		}
	}
	files, err := os.ReadDir(filepath.Join(dir, "assets"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !used[f.Name()] {
			t.Errorf("reports/notebooks/assets/%s is loaded by no page (tools/nbrun.py prune_assets removes such files)", f.Name())
		}
	}
}

// TestCommittedNotebooksAreThin checks notebooks/[0-9]*.ipynb: no output over
// notebookOutputMax and no copy of ECharts (LibraryAttr's element; the
// committed copy holds a stand-in that sets LibraryOmittedFlag).
func TestCommittedNotebooksAreThin(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(root, "notebooks", "[0-9]*.ipynb"))
	if len(paths) == 0 {
		t.Fatal("no notebooks/[0-9]*.ipynb")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Cells []struct {
				Outputs []struct {
					Data map[string]json.RawMessage `json:"data"`
				} `json:"outputs"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		name := filepath.Base(p)
		for i, c := range doc.Cells {
			for _, o := range c.Outputs {
				for mime, raw := range o.Data {
					var text string
					var lines []string
					if json.Unmarshal(raw, &lines) == nil {
						text = strings.Join(lines, "")
					} else if json.Unmarshal(raw, &text) != nil {
						text = string(raw)
					}
					if len(text) > notebookOutputMax {
						t.Errorf("%s cell %d: %s output of %d bytes (at most %d)", name, i, mime, len(text), notebookOutputMax)
					}
					if libraryElem.MatchString(text) {
						t.Errorf("%s cell %d: the output holds ECharts (<script %s>); tools/nbrun.py --inplace leaves it out", name, i, LibraryAttr)
					}
				}
			}
		}
	}
}
