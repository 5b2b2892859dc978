// Package dataset is the real graph that ships with the repository: the ACL
// Anthology Network citation graph in data/aan (acl.txt.gz, papers.tsv.gz),
// committed gzip-compressed, with a SHA256SUMS manifest of the decompressed
// content. Verify checks the files before use; prlab never downloads, copies
// or repairs data: a mismatch is an error that says how to restore the
// files (`git checkout data/aan`).
package dataset

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Title says what the bundled graph is, for pages that name it.
const Title = "ACL Anthology Network citation graph"

// Dir is the bundled graph's folder, relative to the repository root.
const Dir = "data/aan"

// Names of the bundled files as the manifest lists them (decompressed);
// on disk each is stored as NAME.gz.
const (
	EdgeName   = "acl.txt"    // edges "CITING , CITED", one per line
	PapersName = "papers.tsv" // metadata: id, year, title, title_source, in_citation_graph
)

// IsEdgeFile reports whether path names a data folder's edge list
// (EdgeName, maybe gzipped): the graph of a run read from data/aan or a
// folder laid out like it (--data), the study's real graph, rather than a
// graph file a user brought (--graph FILE).
func IsEdgeFile(path string) bool {
	return strings.TrimSuffix(filepath.Base(path), ".gz") == EdgeName
}

// Mend is what a user runs to restore the bundled files.
const Mend = "git checkout " + Dir

// Entry is one line of a SHA256SUMS manifest: the hex SHA-256 of the
// decompressed content, the name in the manifest, and the file that holds it
// (Name, or Name.gz when that exists), set by Verify.
type Entry struct {
	SHA256 string
	Name   string
	Path   string
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

// ContentSHA256 returns the hex SHA-256 of the content of the file at path,
// decompressed when the file starts with the gzip magic bytes. The file is
// opened read-only.
func ContentSHA256(path string) (string, error) {
	r, err := pagerank.OpenInput(path)
	if err != nil {
		return "", err
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Verify checks every file of the manifest dir/SHA256SUMS: for each entry
// NAME it reads dir/NAME.gz (or dir/NAME when there is no .gz), decompresses
// it and compares the SHA-256 of the content. It returns the entries with
// Path set. A missing file or a mismatch is an error naming the file, the
// expected and the actual SHA-256 and, for the bundled folder, the mend.
// Nothing is ever written.
func Verify(dir string) ([]Entry, error) {
	entries, err := ReadManifest(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		return nil, err
	}
	for i, e := range entries {
		p := filepath.Join(dir, e.Name+".gz")
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			if _, err := os.Stat(filepath.Join(dir, e.Name)); err == nil {
				p = filepath.Join(dir, e.Name)
			}
		}
		got, err := ContentSHA256(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w%s", p, unwrapPath(err), mend(dir))
		}
		if got != e.SHA256 {
			return nil, fmt.Errorf("%s: content SHA-256 %s, but %s expects %s for %s: the file was changed%s",
				p, got, filepath.Join(dir, "SHA256SUMS"), e.SHA256, e.Name, mend(dir))
		}
		entries[i].Path = p
	}
	return entries, nil
}

// unwrapPath drops the *PathError's repeated path, keeping "no such file or directory".
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// mend is the advice after a failed check of dir: the git command for the
// bundled folder, nothing for another folder.
func mend(dir string) string {
	if filepath.ToSlash(filepath.Clean(dir)) == Dir || strings.HasSuffix(filepath.ToSlash(filepath.Clean(dir)), "/"+Dir) {
		return "; restore the bundled files with `" + Mend + "`"
	}
	return ""
}

// Lookup returns the path of the manifest entry name among entries, or "".
func Lookup(entries []Entry, name string) string {
	for _, e := range entries {
		if e.Name == name {
			return e.Path
		}
	}
	return ""
}
