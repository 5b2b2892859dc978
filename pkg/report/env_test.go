package report

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/prlab/prlab/internal/fixture"
	"github.com/prlab/prlab/pkg/pagerank"
)

// TestFileChecksumOfAPipe: a graph given as a FIFO (what `cat g | prlab
// report --graph /dev/stdin` is) is read once; its size and SHA-256 are the
// bytes the loader read, not those of a second, empty read.
func TestFileChecksumOfAPipe(t *testing.T) {
	content := []byte("# a SNAP graph\n0 1\n1 2\n2 0\n2 1\n")
	gz := fixture.Gzip(t, content)
	for _, tc := range []struct {
		name          string
		data          []byte
		wantSHA       string
		wantContentSH string
	}{
		{"plain", content, fixture.SHA256(content), ""},
		{"gzip", gz, fixture.SHA256(gz), fixture.SHA256(content)},
	} {
		fifo := filepath.Join(t.TempDir(), "graph-"+tc.name)
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan error, 1)
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				_, err = f.Write(tc.data)
				f.Close()
			}
			done <- err
		}()
		g, _, err := pagerank.LoadGraph(fifo, "piped", pagerank.LoadOptions{Format: pagerank.FormatSNAP})
		if err != nil {
			t.Fatalf("%s: load: %v", tc.name, err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if g.N != 3 || g.NNZ != 4 {
			t.Errorf("%s: n=%d nnz=%d, want 3 and 4", tc.name, g.N, g.NNZ)
		}
		c, err := FileChecksum(fifo) // must not open the FIFO again (it would block: no writer)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c.Bytes != int64(len(tc.data)) || c.SHA256 != tc.wantSHA || c.ContentSHA256 != tc.wantContentSH {
			t.Errorf("%s: checksum %+v, want %d bytes, sha256 %s, content %q", tc.name, c, len(tc.data), tc.wantSHA, tc.wantContentSH)
		}
		if c.SHA256 == fixture.SHA256(nil) {
			t.Errorf("%s: the SHA-256 of empty input", tc.name)
		}
	}
	// A FIFO nobody read: a clear error, at once (no read that would wait).
	fifo := filepath.Join(t.TempDir(), "unread")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, err := FileChecksum(fifo); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Errorf("unread FIFO: error %v", err)
	}
}

// A gzip input records the SHA-256 of its decompressed content too, so a
// report on data/aan/acl.txt.gz has the same data as one on acl.txt.
func TestFileChecksumOfCompressedInput(t *testing.T) {
	dir, body := t.TempDir(), "A , B\nB , C\n"
	plain, gz := fixture.WriteFile(t, dir, "acl.txt", body), fixture.WriteFile(t, dir, "acl.txt.gz", body)
	p, err := FileChecksum(plain)
	if err != nil {
		t.Fatal(err)
	}
	z, err := FileChecksum(gz)
	if err != nil {
		t.Fatal(err)
	}
	if want := fixture.SHA256([]byte(body)); p.SHA256 != want || p.ContentSHA256 != "" || z.ContentSHA256 != want || z.SHA256 == want || z.Content() != p.Content() {
		t.Errorf("plain %+v, gzip %+v, content %s", p, z, want)
	}
	a := EvidenceOfRun(&Run{Name: "a", Env: Environment{Datasets: []Checksum{p}}, Graph: GraphSummary{Path: plain}}, "")
	b := EvidenceOfRun(&Run{Name: "b", Env: Environment{Datasets: []Checksum{z}}, Graph: GraphSummary{Path: gz}}, "")
	if _, err := SameData(a, b); err != nil {
		t.Errorf("acl.txt and acl.txt.gz of one content: %v", err)
	}
}
