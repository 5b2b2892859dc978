package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/prlab/prlab/internal/fixture"
)

func TestCommittedDocument(t *testing.T) {
	root, git := fixture.GitRepo(t)
	doc := []byte(`{"schema":"prlab/results/v1"}`)
	for _, d := range []string{"reports/committed", "reports/staged", "reports/untracked", "reports/scale"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "reports/committed", JSONFile), doc, 0o644)
	os.WriteFile(filepath.Join(root, "reports/committed", "README.md"), []byte("notes"), 0o644)
	os.WriteFile(filepath.Join(root, "reports/scale", ScaleJSONFile), doc, 0o644)
	os.WriteFile(filepath.Join(root, "reports/staged", IncrementalJSONFile), doc, 0o644)
	os.WriteFile(filepath.Join(root, "reports/untracked", JSONFile), doc, 0o644)
	// Only a README tracked: the documents are not, so the folder is not a committed report.
	os.MkdirAll(filepath.Join(root, "reports/readme-only"), 0o755)
	os.WriteFile(filepath.Join(root, "reports/readme-only", "README.md"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "reports/readme-only", JSONFile), doc, 0o644)
	git("add", "reports/committed", "reports/scale", "reports/readme-only/README.md")
	git("commit", "-q", "-m", "reports")
	git("add", "reports/staged")

	for dir, want := range map[string]string{
		"reports/committed":   JSONFile,
		"reports/scale":       ScaleJSONFile,
		"reports/staged":      IncrementalJSONFile, // staged counts as tracked
		"reports/untracked":   "",
		"reports/readme-only": "",
		"reports/missing":     "",
		"reports":             "", // its documents are one level down, not at its top
	} {
		if got := CommittedDocument(filepath.Join(root, dir)); got != want {
			t.Errorf("CommittedDocument(%s) = %q, want %q", dir, got, want)
		}
	}
	tracked, ok := GitTracked(root, "reports")
	if !ok || len(tracked) != 5 || !tracked["reports/committed/results.json"] || !tracked["reports/staged/incremental.json"] || tracked["reports/untracked/results.json"] {
		t.Errorf("GitTracked(root, reports) = %v, %v; want the 5 committed or staged files", tracked, ok)
	}

	// Outside any work tree nothing is committed.
	plain := t.TempDir()
	os.WriteFile(filepath.Join(plain, JSONFile), doc, 0o644)
	if got := CommittedDocument(plain); got != "" {
		t.Errorf("CommittedDocument outside a work tree = %q, want \"\"", got)
	}
	if _, ok := GitTracked(plain); ok {
		t.Error("GitTracked outside a work tree: ok, want not ok")
	}
}
