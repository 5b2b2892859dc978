package pagerank

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/prlab/prlab/internal/fixture"
)

// ids lists g's node ids in index order.
func ids(g *Graph) []string {
	out := make([]string, g.N)
	for v := range out {
		out[v] = g.ID(v)
	}
	return out
}

// Every format, plain and gzip-compressed, sniffed from the name and first
// lines: the known node ids, counts and notes.
func TestLoadGraphFormats(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, body string
		want       Format
		ids        []string
		line       string // g.Summary()
		note       string // a note that must be there ("" = none at all)
	}{
		{"g.snap.txt", "# Directed graph\n# FromNodeId\tToNodeId\n10\t20\n20\t30\n30\t10\n30\t30\n", FormatSNAP,
			[]string{"10", "20", "30"}, "loaded 3 nodes and 3 edges (dropped 1 self-loops, 0 duplicates); 0 dangling", ""},
		{"dense.txt", "0 1\n1 2\n2 0\n", FormatSNAP, []string{"0", "1", "2"}, "loaded 3 nodes and 3 edges (dropped 0 self-loops, 0 duplicates); 0 dangling", ""},
		{"temporal.txt", "# t\n1 2 1200000\n2 1 1200001\n", FormatSNAP, []string{"1", "2"}, "loaded 2 nodes and 2 edges (dropped 0 self-loops, 0 duplicates); 0 dangling", "columns after the second ignored"},
		{"words.snap", "# SNAP with names\nalpha beta\nbeta gamma\n", FormatSNAP, []string{"alpha", "beta", "gamma"}, "loaded 3 nodes and 2 edges (dropped 0 self-loops, 0 duplicates); 1 dangling", ""},
		{"g.el", "0 1\n1 3\n3 0\n1 3\n", FormatEL, []string{"0", "1", "2", "3"}, "loaded 4 nodes and 3 edges (dropped 0 self-loops, 1 duplicates); 1 dangling", ""},
		{"g.wel", "0 1 0.5\n1 2 2\n", FormatWEL, []string{"0", "1", "2"}, "loaded 3 nodes and 2 edges (dropped 0 self-loops, 0 duplicates); 1 dangling", weightsNote},
		{"g.mtx", "%%MatrixMarket matrix coordinate pattern general\n% a comment\n4 4 3\n1 2\n2 3\n3 1\n", FormatMTX,
			[]string{"1", "2", "3", "4"}, "loaded 4 nodes and 3 edges (dropped 0 self-loops, 0 duplicates); 1 dangling", ""},
		{"sym.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 1.5\n3 2 -1\n3 3 4\n", FormatMTX,
			[]string{"1", "2", "3"}, "loaded 3 nodes and 4 edges (dropped 1 self-loops, 0 duplicates); 0 dangling", "symmetric: each off-diagonal entry stored both ways"},
		{"g.csv", "from,to,weight\nA,B,1\n\"C, Jr.\",A,2\n", FormatCSV, []string{"A", "B", "C, Jr."},
			"loaded 3 nodes and 2 edges (dropped 0 self-loops, 0 duplicates); 1 dangling", `columns "weight" ignored`},
		{"g.tsv", "source\ttarget\nA\tB\nB\tA\n", FormatTSV, []string{"A", "B"}, "loaded 2 nodes and 2 edges (dropped 0 self-loops, 0 duplicates); 0 dangling", "columns source,target from the header line (line 1) are the source and target"},
		{"acl.txt", "C08-3004 , A00-1002\nD09-1141 , A00-1002\n", FormatAAN, []string{"C08-3004", "A00-1002", "D09-1141"},
			"loaded 3 nodes and 2 edges (dropped 0 self-loops, 0 duplicates); 1 dangling", ""},
		{"aan-original.txt", "C08-3004 ==> A00-1002\nD09-1141 ==> A00-1002\n", FormatAAN, []string{"C08-3004", "A00-1002", "D09-1141"},
			"loaded 3 nodes and 2 edges (dropped 0 self-loops, 0 duplicates); 1 dangling", ""},
		{"nameless", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 7\n", FormatMTX, []string{"1", "2"},
			"loaded 2 nodes and 1 edges (dropped 0 self-loops, 0 duplicates); 1 dangling", "values in column 3 ignored"},
		// A UTF-8 byte order mark (Notepad) before the first line: skipped in every format
		// (the integer formats read it as part of the first id: `node id "\ufeff0"`).
		{"bom.el", "\ufeff0 1\n1 2\n", FormatEL, []string{"0", "1", "2"}, "loaded 3 nodes and 2 edges (dropped 0 self-loops, 0 duplicates); 1 dangling", ""},
		{"bom.txt", "\ufeff10 20\n20 30\n", FormatSNAP, []string{"10", "20", "30"}, "loaded 3 nodes and 2 edges (dropped 0 self-loops, 0 duplicates); 1 dangling", ""},
		{"bom-acl.txt", "\ufeffC08-3004 , A00-1002\n", FormatAAN, []string{"C08-3004", "A00-1002"}, "loaded 2 nodes and 1 edges (dropped 0 self-loops, 0 duplicates); 1 dangling", ""},
	}
	for _, c := range cases {
		for _, name := range []string{c.name, c.name + ".gz"} {
			p := fixture.WriteFile(t, dir, name, c.body)
			g, info, err := LoadGraph(p, "x", LoadOptions{})
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if info.Format != c.want || g.Summary() != c.line || !slices.Equal(ids(g), c.ids) {
				t.Errorf("%s: format %s, %q, ids %q; want %s, %q, %q", name, info.Format, g.Summary(), ids(g), c.want, c.line, c.ids)
			}
			notes := strings.Join(info.Notes, "; ")
			if (c.note == "" && notes != "") || !strings.Contains(notes, c.note) {
				t.Errorf("%s: notes %q, want %q", name, notes, c.note)
			}
		}
	}
}

// --format overrides the sniffing, --undirected stores both ways, --columns
// picks columns by name.
func TestLoadGraphOptions(t *testing.T) {
	dir := t.TempDir()
	p := fixture.WriteFile(t, dir, "edges.dat", "1 2\n2 3\n")
	g, info, err := LoadGraph(p, "x", LoadOptions{Format: FormatEL, Undirected: true})
	if err != nil || info.Format != FormatEL || g.N != 4 || g.NNZ != 4 || g.DanglingCount != 1 {
		t.Fatalf("el undirected: %v %+v %s", err, info, g.Summary())
	}
	if !slices.Contains(info.Notes, "undirected: each edge stored both ways") {
		t.Errorf("notes %q", info.Notes)
	}
	c := fixture.WriteFile(t, dir, "cites.csv", "year,citing,cited\n2001,A,B\n2002,C,A\n")
	g, _, err = LoadGraph(c, "x", LoadOptions{Columns: []string{"citing", "cited"}})
	if err != nil || !slices.Equal(ids(g), []string{"A", "B", "C"}) || g.InDegree(0) != 1 || g.OutDegree[0] != 1 {
		t.Fatalf("csv columns: %v %q", err, ids(g))
	}
	if _, _, err := LoadGraph(c, "x", LoadOptions{Columns: []string{"citing", "nope"}}); err == nil ||
		err.Error() != c+`:1: header has no column "nope" (columns: year, citing, cited)` {
		t.Errorf("unknown column: %v", err)
	}
	if _, err := ParseFormat("graphml"); err == nil || !strings.Contains(err.Error(), "snap, el, wel, mtx, csv, tsv, aan") {
		t.Errorf("ParseFormat: %v", err)
	}
}

// Bad input in every format: file:line, what is wrong, what was expected.
func TestLoadGraphErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, body string
		format     Format
		want       string // after "<path>"
	}{
		{"a.el", "0 1\n1 x\n", "", `:2: node id "x" is not a non-negative integer: want "FROM TO" (GAP .el, 0-based integer ids)`},
		{"b.el", "0 1\n1 2 3\n", "", `:2: want "FROM TO" (GAP .el, 0-based integer ids), got 3 field(s) in "1 2 3"`},
		{"c.el", "# nothing\n", "", `: no edges (the file is empty or holds only comments)`},
		{"d.el", "0 -1\n", "", `:1: node id "-1" is not a non-negative integer`},
		{"e.el", "0 99999999999\n", "", `:1: node id 99999999999 exceeds the int32 index limit`},
		{"a.wel", "0 1 1\n1 2 heavy\n", "", `:2: weight "heavy" is not a number`},
		{"a.mtx", "%%MatrixMarket matrix array real general\n", "", `:1: want a "matrix coordinate" (sparse) file`},
		{"b.mtx", "%%MatrixMarket matrix coordinate complex general\n", "", `:1: field "complex" not supported`},
		{"c.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n", "", `:2: matrix is 3 x 4: an adjacency matrix must be square`},
		{"d.mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n3 3 2\n1 2\n4 1\n", "", `:5: index 4 outside [1, 3] (the size line's 3 rows)`},
		{"e.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n0 2\n", "", `:3: index 0 outside [1, 3]`},
		{"f.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n", "", `: the size line (line 2) says 3 entries, the file has 1`},
		{"g.mtx", "%%MatrixMarket matrix coordinate pattern general\n", "", `:2: want the size line "ROWS COLS ENTRIES", got the end of the file`},
		{"h.mtx", "1 2\n", FormatMTX, `:1: want the banner "%%MatrixMarket matrix coordinate pattern general", got "1 2"`},
		{"a.csv", "s,t\nA,B\nA,B,C\n", "", `:3: want 2 comma-separated fields like the header, got 3`},
		{"b.csv", "s,t\nA,\n", "", `:2: empty node id in column "t"`},
		{"c.csv", "", "", `: empty file, want a header line naming the source and target columns`},
		{"a.tsv", "s\tt\nA\tB\tC\n", "", `:2: want 2 tab-separated fields like the header, got 3`},
		{"zwsp.tsv", "s\tt\nA\tB\u200b\n", "", `:2: node id "B\u200b" contains U+200B (whitespace, a control or an invisible format character)`},
		{"bidi.txt", "A , B\nC\u200e , A\n", "", `:2: node id "C\u200e" contains U+200E`},
		{"bidi.csv", "s,t\nA,\u202eB\n", "", `:2: node id "\u202eB" contains U+202E`},
		{"snap.txt", "# c\n1 2\n2 b\n", "", `:3: node id "b" is not a non-negative integer: want "FROM TO" (SNAP: whitespace-separated integer ids)`},
	}
	for _, c := range cases {
		p := fixture.WriteFile(t, dir, c.name, c.body)
		_, _, err := LoadGraph(p, "x", LoadOptions{Format: c.format})
		if err == nil || !strings.HasPrefix(err.Error(), p+c.want) {
			t.Errorf("%s: got %v\nwant %s%s...", c.name, err, p, c.want)
		}
	}
	// A truncated gzip file is an error naming it.
	full := fixture.WriteFile(t, dir, "t.el.gz", strings.Repeat("1 2\n", 1000))
	b, _ := os.ReadFile(full)
	os.WriteFile(full, b[:len(b)/2], 0o644)
	if _, _, err := LoadGraph(full, "x", LoadOptions{}); err == nil || !strings.Contains(err.Error(), full) || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("truncated gzip: %v", err)
	}
}

// Unicode ids are normalised to NFC: a composed and a decomposed "é" are one node.
func TestIDsNormalisedToNFC(t *testing.T) {
	composed, decomposed := "caf\u00e9", "cafe\u0301"
	for _, f := range []Format{FormatAAN, FormatCSV, FormatTSV} {
		sep := map[Format]string{FormatAAN: " , ", FormatCSV: ",", FormatTSV: "\t"}[f]
		body := "x" + sep + composed + "\n" + decomposed + sep + "x\n"
		if f != FormatAAN {
			body = "s" + sep + "t\n" + body
		}
		el, err := ReadEdges(strings.NewReader(body), "in", f, LoadOptions{})
		if err != nil || !slices.Equal(el.IDs, []string{"x", composed}) {
			t.Errorf("%s: %v ids %q, want [x %q]", f, err, el.IDs, composed)
		}
	}
}

// Parsing in blocks on several goroutines gives the edges of the serial
// parse, in file order, and an error's line counts across blocks.
func TestParallelParseMatchesSerial(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 400000; i++ { // about 5 MB: several blocks
		fmt.Fprintf(&b, "%d %d\n", (i*7919)%100003, (i*104729)%100019)
	}
	body := b.String()
	serial, err := ReadEdges(strings.NewReader(body), "in.el", FormatEL, LoadOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	par, err := ReadEdges(strings.NewReader(body), "in.el", FormatEL, LoadOptions{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if serial.N != par.N || !slices.Equal(serial.Src, par.Src) || !slices.Equal(serial.Dst, par.Dst) || len(par.Src) != 400000 {
		t.Fatalf("parallel parse differs: n %d/%d, %d/%d edges", serial.N, par.N, len(serial.Src), len(par.Src))
	}
	bad := body + "1 2\n3 z\n"
	_, err = ReadEdges(strings.NewReader(bad), "in.el", FormatEL, LoadOptions{Workers: 4})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 400002 {
		t.Fatalf("error in the last block: %v, want line 400002", err)
	}
}

// The graph built from a file does not depend on the worker count.
func TestLoadGraphWorkers(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&b, "%d\t%d\n", (i*31)%5000, (i*17+3)%5000)
	}
	p := fixture.WriteFile(t, dir, "w.snap", b.String())
	g1, _, err1 := LoadGraph(p, "w", LoadOptions{Workers: 1})
	g4, _, err4 := LoadGraph(p, "w", LoadOptions{Workers: 4})
	if err1 != nil || err4 != nil {
		t.Fatal(err1, err4)
	}
	if g1.Summary() != g4.Summary() || !slices.Equal(g1.InColIdx, g4.InColIdx) || !slices.Equal(g1.OutRowPtr, g4.OutRowPtr) {
		t.Fatalf("%s vs %s", g1.Summary(), g4.Summary())
	}
}

func TestSniffFormat(t *testing.T) {
	for _, c := range []struct {
		name, head string
		want       Format
	}{
		{"x.txt", "%%MatrixMarket matrix coordinate pattern general\n", FormatMTX},
		{"x.EL.gz", "0 1\n", FormatEL},
		{"web-Google.txt.gz", "# Directed graph (each unordered pair of nodes is saved once): web-Google.txt\n# Nodes: 875713\n0\t11342\n", FormatSNAP},
		{"acl.txt.gz", "C08-3004 , A00-1002\n", FormatAAN},
		{"aan.txt", "C08-3004 ==> A00-1002\n", FormatAAN},
		{"edges", "A\tB\nB\tC\n", FormatAAN}, // no header: CSV/TSV only by name
		{"edges.txt", "A,B\n", FormatAAN},
		{"edges.TSV.gz", "source\ttarget\nA\tB\n", FormatTSV},
		{"edges.csv", "source,target\nA,B\n", FormatCSV},
		{"edges", "A B\n", FormatAAN},
		{"g.snap", "a b\n", FormatSNAP},
	} {
		if got := SniffFormat(c.name, []byte(c.head)); got != c.want {
			t.Errorf("SniffFormat(%q, %q) = %s, want %s", c.name, c.head, got, c.want)
		}
	}
}

// WriteEdges then LoadGraph gives back the same nodes, edges and counts in
// every written format.
func TestWriteEdgesRoundTrip(t *testing.T) {
	el := &EdgeList{IDs: []string{"A", "B, C", "D"}, Src: []int32{0, 1, 2, 2, 0}, Dst: []int32{1, 2, 0, 2, 1}}
	want, err := el.Build("w", 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range WriteFormats {
		var b bytes.Buffer
		if err := WriteEdges(&b, el, f, "w"); err != nil {
			t.Fatal(err)
		}
		p := fixture.WriteFile(t, dir, "w."+string(f), b.String())
		g, info, err := LoadGraph(p, "w", LoadOptions{})
		if err != nil || info.Format != f {
			t.Fatalf("%s: %v (format %s)\n%s", f, err, info.Format, b.String())
		}
		if g.Summary() != want.Summary() || !slices.Equal(g.OutColIdx, want.OutColIdx) || !slices.Equal(g.InColIdx, want.InColIdx) {
			t.Errorf("%s: %s, want %s", f, g.Summary(), want.Summary())
		}
		if f == FormatCSV && !slices.Equal(ids(g), el.IDs) {
			t.Errorf("csv ids %q", ids(g))
		}
	}
	if err := WriteEdges(discardWriter{}, el, FormatAAN, ""); err == nil {
		t.Error("WriteEdges wrote aan")
	}
}

type discardWriter struct{}

func (discardWriter) Write(b []byte) (int, error) { return len(b), nil }

// Metadata: a CSV or TSV with an id column and any of year, title, label.
func TestLoadMetadataColumns(t *testing.T) {
	dir := t.TempDir()
	p := fixture.WriteFile(t, dir, "meta.csv.gz", "id,label\n10,\"hub, big\"\n20,leaf\n")
	m, err := LoadPapers(p)
	if err != nil {
		t.Fatal(err)
	}
	if q, ok := m.Lookup("10"); !ok || q.Label != "hub, big" || !m.Has("label") || m.Has("title") || m.Has("year") {
		t.Errorf("csv metadata: %+v %v, columns %q", q, ok, m.Columns)
	}
	p = fixture.WriteFile(t, dir, "meta.tsv", "id\tyear\nA\t1999\n")
	if m, err := LoadPapers(p); err != nil || m.ByID["A"].Year != 1999 || !slices.Equal(m.Columns, []string{"year"}) {
		t.Errorf("tsv year only: %v %+v", err, m)
	}
	p = fixture.WriteFile(t, dir, "bad.csv", "id,title\nA,\"unterminated\n")
	if _, err := LoadPapers(p); err == nil || !strings.HasPrefix(err.Error(), p+":2:") {
		t.Errorf("bad csv: %v", err)
	}
}
