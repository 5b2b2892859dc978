// Package dataset brings the real citation graph into the project: it copies
// the files listed in a SHA256SUMS manifest from a mirror directory into the
// git-ignored data directory and verifies every checksum. The data files are
// never committed; the manifest and the provenance README are.
package dataset

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// EnvMirror names the environment variable that overrides the mirror directory.
const EnvMirror = "PRLAB_DATA_MIRROR"

// DefaultMirror is the mirror directory used when neither a flag nor
// PRLAB_DATA_MIRROR is set: the shared AAN folder beside the checkout (relative to the working directory, normally the repository root).
const DefaultMirror = "../shared/data/aan"

// Entry is one line of a SHA256SUMS manifest: the hex SHA-256 and the file name.
type Entry struct {
	SHA256 string
	Name   string
}

// ReadManifest parses a sha256sum-format manifest ("<64 hex>  <name>" per
// line). Errors name the file and line.
func ReadManifest(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		fields := strings.Fields(s)
		if len(fields) != 2 || len(fields[0]) != 64 {
			return nil, fmt.Errorf("%s:%d: want \"<64 hex digits>  <file>\", got %q", path, line, s)
		}
		if _, err := hex.DecodeString(fields[0]); err != nil {
			return nil, fmt.Errorf("%s:%d: checksum is not hex: %v", path, line, err)
		}
		name := strings.TrimPrefix(fields[1], "*")
		if name != filepath.Base(name) {
			return nil, fmt.Errorf("%s:%d: file name %q must not contain a directory", path, line, name)
		}
		out = append(out, Entry{SHA256: strings.ToLower(fields[0]), Name: name})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no entries", path)
	}
	return out, nil
}

// FileSHA256 returns the hex SHA-256 of the file at path.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Verify checks every file of the manifest at destDir/SHA256SUMS inside
// destDir and returns the entries. A missing file or a mismatch is an error
// naming the file and both checksums.
func Verify(destDir string) ([]Entry, error) {
	entries, err := ReadManifest(filepath.Join(destDir, "SHA256SUMS"))
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		p := filepath.Join(destDir, e.Name)
		got, err := FileSHA256(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (run `make data` to copy it from the mirror)", p, err)
		}
		if got != e.SHA256 {
			return nil, fmt.Errorf("%s: SHA-256 %s does not match the manifest's %s", p, got, e.SHA256)
		}
	}
	return entries, nil
}

// Fetch copies every file named in destDir/SHA256SUMS from mirrorDir into
// destDir, verifying each checksum before it is put in place (copy to a
// temporary file in destDir, hash, rename), so a bad or partial copy never
// replaces a good file. Files already present with the right checksum are
// kept. Errors: a missing mirror directory or file, a checksum mismatch.
func Fetch(mirrorDir, destDir string) ([]Entry, error) {
	entries, err := ReadManifest(filepath.Join(destDir, "SHA256SUMS"))
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(mirrorDir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("data mirror %s is not a directory (set --mirror or %s to the folder holding %s): %v",
			mirrorDir, EnvMirror, entries[0].Name, err)
	}
	for _, e := range entries {
		dst := filepath.Join(destDir, e.Name)
		if got, err := FileSHA256(dst); err == nil && got == e.SHA256 {
			continue
		}
		src := filepath.Join(mirrorDir, e.Name)
		if err := copyVerified(src, dst, e.SHA256); err != nil {
			return nil, err
		}
	}
	return entries, nil
}

func copyVerified(src, dst, want string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("data mirror: %w", err)
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), in); err != nil {
		tmp.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil { // CreateTemp makes 0600; data files are world-readable
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s: SHA-256 %s does not match the manifest's %s; the mirror holds a different file", src, got, want)
	}
	return os.Rename(tmp.Name(), dst)
}

// ResolveMirror returns flag if set, else $PRLAB_DATA_MIRROR, else DefaultMirror.
func ResolveMirror(flag string) string {
	if flag != "" {
		return flag
	}
	if env := os.Getenv(EnvMirror); env != "" {
		return env
	}
	return DefaultMirror
}
