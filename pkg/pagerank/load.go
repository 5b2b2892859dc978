package pagerank

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// ParseError is a bad line in an input file: the file, the 1-based line
// number and the problem.
type ParseError struct {
	File    string
	Line    int
	Problem string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Problem)
}

// ReadError is a file that could not be read to its end (a gzip file cut
// short or corrupt, an I/O error): the file, the first line not read
// whole (1-based), and the reader's error (its own "FILE: " prefix
// dropped from the message; errors.Is and errors.As see it).
type ReadError struct {
	File string
	Line int
	Err  error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("%s:%d: reading stopped at this line: %s", e.File, e.Line, strings.TrimPrefix(e.Err.Error(), e.File+": "))
}

func (e *ReadError) Unwrap() error { return e.Err }

// EdgeList is a parsed edge list: dense node indices, one entry per edge
// line (self-loops and duplicates included), and the node ids.
type EdgeList struct {
	IDs      []string // dense index -> id (string ids: in order of first appearance); nil when the ids are the indices (+ IDBase)
	N        int      // node count when IDs is nil (integer formats: isolated nodes included)
	IDBase   int      // with IDs nil: node v's id is v + IDBase (1 for MatrixMarket)
	Src, Dst []int32  // edge i is Src[i] -> Dst[i]
	Notes    []string // what the reader ignored (weights, extra columns)
}

// Nodes is the node count n.
func (el *EdgeList) Nodes() int {
	if el.IDs != nil {
		return len(el.IDs)
	}
	return el.N
}

// maxNodes and maxEdges are the largest node and edge counts an
// int32-indexed Graph can hold (the row pointer has n+1 int32 entries and
// holds values up to nnz). They are variables only so that tests can lower
// them and exercise the limit checks without allocating 2^31 of anything.
var (
	maxNodes = math.MaxInt32 - 1
	maxEdges = math.MaxInt32
)

// ParseEdgeList reads an edge list from r. name is used in error messages
// (normally the file path).
//
// Accepted line forms: "CITING , CITED" (the ACL Anthology Network form),
// "CITING ==> CITED" (the original AAN release), "A,B", and whitespace- or
// tab-separated "A B" (SNAP style). Blank lines and
// lines starting with '#' or '%' are ignored, as is a UTF-8 byte-order mark at
// the start, CR before LF, and leading/trailing whitespace. Every other line
// must have exactly two non-empty ids of valid UTF-8 with no whitespace or
// control or format character inside (so a mixed "A B , C" is an error, not
// the id "A B", and an id with a zero-width space or a bidi mark is an error,
// not a look-alike second node) that do not start with '#' or '%' (so "A
// #note" is an error, not an edge to "#note"). Ids are normalised to NFC.
// Errors are *ParseError values naming the file, line and problem.
func ParseEdgeList(r io.Reader, name string) (*EdgeList, error) {
	el := &EdgeList{}
	var t idTable
	intern := t.intern
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if !utf8.Valid(b) {
			return nil, &ParseError{name, line, "line is not valid UTF-8"}
		}
		s := strings.TrimSpace(string(b))
		if s == "" || s[0] == '#' || s[0] == '%' {
			continue
		}
		var fields []string
		if strings.Contains(s, "==>") {
			fields = strings.Split(s, "==>")
			for i := range fields {
				fields[i] = strings.TrimSpace(fields[i])
			}
		} else if strings.Contains(s, ",") {
			fields = strings.Split(s, ",")
			for i := range fields {
				fields[i] = strings.TrimSpace(fields[i])
			}
		} else {
			fields = strings.Fields(s)
		}
		if len(fields) != 2 {
			return nil, &ParseError{name, line, fmt.Sprintf("want 2 fields (CITING , CITED), got %d in %q", len(fields), clip(s))}
		}
		if fields[0] == "" || fields[1] == "" {
			return nil, &ParseError{name, line, fmt.Sprintf("empty node id in %q", clip(s))}
		}
		for _, id := range fields {
			if id != "" && (id[0] == '#' || id[0] == '%') { // "A #cites" would make "#cites" a node that can never cite
				return nil, &ParseError{name, line, fmt.Sprintf("node id %q starts with a comment character (comments must start their line)", clip(id))}
			}
			if r, bad := badIDRune(id); bad {
				return nil, &ParseError{name, line, fmt.Sprintf("node id %q contains %U (whitespace or a control character; separate the two ids with one of \" , \", \",\", tabs or spaces, not a mix)", clip(id), r)}
			}
		}
		if len(el.Src) >= maxEdges {
			return nil, &ParseError{name, line, fmt.Sprintf("more than %d edges (int32 index limit)", maxEdges)}
		}
		u, err := intern(fields[0])
		if err == nil {
			var v int32
			v, err = intern(fields[1])
			el.Src = append(el.Src, u)
			el.Dst = append(el.Dst, v)
		}
		if err != nil {
			return nil, &ParseError{name, line, err.Error()}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &ParseError{name, line + 1, "line longer than 16 MiB"}
		}
		return nil, fmt.Errorf("%s: read after line %d: %w", name, line, err)
	}
	if len(el.Src) == 0 {
		return nil, fmt.Errorf("%s: no edges (the file is empty or holds only comments)", name)
	}
	el.IDs = t.ids
	return el, nil
}

// badIDRune reports the first rune of id that has no place in a node id:
// whitespace (a mixed separator such as "A B , C"), a control character
// (NUL, ^Z, a lone CR) or a byte-order mark that is not at the start of the
// file (two files concatenated). Such ids would otherwise silently become
// distinct nodes.
func badIDRune(id string) (rune, bool) {
	for _, r := range id {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '\ufeff' {
			return r, true
		}
	}
	return 0, false
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// LoadEdgeList reads the edge-list file at path, gzip-compressed or not (see OpenInput; ParseEdgeList for the
// format) and builds its Graph: the node set is every id that appears in the
// file; self-loops and duplicate edges are dropped and counted.
//
// The format is sniffed (LoadGraph with default options): acl.txt is read as
// FormatAAN, a .el file as GAP's edge list, and so on.
func LoadEdgeList(path, name string) (*Graph, error) {
	return LoadEdgeListContext(context.Background(), path, name)
}

// LoadEdgeListContext is LoadEdgeList that stops soon after ctx is done
// (LoadGraphContext).
func LoadEdgeListContext(ctx context.Context, path, name string) (*Graph, error) {
	g, _, err := LoadGraphContext(ctx, path, name, LoadOptions{})
	return g, err
}

// OpenInput opens the input file at path read-only and returns its content:
// decompressed when the file starts with the gzip magic bytes 1f 8b (RFC
// 1952; any name, .gz or not), as is otherwise. A directory is an error
// naming it. Close closes the file.
//
// A file that is not regular (a pipe, FIFO, /dev/stdin, process
// substitution) can be read once only, so its size and SHA-256 are taken
// while the caller reads it: the raw bytes (and, for gzip, the decompressed
// ones) go through SHA-256 on their way, and Close, when the caller read to
// the end, records the checksum for [StreamedChecksum]. Regular files pay
// nothing for this.
func OpenInput(path string) (io.ReadCloser, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	var src io.Reader = f
	var raw *streamHash
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		raw = &streamHash{h: sha256.New(), r: f}
		src = raw
	}
	br := bufio.NewReaderSize(src, 1<<16)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: gzip: %w", path, err)
		}
		g := &gzipFile{zr: zr, f: f, path: path}
		if raw != nil {
			g.stream = &streamed{path: path, raw: raw, content: &streamHash{h: sha256.New()}}
		}
		return g, nil
	}
	p := &plainFile{Reader: br, f: f}
	if raw != nil {
		p.stream = &streamed{path: path, raw: raw}
	}
	return p, nil
}

// streamHash counts and hashes the bytes read through it from r (or
// written to it when r is nil) and notes the end of the stream.
type streamHash struct {
	h   hash.Hash
	n   int64
	r   io.Reader
	eof bool
}

func (s *streamHash) Read(b []byte) (int, error) {
	n, err := s.r.Read(b)
	s.n += int64(n)
	s.h.Write(b[:n])
	s.eof = s.eof || err == io.EOF
	return n, err
}

func (s *streamHash) Write(b []byte) (int, error) { s.n += int64(len(b)); return s.h.Write(b) }

// streamed is the checksum of one non-regular input being read.
type streamed struct {
	path    string
	raw     *streamHash
	content *streamHash // nil for a plain (not gzip) stream
}

// finish records the checksum when the whole stream was read (never
// reading on: a stopped load of stdin must not wait for more input).
func (s *streamed) finish() {
	if !s.raw.eof || (s.content != nil && !s.content.eof) {
		return
	}
	c := StreamChecksum{Bytes: s.raw.n, SHA256: hex.EncodeToString(s.raw.h.Sum(nil))}
	if s.content != nil {
		c.ContentSHA256 = hex.EncodeToString(s.content.h.Sum(nil))
	}
	streamedMu.Lock()
	streamedSums[s.path] = c
	streamedMu.Unlock()
}

// StreamChecksum is the size (bytes) and SHA-256 (64 lowercase hex digits)
// of a non-regular input file as OpenInput read it; ContentSHA256 is that of
// the decompressed content of a gzip stream ("" otherwise).
type StreamChecksum struct {
	Bytes         int64
	SHA256        string
	ContentSHA256 string
}

var (
	streamedMu   sync.Mutex
	streamedSums = map[string]StreamChecksum{} // path as given to OpenInput -> checksum
)

// StreamedChecksum returns the checksum of the non-regular file at path
// (as given to OpenInput) taken while this process read it to the end and
// closed it; ok is false when it has not been read so.
func StreamedChecksum(path string) (c StreamChecksum, ok bool) {
	streamedMu.Lock()
	defer streamedMu.Unlock()
	c, ok = streamedSums[path]
	return c, ok
}

type plainFile struct {
	*bufio.Reader
	f      *os.File
	stream *streamed // nil for a regular file
}

func (p *plainFile) Close() error {
	if p.stream != nil {
		p.stream.finish()
	}
	return p.f.Close()
}

// gzipFile is a gzip stream over a file; read errors (a truncated or
// corrupt stream) name the file.
type gzipFile struct {
	zr     *gzip.Reader
	f      *os.File
	path   string
	stream *streamed // nil for a regular file
}

func (g *gzipFile) Read(b []byte) (int, error) {
	n, err := g.zr.Read(b)
	if g.stream != nil {
		g.stream.content.Write(b[:n])
		g.stream.content.eof = g.stream.content.eof || err == io.EOF
	}
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: gzip: %w", g.path, err)
	}
	return n, err
}

func (g *gzipFile) Close() error {
	if g.stream != nil {
		g.stream.finish()
	}
	g.zr.Close()
	return g.f.Close()
}

// openRegular opens path for reading and rejects directories with a clear error.
func openRegular(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err // *PathError names the file and says "no such file or directory"
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, want a file", path)
	}
	return os.Open(path)
}
