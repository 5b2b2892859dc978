package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

func setup(t *testing.T, content string) (mirror, dest string) {
	t.Helper()
	mirror, dest = t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(mirror, "edges.txt"), []byte(content), 0o644)
	manifest := sum([]byte("A , B\n")) + "  edges.txt\n"
	os.WriteFile(filepath.Join(dest, "SHA256SUMS"), []byte(manifest), 0o644)
	return mirror, dest
}

func TestFetchCopiesAndVerifies(t *testing.T) {
	mirror, dest := setup(t, "A , B\n")
	if _, err := Fetch(mirror, dest); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "edges.txt")); string(b) != "A , B\n" {
		t.Fatalf("copied %q", b)
	}
	if _, err := Verify(dest); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dest, "edges.txt")); st.Mode().Perm() != 0o644 {
		t.Errorf("fetched file mode %v, want 0644", st.Mode().Perm())
	}
}

func TestFetchMismatchKeepsGoodFile(t *testing.T) {
	mirror, dest := setup(t, "A , C\n") // wrong content in the mirror
	_, err := Fetch(mirror, dest)
	if err == nil || !strings.Contains(err.Error(), "does not match") || !strings.Contains(err.Error(), "edges.txt") {
		t.Fatalf("mismatch: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, "edges.txt")); !os.IsNotExist(err) {
		t.Fatal("a file failing its checksum was put in place")
	}
	entries, _ := os.ReadDir(dest)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestFetchMissingMirror(t *testing.T) {
	_, dest := setup(t, "")
	_, err := Fetch(filepath.Join(dest, "nope"), dest)
	if err == nil || !strings.Contains(err.Error(), "PRLAB_DATA_MIRROR") {
		t.Fatalf("missing mirror: %v", err)
	}
}

func TestVerifyDetectsCorruption(t *testing.T) {
	mirror, dest := setup(t, "A , B\n")
	Fetch(mirror, dest)
	os.WriteFile(filepath.Join(dest, "edges.txt"), []byte("A , X\n"), 0o644)
	if _, err := Verify(dest); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("corruption: %v", err)
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

// The committed manifest matches the real files when they are present.
func TestCommittedManifest(t *testing.T) {
	dest := filepath.Join("..", "..", "data", "aan")
	if _, err := os.Stat(filepath.Join(dest, "acl.txt")); err != nil {
		t.Skip("data/aan not fetched: run `make data`")
	}
	entries, err := Verify(dest)
	if err != nil || len(entries) != 3 {
		t.Fatalf("%d entries, %v", len(entries), err)
	}
}

func TestResolveMirror(t *testing.T) {
	t.Setenv(EnvMirror, "")
	if ResolveMirror("") != DefaultMirror || ResolveMirror("x") != "x" {
		t.Fatal("default/flag")
	}
	t.Setenv(EnvMirror, "/m")
	if ResolveMirror("") != "/m" {
		t.Fatal("env")
	}
}
