package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/internal/fixture"
)

// folder writes a manifest for "A , B\n" under the name edges.txt and the
// given files.
func folder(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	fixture.WriteFile(t, dir, "SHA256SUMS", fixture.SHA256([]byte("A , B\n"))+"  edges.txt\n")
	for name, b := range files {
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	return dir
}

func TestVerifyReadsGzipContent(t *testing.T) {
	dir := fixture.WriteDataset(t, t.TempDir(), map[string]string{"edges.txt.gz": "A , B\n"})
	entries, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Path != filepath.Join(dir, "edges.txt.gz") || entries[0].SHA256 != fixture.SHA256([]byte("A , B\n")) {
		t.Fatalf("entries %+v", entries)
	}
	// A plain file stands in when there is no .gz.
	dir = fixture.WriteDataset(t, t.TempDir(), map[string]string{"edges.txt": "A , B\n"})
	if entries, err := Verify(dir); err != nil || entries[0].Path != filepath.Join(dir, "edges.txt") {
		t.Fatalf("plain: %+v %v", entries, err)
	}
}

// A changed file is an error naming it, both checksums and (for the bundled
// folder) the mend; the file is left exactly as it was.
func TestVerifyMismatchNamesBothSumsAndWritesNothing(t *testing.T) {
	changed := fixture.Gzip(t, []byte("A , C\n"))
	dir := folder(t, map[string][]byte{"edges.txt.gz": changed})
	_, err := Verify(dir)
	if err == nil {
		t.Fatal("no error for a changed file")
	}
	for _, want := range []string{filepath.Join(dir, "edges.txt.gz"), fixture.SHA256([]byte("A , C\n")), fixture.SHA256([]byte("A , B\n")), "was changed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "edges.txt.gz")); !bytes.Equal(b, changed) {
		t.Error("the changed file was rewritten")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files appeared: %v", entries)
	}
	// The bundled folder's error says how to restore it.
	bundled := filepath.Join(t.TempDir(), "data", "aan")
	os.MkdirAll(bundled, 0o755)
	os.WriteFile(filepath.Join(bundled, "SHA256SUMS"), []byte(fixture.SHA256([]byte("A , B\n"))+"  edges.txt\n"), 0o644)
	os.WriteFile(filepath.Join(bundled, "edges.txt.gz"), changed, 0o644)
	if _, err := Verify(bundled); err == nil || !strings.Contains(err.Error(), "`git checkout data/aan`") {
		t.Errorf("bundled mismatch: %v", err)
	}
}

func TestVerifyMissingAndCorrupt(t *testing.T) {
	dir := folder(t, nil)
	if _, err := Verify(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "edges.txt.gz")+": no such file") {
		t.Errorf("missing: %v", err)
	}
	trunc := fixture.Gzip(t, []byte("A , B\n"))
	dir = folder(t, map[string][]byte{"edges.txt.gz": trunc[:len(trunc)-6]})
	if _, err := Verify(dir); err == nil || !strings.Contains(err.Error(), "edges.txt.gz") || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("truncated gzip: %v", err)
	}
}

func TestReadManifestErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "SHA256SUMS")
	os.WriteFile(p, []byte("abc  x.txt\n"), 0o644)
	if _, err := ReadManifest(p); err == nil || !strings.Contains(err.Error(), "SHA256SUMS:1") {
		t.Fatalf("%v", err)
	}
}

// The committed bundle verifies: both files, gzip-compressed, the manifest's
// checksums those of the staging's files (data/aan/README.md).
func TestCommittedBundle(t *testing.T) {
	entries, err := Verify(filepath.Join("..", "..", Dir))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		EdgeName:   "ad409b91a9f3c7e185ec380f5f08251949d61fc0cbe9a9845d13695f28b5880b",
		PapersName: "c98f745499bce6266687acdde67347d16e3910f579f76ee6d5392fdd4caf762d",
	}
	if len(entries) != len(want) {
		t.Fatalf("%d entries, want %d", len(entries), len(want))
	}
	for _, e := range entries {
		if want[e.Name] != e.SHA256 || !strings.HasSuffix(e.Path, e.Name+".gz") {
			t.Errorf("entry %+v", e)
		}
	}
}
