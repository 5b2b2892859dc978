package pagerank

// Bad-input tests for the loaders (issue 7). Each case names the input, what
// must happen (error naming file, line and problem; or the exact parse), and
// docs/RELIABILITY.md lists them with the test that covers them.

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// edgeErrCase is an edge-list input that must fail with a *ParseError at Line
// whose message contains problem.
type edgeErrCase struct {
	name, in string
	line     int
	problem  string
}

func TestBadEdgeListInputs(t *testing.T) {
	cases := []edgeErrCase{
		{"one field", "A B\nC\n", 2, "want 2 fields (CITING , CITED), got 1"},
		{"three fields space", "A B\nA B C\n", 2, "got 3"},
		{"three fields comma", "A , B\nA , B , C\n", 2, "got 3"},
		{"trailing comma", "A,B,\n", 1, "got 3"},
		{"empty id before comma", "A , B\n , C\n", 2, "empty node id"},
		{"empty id after comma", "A , B\nC , \n", 2, "empty node id"},
		{"lone comma", ",\n", 1, "empty node id"},
		{"invalid UTF-8", "A , B\nA\xff , C\n", 2, "not valid UTF-8"},
		{"Latin-1 e-acute", "A , B\nCaf\xe9 , B\n", 2, "not valid UTF-8"},
		{"UTF-16 LE with BOM", "\xff\xfeA\x00 \x00B\x00\n\x00", 1, "not valid UTF-8"},
		{"gzip bytes", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 1, "not valid UTF-8"},
		{"mixed space and comma", "A , B\nA B , C\n", 2, `node id "A B" contains U+0020`},
		{"mixed tab and comma", "A\tX , C\n", 1, `node id "A\tX" contains U+0009`},
		{"BOM in the middle (concatenated files)", "A , B\n\ufeffA , C\n", 2, "contains U+FEFF"},
		{"NUL byte in id", "A , B\nA\x00 , C\n", 2, "contains U+0000"},
		{"Ctrl-Z at the end (DOS EOF)", "A B\n\x1a\n", 2, "got 1"},
		{"old Mac CR-only line ends", "A B\rB C\r", 1, "got 4"},
		{"comment after the edge", "A B # cites\n", 1, "got 4"},
		{"comment glued to the edge", "A B\nB #note\n", 2, `node id "#note" starts with a comment character`},
		{"percent id after comma", "A , %x\n", 1, `node id "%x" starts with a comment character`},
		{"fuzz crasher: id #", "0 #", 1, `node id "#" starts with a comment character`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			el, err := ParseEdgeList(strings.NewReader(c.in), "edges.txt")
			wantParseError(t, el, err, "edges.txt", c.line, c.problem)
		})
	}
}

// TestEdgeListWholeInputs checks inputs that must parse to exactly the ids
// A, B, C with edges A->B, B->C (line ends, whitespace, separators, BOM),
// and inputs that hold no edge at all, which fail with the no-edges error.
func TestEdgeListWholeInputs(t *testing.T) {
	const noEdges = "edges.txt: no edges (the file is empty or holds only comments)"
	for _, c := range []struct{ name, in, err string }{
		{"CRLF", "A , B\r\nB , C\r\n", ""},
		{"CRLF no final newline", "A , B\r\nB , C", ""},
		{"trailing spaces", "A , B   \nB , C \t \n", ""},
		{"leading spaces", "   A , B\n\tB , C\n", ""},
		{"trailing whitespace CRLF", "A B \t\r\nB C  \r\n", ""},
		{"tabs", "A\tB\nB\tC\n", ""},
		{"several tabs and spaces", "A \t \tB\nB  C\n", ""},
		{"comma no spaces", "A,B\nB,C\n", ""},
		{"comma with tabs", "A\t,\tB\nB\t, C\n", ""},
		{"separators mixed by line", "A , B\nB\tC\n", ""},
		{"BOM and CRLF", "\ufeffA , B\r\nB , C\r\n", ""},
		{"BOM then comment", "\ufeff# header\nA B\nB C\n", ""},
		{"comments between edges", "A B\n# x\n% y\n\nB C\n", ""},
		{"indented comment", "  # x\nA B\nB C\n", ""},
		{"blank line with CR", "A B\r\n\r\nB C\r\n", ""},
		{"no final newline", "A B\nB C", ""},
		{"many blank lines at end", "A B\nB C\n\n\n\n", ""},
		{"whitespace around comma", "A   ,   B\nB ,C\n", ""},
		{"trailing CR and space mix", "A B \r\nB C\r \n", ""},
		// No edges at all: the one error.
		{"empty file", "", noEdges},
		{"only comments", "# SNAP header\n% matrix market\n#\n", noEdges},
		{"only blank lines", "\n\n   \n\t\n", noEdges},
		{"only a BOM", "\ufeff", noEdges},
		{"BOM then comments, CRLF", "\ufeff# c\r\n\r\n", noEdges},
	} {
		t.Run(c.name, func(t *testing.T) {
			el, err := ParseEdgeList(strings.NewReader(c.in), "edges.txt")
			switch {
			case c.err != "":
				if err == nil || err.Error() != c.err {
					t.Errorf("got %v, want %q", err, c.err)
				}
			case err != nil:
				t.Error(err)
			case !slices.Equal(el.IDs, []string{"A", "B", "C"}) || !slices.Equal(el.Src, []int32{0, 1}) || !slices.Equal(el.Dst, []int32{1, 2}):
				t.Errorf("ids %q src %v dst %v", el.IDs, el.Src, el.Dst)
			}
		})
	}
}

// TestEdgeListIDsAreText: ids are opaque strings; numeric-looking ids are
// not normalised (SNAP "01" and "1" are different nodes) and non-ASCII UTF-8
// ids are kept as they are.
func TestEdgeListIDsAreText(t *testing.T) {
	el, err := ParseEdgeList(strings.NewReader("1 01\n01 1\nÉcole Zürich\n"), "edges.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(el.IDs, []string{"1", "01", "École", "Zürich"}) || !slices.Equal(el.Src, []int32{0, 1, 2}) || !slices.Equal(el.Dst, []int32{1, 0, 3}) {
		t.Fatalf("ids %q src %v dst %v", el.IDs, el.Src, el.Dst)
	}
}

// wantParseError fails t unless err is a *ParseError naming file and line
// whose problem contains problem, and whose message starts with the file
// name; got is what the parser returned with it.
func wantParseError(t *testing.T, got any, err error, file string, line int, problem string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("got %+v, %v; want *ParseError", got, err)
	}
	if pe.File != file || pe.Line != line || !strings.Contains(pe.Problem, problem) {
		t.Fatalf("got %q (file %q line %d), want line %d and %q", err, pe.File, pe.Line, line, problem)
	}
	if !strings.HasPrefix(err.Error(), file+":") {
		t.Fatalf("message %q does not start with the file name", err)
	}
}

func TestEdgeListLongLine(t *testing.T) {
	in := "A B\n" + strings.Repeat("x", 17*1024*1024) + " y\n"
	_, err := ParseEdgeList(strings.NewReader(in), "edges.txt")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Problem != "line longer than 16 MiB" {
		t.Fatalf("got %v", err)
	}
}

// TestGraphWithNoEdges: a file whose only edges are self-loops is a valid
// graph with nodes and no edges (every node dangling), not an error.
func TestGraphWithNoEdges(t *testing.T) {
	p := filepath.Join(t.TempDir(), "loops.txt")
	if err := os.WriteFile(p, []byte("A , A\nB , B\nA , A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := LoadEdgeList(p, "loops")
	if err != nil {
		t.Fatal(err)
	}
	if g.Summary() != "loaded 2 nodes and 0 edges (dropped 3 self-loops, 0 duplicates); 2 dangling" {
		t.Fatalf("%s", g.Summary())
	}
	if !slices.Equal(g.OutRowPtr, []int32{0, 0, 0}) || !slices.Equal(g.InRowPtr, []int32{0, 0, 0}) || len(g.OutColIdx) != 0 || len(g.InColIdx) != 0 {
		t.Fatalf("CSR %v %v %v %v", g.OutRowPtr, g.OutColIdx, g.InRowPtr, g.InColIdx)
	}
	if !slices.Equal(g.InvOutDegree, []float64{0, 0}) || !slices.Equal(g.Dangling, []uint8{1, 1}) {
		t.Fatalf("inv %v dangling %v", g.InvOutDegree, g.Dangling)
	}
	checkCSR(t, g)
	// NewGraph with nodes and an empty edge list is the same graph.
	g2, err := NewGraph("empty", 3, nil, nil, nil)
	if err != nil || g2.NNZ != 0 || g2.DanglingCount != 3 || len(g2.OutRowPtr) != 4 {
		t.Fatalf("%v %v", g2, err)
	}
}

// lowerLimits sets the int32 index limits to small values for one test.
func lowerLimits(t *testing.T, nodes, edges int) {
	t.Helper()
	oldN, oldE := maxNodes, maxEdges
	maxNodes, maxEdges = nodes, edges
	t.Cleanup(func() { maxNodes, maxEdges = oldN, oldE })
}

// TestInt32Limits exercises the node- and edge-count limits (2^31-2 nodes,
// 2^31-1 edges) with lowered limits: the parser stops at the first line past
// the limit with its line number, NewGraph refuses, never wraps around.
func TestInt32Limits(t *testing.T) {
	lowerLimits(t, 3, 4)
	// Nodes: A B C fit; D on line 3 is the 4th distinct id.
	_, err := ParseEdgeList(strings.NewReader("A B\nB C\nC D\n"), "edges.txt")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || pe.Problem != "more than 3 distinct node ids (int32 index limit)" {
		t.Fatalf("nodes: %v", err)
	}
	// Exactly at the node limit is fine.
	if el, err := ParseEdgeList(strings.NewReader("A B\nB C\nC A\n"), "edges.txt"); err != nil || len(el.IDs) != 3 {
		t.Fatalf("at node limit: %v %v", el, err)
	}
	// Edges: 4 fit (duplicates and self-loops count: they are lines), the 5th does not.
	if el, err := ParseEdgeList(strings.NewReader("A B\nA B\nB B\nB C\n"), "edges.txt"); err != nil || len(el.Src) != 4 {
		t.Fatalf("at edge limit: %v %v", el, err)
	}
	_, err = ParseEdgeList(strings.NewReader("A B\nA B\nB B\nB C\n# c\nC A\n"), "edges.txt")
	if !errors.As(err, &pe) || pe.Line != 6 || pe.Problem != "more than 4 edges (int32 index limit)" {
		t.Fatalf("edges: %v", err)
	}
	// NewGraph checks the same limits for graphs built without the parser.
	if _, err := NewGraph("big", 4, nil, nil, nil); err == nil || err.Error() != `graph "big": 4 nodes exceeds the int32 index limit 3` {
		t.Fatalf("NewGraph nodes: %v", err)
	}
	src := []int32{0, 0, 1, 1, 2}
	dst := []int32{1, 2, 0, 2, 0}
	if _, err := NewGraph("big", 3, src, dst, nil); err == nil || err.Error() != `graph "big": 5 edges exceeds the int32 index limit 4` {
		t.Fatalf("NewGraph edges: %v", err)
	}
	if g, err := NewGraph("ok", 3, src[:4], dst[:4], nil); err != nil || g.NNZ != 4 {
		t.Fatalf("NewGraph at limit: %v %v", g, err)
	}
}

// TestInt32LimitValues pins the real limits: n+1 row-pointer entries and nnz
// must be representable in int32.
func TestInt32LimitValues(t *testing.T) {
	if maxNodes != 1<<31-2 || maxEdges != 1<<31-1 {
		t.Fatalf("maxNodes %d maxEdges %d", maxNodes, maxEdges)
	}
	if _, err := NewGraph("x", 1<<31-1, nil, nil, nil); err == nil || !strings.Contains(err.Error(), "2147483647 nodes exceeds the int32 index limit 2147483646") {
		t.Fatalf("%v", err)
	}
	if _, err := NewGraph("x", 1<<40, nil, nil, nil); err == nil || !strings.Contains(err.Error(), "int32 index limit") {
		t.Fatalf("%v", err)
	}
	if _, err := NewGraph("x", -1, nil, nil, nil); err == nil || err.Error() != `graph "x": node count -1 must be positive` {
		t.Fatalf("%v", err)
	}
}

func TestNewGraphBadArguments(t *testing.T) {
	cases := []struct {
		n        int
		src, dst []int32
		ids      []string
		want     string
	}{
		{2, []int32{0}, nil, nil, `graph "g": 1 sources but 0 destinations`},
		{2, []int32{0}, []int32{2}, nil, `graph "g": edge 0 (0 -> 2) has an index outside [0, 2)`},
		{2, []int32{-1}, []int32{1}, nil, `graph "g": edge 0 (-1 -> 1) has an index outside [0, 2)`},
		{2, []int32{0}, []int32{1}, []string{"a"}, `graph "g": 1 ids for 2 nodes`},
	}
	for _, c := range cases {
		if _, err := NewGraph("g", c.n, c.src, c.dst, c.ids); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}

func TestLoadBadPaths(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.txt")
	for _, load := range []struct {
		name string
		f    func(string) error
	}{
		{"edges", func(p string) error { _, err := LoadEdgeList(p, "x"); return err }},
		{"papers", func(p string) error { _, err := LoadPapers(p); return err }},
	} {
		err := load.f(dir)
		if err == nil || err.Error() != dir+": is a directory, want a file" {
			t.Errorf("%s directory: %v", load.name, err)
		}
		err = load.f(missing)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
			t.Errorf("%s missing: %v", load.name, err)
		}
		// An empty file.
		empty := filepath.Join(dir, "empty")
		os.WriteFile(empty, nil, 0o644)
		if err := load.f(empty); err == nil || !strings.HasPrefix(err.Error(), empty+": ") {
			t.Errorf("%s empty: %v", load.name, err)
		}
		// /dev/null is not a directory but reads as empty.
		if runtime.GOOS == "linux" {
			if err := load.f("/dev/null"); err == nil || !strings.HasPrefix(err.Error(), "/dev/null: ") {
				t.Errorf("%s /dev/null: %v", load.name, err)
			}
		}
		// A symlink to a directory is a directory.
		link := filepath.Join(dir, "link-"+load.name)
		if err := os.Symlink(dir, link); err == nil {
			if err := load.f(link); err == nil || !strings.Contains(err.Error(), "is a directory") {
				t.Errorf("%s symlink to dir: %v", load.name, err)
			}
		}
		// A dangling symlink is a missing file.
		dangling := filepath.Join(dir, "dangling-"+load.name)
		if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err == nil {
			if err := load.f(dangling); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s dangling symlink: %v", load.name, err)
			}
		}
	}
}

func TestLoadUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads mode-000 files")
	}
	p := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(p, []byte("A B\n"), 0o000)
	if _, err := LoadEdgeList(p, "x"); !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), p) {
		t.Fatalf("%v", err)
	}
}

// TestLoadErrorNamesPath: errors from the file loaders carry the path given,
// and the parse error's line.
func TestLoadErrorNamesPath(t *testing.T) {
	dir := t.TempDir()
	e := filepath.Join(dir, "acl.txt")
	os.WriteFile(e, []byte("A , B\r\nC\r\n"), 0o644)
	if _, err := LoadEdgeList(e, "aan"); err == nil || err.Error() != e+`:2: want 2 fields (CITING , CITED), got 1 in "C"` {
		t.Errorf("edges: %v", err)
	}
	p := filepath.Join(dir, "papers.tsv")
	os.WriteFile(p, []byte("id\tyear\ttitle\nX\t19x0\tT\n"), 0o644)
	if _, err := LoadPapers(p); err == nil || err.Error() != p+`:2: year "19x0" of X is not an integer` {
		t.Errorf("papers: %v", err)
	}
}

const hdr = "id\tyear\ttitle\ttitle_source\n"

func TestBadPapersInputs(t *testing.T) {
	cases := []struct {
		name, in string
		line     int // 0: not a *ParseError
		problem  string
	}{
		{"year not a number", hdr + "X\tnineteen\tT\taan\n", 2, `year "nineteen" of X is not an integer`},
		{"year with decimals", hdr + "X\t1990.0\tT\taan\n", 2, `year "1990.0" of X is not an integer`},
		{"year out of int range", hdr + "X\t99999999999999999999\tT\taan\n", 2, `is not an integer`},
		{"duplicate id", hdr + "X\t1990\tT\taan\nY\t1991\tU\taan\nX\t1992\tV\taan\n", 4, `duplicate id "X"`},
		{"duplicate id after trimming", hdr + "X\t1990\tT\taan\n X \t1991\tU\taan\n", 3, `duplicate id "X"`},
		{"empty id", hdr + "\t1990\tT\taan\n", 2, "empty id"},
		{"blank id", hdr + "  \t1990\tT\taan\n", 2, "empty id"},
		{"one field fewer", hdr + "X\t1990\tT\n", 2, "want 4 tab-separated fields like the header, got 3"},
		{"one field more (trailing tab)", hdr + "X\t1990\tT\taan\t\n", 2, "want 4 tab-separated fields like the header, got 5"},
		{"spaces not tabs", "id year title\nX 1990 T\n", 1, `header has no "id" column`},
		{"comma separated", "id,year,title\nX,1990,T\n", 1, `header has no "id" column`},
		{"neither year, title nor label", "id\tsource\nX\tT\n", 1, `header has none of the columns year, title, label`},
		{"zero-width space in id", hdr + "X\u200b\t1990\tT\taan\n", 2, `node id "X\u200b" contains U+200B`},
		{"header in capitals", "ID\tYear\tTitle\nX\t1990\tT\n", 1, `header has no "id" column`},
		{"id column twice", "id\tyear\ttitle\tid\nX\t1990\tT\tY\n", 1, `header names column "id" twice`},
		{"comment line becomes the header", "# papers\n" + hdr + "X\t1990\tT\taan\n", 2, "want 1 tab-separated fields like the header, got 4"},
		{"invalid UTF-8 in title", hdr + "X\t1990\tCaf\xe9\taan\n", 2, "not valid UTF-8"},
		{"invalid UTF-8 in header", "id\tyear\ttit\xffle\n", 1, "not valid UTF-8"},
		{"header after BOM, bad row", "\ufeff" + hdr + "X\tMCMXC\tT\taan\n", 2, `year "MCMXC"`},
		{"CRLF, bad row", "id\tyear\ttitle\r\nX\t1990\r\n", 2, "want 3 tab-separated fields like the header, got 2"},
		{"blank lines counted", hdr + "\n\nX\tyy\tT\taan\n", 4, `year "yy"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePapers(strings.NewReader(c.in), "papers.tsv")
			wantParseError(t, p, err, "papers.tsv", c.line, c.problem)
		})
	}
	for name, in := range map[string]string{"empty": "", "blank lines": "\n \n\t\n", "only a BOM": "\ufeff", "BOM and CRLF": "\ufeff\r\n"} {
		if _, err := ParsePapers(strings.NewReader(in), "papers.tsv"); err == nil || err.Error() != `papers.tsv: empty file, want a header line "id\tyear\ttitle..."` {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A CSV metadata row with the wrong field count says how many the header has.
func TestBadCSVMetadataFieldCount(t *testing.T) {
	_, err := ParseMetadata(strings.NewReader("id,year,title\nX,1990,T\nY,1991\n"), "meta.csv", ',')
	if err == nil || err.Error() != "meta.csv:3: want 3 comma-separated fields like the header, got 2" {
		t.Fatalf("got %v", err)
	}
}

func TestPapersLongLine(t *testing.T) {
	in := hdr + "X\t1990\tT\taan\nY\t1991\t" + strings.Repeat("t", 5*1024*1024) + "\taan\n"
	_, err := ParsePapers(strings.NewReader(in), "papers.tsv")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || pe.Problem != "line longer than 4 MiB" {
		t.Fatalf("got %v", err)
	}
}

func TestPapersAcceptedForms(t *testing.T) {
	want := map[string]Paper{
		"X": {ID: "X", Year: 1990, Title: `A "quoted", title`, TitleSource: "aan"},
		"Y": {ID: "Y", Year: 0, Title: "", TitleSource: "none"},
	}
	rows := "X\t1990\tA \"quoted\", title\taan\nY\t\t\tnone\n"
	for name, in := range map[string]string{
		"plain":                 hdr + rows,
		"CRLF":                  strings.ReplaceAll(hdr+rows, "\n", "\r\n"),
		"BOM":                   "\ufeff" + hdr + rows,
		"BOM and CRLF":          "\ufeff" + strings.ReplaceAll(hdr+rows, "\n", "\r\n"),
		"no final newline":      hdr + strings.TrimSuffix(rows, "\n"),
		"blank lines":           "\n" + hdr + "\n" + rows + "\n\n",
		"spaces around id":      hdr + " X \t1990\tA \"quoted\", title\taan\nY\t\t\tnone\n",
		"spaces around year":    hdr + "X\t 1990 \tA \"quoted\", title\taan\nY\t \t\tnone\n",
		"columns reordered":     "title_source\ttitle\tyear\tid\naan\tA \"quoted\", title\t1990\tX\nnone\t\t\tY\n",
		"extra columns ignored": "id\tyear\ttitle\ttitle_source\tin_citation_graph\nX\t1990\tA \"quoted\", title\taan\t1\nY\t\t\tnone\t0\n",
		"header with spaces":    " id \tyear\ttitle\ttitle_source \n" + rows,
		"trailing whitespace":   hdr + "X\t1990 \tA \"quoted\", title  \taan  \r\r\nY \t\t \tnone\r\r\r\n",
	} {
		p, err := ParsePapers(strings.NewReader(in), "papers.tsv")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if p.Rows != 2 || len(p.ByID) != 2 || p.ByID["X"] != want["X"] || p.ByID["Y"] != want["Y"] {
			t.Errorf("%s: rows %d %+v", name, p.Rows, p.ByID)
		}
	}
	// title_source is optional; a header with no rows is metadata for no node.
	p, err := ParsePapers(strings.NewReader("id\tyear\ttitle\nZ\t2001\tT\n"), "papers.tsv")
	if err != nil || p.ByID["Z"] != (Paper{ID: "Z", Year: 2001, Title: "T"}) {
		t.Errorf("no title_source: %+v %v", p, err)
	}
	p, err = ParsePapers(strings.NewReader("id\tyear\ttitle\n"), "papers.tsv")
	if err != nil || p.Rows != 0 || len(p.ByID) != 0 {
		t.Errorf("header only: %+v %v", p, err)
	}
}

// TestPapersCoverage: metadata for ids not in the graph is allowed and
// counted; graph ids with no metadata are allowed and Lookup says so.
func TestPapersCoverage(t *testing.T) {
	el, err := ParseEdgeList(strings.NewReader("A B\nB C\nC D\n"), "edges.txt")
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGraph("g", len(el.IDs), el.Src, el.Dst, el.IDs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePapers(strings.NewReader(hdr+"A\t2000\tPaper A\taan\nC\t2001\tPaper C\taan\nZ1\t1999\tNot cited\taan\nZ2\t1998\tNeither\taan\n"), "papers.tsv")
	if err != nil {
		t.Fatal(err)
	}
	in, notIn := p.Coverage(g)
	if in != 2 || notIn != 2 || p.Rows != 4 {
		t.Fatalf("in graph %d, not in graph %d, rows %d; want 2, 2, 4", in, notIn, p.Rows)
	}
	if q, ok := p.Lookup("B"); ok || q != (Paper{}) {
		t.Fatalf("B has no metadata, got %+v %v", q, ok)
	}
	if q, ok := p.Lookup("C"); !ok || q.Title != "Paper C" || q.Year != 2001 {
		t.Fatalf("C: %+v %v", q, ok)
	}
	var none *Papers // no metadata file at all
	if _, ok := none.Lookup("A"); ok {
		t.Fatal("nil Papers found A")
	}
	if in, notIn := none.Coverage(g); in != 0 || notIn != 0 {
		t.Fatalf("nil Papers coverage %d %d", in, notIn)
	}
}

// TestValidateNonFiniteRanks: a Result holding NaN or ±Inf ranks, or ranks
// whose sum overflows, cannot be graded: Validate reports it as a problem
// (the row is "failed"), never as numbers a report cannot hold.
func TestValidateNonFiniteRanks(t *testing.T) {
	g, _ := SyntheticCase("tiny")
	oracle := &Result{Ranks: []float64{0.2, 0.2, 0.2, 0.2, 0.1, 0.1}}
	cases := []struct {
		ranks []float64
		want  string
	}{
		{[]float64{0.2, math.NaN(), 0.2, 0.2, 0.1, 0.1}, "rank of node 1 is NaN: non-finite ranks"},
		{[]float64{0.2, 0.2, 0.2, 0.2, 0.1, math.Inf(-1)}, "rank of node 5 is -Inf: non-finite ranks"},
		{[]float64{math.MaxFloat64, math.MaxFloat64, 0, 0, 0, 0}, "sum of ranks is +Inf: non-finite"},
	}
	for _, c := range cases {
		v := Validate(g, &Result{Ranks: c.ranks}, oracle)
		if v.Problem != c.want || v.Pass || !math.IsNaN(v.SumMinus1) || !math.IsNaN(v.ErrOverTol) {
			t.Errorf("%v: problem %q pass %v sum-1 %v err/tol %v, want %q", c.ranks, v.Problem, v.Pass, v.SumMinus1, v.ErrOverTol, c.want)
		}
	}
	if v := Validate(g, &Result{Ranks: oracle.Ranks}, oracle); v.Problem != "" || !v.Pass {
		t.Errorf("finite ranks: %+v", v)
	}
}

// TestParamsOutOfRangeMessages: every parameter out of range is rejected
// with its valid range in the message (notebooks and the CLI pass these on).
func TestParamsOutOfRangeMessages(t *testing.T) {
	fixed := func(d float64, it int) Params { return Params{Damping: d, Mode: FixedIterations, Iterations: it} }
	tol := func(x float64) Params { return Params{Damping: 0.85, Mode: Tolerance, Iterations: 100, Tolerance: x} }
	cases := []struct {
		p    Params
		want string
	}{
		{fixed(0, 10), "damping factor 0 out of range: must be in (0, 1), e.g. 0.85"},
		{fixed(1, 10), "damping factor 1 out of range: must be in (0, 1), e.g. 0.85"},
		{fixed(-0.85, 10), "damping factor -0.85 out of range: must be in (0, 1), e.g. 0.85"},
		{fixed(85, 10), "damping factor 85 out of range: must be in (0, 1), e.g. 0.85"},
		{fixed(math.NaN(), 10), "damping factor NaN out of range: must be in (0, 1), e.g. 0.85"},
		{fixed(math.Inf(1), 10), "damping factor +Inf out of range: must be in (0, 1), e.g. 0.85"},
		{fixed(0.85, 0), "iterations 0 out of range: must be in [1, 10000]"},
		{fixed(0.85, -100), "iterations -100 out of range: must be in [1, 10000]"},
		{fixed(0.85, 10001), "iterations 10001 out of range: must be in [1, 10000]"},
		{fixed(0.85, math.MaxInt), "out of range: must be in [1, 10000]"},
		{tol(0), "tolerance 0 out of range: must be > 0 (e.g. 1e-6)"},
		{tol(-1e-6), "tolerance -1e-06 out of range: must be > 0 (e.g. 1e-6)"},
		{tol(math.NaN()), "tolerance NaN out of range: must be > 0 (e.g. 1e-6)"},
		{tol(math.Inf(-1)), "tolerance -Inf out of range: must be > 0 (e.g. 1e-6)"},
		{Params{Damping: 0.85, Mode: "", Iterations: 10}, `unknown mode "": must be "fixed" or "tolerance"`},
		{Params{Damping: 0.85, Mode: "Fixed", Iterations: 10}, `unknown mode "Fixed": must be "fixed" or "tolerance"`},
	}
	for _, c := range cases {
		err := c.p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.p, err, c.want)
		}
	}
	// The edges of the valid ranges are accepted; fixed mode ignores the tolerance.
	for _, p := range []Params{fixed(1e-9, 1), fixed(1-1e-9, 10000), tol(1e-300), {Damping: 0.5, Mode: FixedIterations, Iterations: 5, Tolerance: -1}} {
		if err := p.Validate(); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
	}
}

// A gzip-compressed edge list cut short (a partial download) fails naming
// the file and the first line not read whole: the lines before it were
// read, the error is gzip's unexpected EOF (errors.Is sees it).
func TestTruncatedGzipNamesTheLine(t *testing.T) {
	var plain strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&plain, "%d %d\n", i, (i*7+1)%20000)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(plain.String()))
	zw.Close()
	cut := z.Bytes()[:z.Len()/2]
	path := filepath.Join(t.TempDir(), "cut.el.gz")
	if err := os.WriteFile(path, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	// The lines gzip can give back from the first half: the first line not whole.
	zr, _ := gzip.NewReader(bytes.NewReader(cut))
	got, _ := io.ReadAll(zr)
	want := bytes.Count(got, []byte("\n")) + 1
	_, _, err := LoadGraph(path, "cut", LoadOptions{})
	var re *ReadError
	if !errors.As(err, &re) || re.File != path || re.Line != want || !errors.Is(err, io.ErrUnexpectedEOF) ||
		err.Error() != fmt.Sprintf("%s:%d: reading stopped at this line: gzip: unexpected EOF", path, want) {
		t.Fatalf("LoadGraph of a cut gzip file: %v, want %s:%d: reading stopped at this line: gzip: unexpected EOF", err, path, want)
	}
}
