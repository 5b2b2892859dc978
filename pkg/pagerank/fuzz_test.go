package pagerank

// Native fuzz targets for the two input parsers (issue 7). Seed corpora live
// in testdata/fuzz/<target>/ and run as ordinary tests with `go test`; fuzz
// one target at a time with, e.g.,
//
//	go test ./pkg/pagerank -run '^$' -fuzz '^FuzzParseEdgeList$' -fuzztime 3m
//
// Any crasher the fuzzer writes to testdata/fuzz is committed and stays a
// regression test.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// edgeSeeds are inputs of every accepted and rejected form (see
// TestBadEdgeListInputs and TestEdgeListWholeInputs).
var edgeSeeds = []string{
	"C08-3004 , A00-1002\nD09-1141 , A00-1002\nD12-1027 , A00-1002\nA00-1002 , A00-1002\n",
	"A,B\nB,C\nC,A\n",
	"# Directed graph\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n2\t0\n",
	"\ufeffA , B\r\nB , C\r\n",
	"% comment\n  A   B  \n\nB C\n",
	"A B\nA B\nB A\nA A\n",
	"",
	"# only\n",
	"A\n",
	"A B C\n",
	" , B\n",
	"A\xff B\n",
	"A B , C\n",
	"A B\rB C\r",
	"a b\n\ufeffa c\n",
}

// fuzzParser fuzzes parse (reading the file named file) from seeds: what it
// rejects must be a well-formed error (checkParseErr); what it accepts,
// check checks.
func fuzzParser[T any](f *testing.F, seeds []string, file string, parse func(io.Reader, string) (T, error), check func(t *testing.T, v T, data []byte)) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parse(bytes.NewReader(data), file)
		if err != nil {
			checkParseErr(t, err, file, data)
			return
		}
		check(t, v, data)
	})
}

func FuzzParseEdgeList(f *testing.F) {
	fuzzParser(f, edgeSeeds, "in.txt", ParseEdgeList, func(t *testing.T, el *EdgeList, data []byte) {
		checkEdgeList(t, el)
		g, err := NewGraph("fuzz", len(el.IDs), el.Src, el.Dst, el.IDs)
		if err != nil {
			t.Fatalf("parsed edge list rejected by NewGraph: %v", err)
		}
		checkGraph(t, g, len(el.Src))
		// Round trip: written back in SNAP form, the list parses to the same
		// ids and edges.
		var b strings.Builder
		for i := range el.Src {
			fmt.Fprintf(&b, "%s\t%s\n", el.IDs[el.Src[i]], el.IDs[el.Dst[i]])
		}
		el2, err := ParseEdgeList(strings.NewReader(b.String()), "round.txt")
		if err != nil {
			t.Fatalf("round trip: %v\n%q", err, b.String())
		}
		if !slices.Equal(el.IDs, el2.IDs) || !slices.Equal(el.Src, el2.Src) || !slices.Equal(el.Dst, el2.Dst) {
			t.Fatalf("round trip differs: %q %v %v vs %q %v %v", el.IDs, el.Src, el.Dst, el2.IDs, el2.Src, el2.Dst)
		}
	})
}

// checkParseErr asserts a parser error names the file and, for a
// *ParseError, a line that exists in the input (or the one after the last,
// for a line too long to read).
func checkParseErr(t *testing.T, err error, name string, data []byte) {
	t.Helper()
	if !strings.HasPrefix(err.Error(), name+":") {
		t.Fatalf("error %q does not name the file %s", err, name)
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		lines := bytes.Count(data, []byte("\n")) + 1
		if pe.File != name || pe.Line < 1 || pe.Line > lines+1 || pe.Problem == "" {
			t.Fatalf("ParseError %+v for input with %d lines", pe, lines)
		}
		if !strings.HasPrefix(err.Error(), fmt.Sprintf("%s:%d: ", name, pe.Line)) {
			t.Fatalf("error %q does not show file:line", err)
		}
	}
	if !utf8.ValidString(err.Error()) {
		t.Fatalf("error message is not valid UTF-8: %q", err)
	}
}

// checkEdgeList asserts the parser's output shape: dense ids in order of
// first appearance, each non-empty valid UTF-8 with no whitespace or control
// character, and one Src/Dst pair per edge line.
func checkEdgeList(t *testing.T, el *EdgeList) {
	t.Helper()
	if len(el.Src) == 0 || len(el.Src) != len(el.Dst) || len(el.IDs) == 0 {
		t.Fatalf("edge list with %d ids, %d src, %d dst", len(el.IDs), len(el.Src), len(el.Dst))
	}
	seen := make(map[string]bool, len(el.IDs))
	for _, id := range el.IDs {
		if id == "" || seen[id] || !utf8.ValidString(id) {
			t.Fatalf("bad or duplicate id %q", id)
		}
		if r, bad := badIDRune(id); bad || strings.ContainsAny(id, ",") || id[0] == '#' || id[0] == '%' {
			t.Fatalf("id %q holds %U, a comma or starts a comment", id, r)
		}
		seen[id] = true
	}
	next := int32(0) // ids are numbered in order of first appearance
	for i := range el.Src {
		for _, v := range []int32{el.Src[i], el.Dst[i]} {
			if v < 0 || v > next {
				t.Fatalf("edge %d uses index %d before %d", i, v, next)
			}
			if v == next {
				next++
			}
		}
	}
	if int(next) != len(el.IDs) {
		t.Fatalf("%d ids used, %d ids", next, len(el.IDs))
	}
}

// checkGraph asserts every Graph invariant: CSR shapes, rows sorted and
// without duplicates or self-loops, the in-edge CSR is exactly the
// transpose, degrees, 1/outdeg, the dangling flags and count, and that the
// dropped counts add up to the lines parsed.
func checkGraph(t *testing.T, g *Graph, lines int) {
	t.Helper()
	checkCSR(t, g)
	for _, rp := range [][]int32{g.OutRowPtr, g.InRowPtr} {
		if rp[0] != 0 || int(rp[g.N]) != g.NNZ {
			t.Fatalf("row pointer ends %d..%d, nnz %d", rp[0], rp[g.N], g.NNZ)
		}
		for v := 0; v < g.N; v++ {
			if rp[v] > rp[v+1] {
				t.Fatalf("row pointer decreases at %d", v)
			}
		}
	}
	for u := 0; u < g.N; u++ {
		row := g.OutColIdx[g.OutRowPtr[u]:g.OutRowPtr[u+1]]
		for j := 1; j < len(row); j++ {
			if row[j] == row[j-1] {
				t.Fatalf("duplicate edge %d -> %d kept", u, row[j])
			}
		}
	}
	rp, ci := Transpose(g.N, g.InRowPtr, g.InColIdx)
	if !slices.Equal(rp, g.OutRowPtr) || !slices.Equal(ci, g.OutColIdx) {
		t.Fatal("transpose of the in-edge CSR is not the out-edge CSR")
	}
	dangling := 0
	for u := 0; u < g.N; u++ {
		deg := g.OutRowPtr[u+1] - g.OutRowPtr[u]
		if g.OutDegree[u] != deg {
			t.Fatalf("outdeg[%d] = %d, row has %d", u, g.OutDegree[u], deg)
		}
		if deg == 0 {
			dangling++
			if g.Dangling[u] != 1 || g.InvOutDegree[u] != 0 {
				t.Fatalf("dangling node %d: flag %d inv %v", u, g.Dangling[u], g.InvOutDegree[u])
			}
		} else if g.Dangling[u] != 0 || g.InvOutDegree[u] != 1/float64(deg) {
			t.Fatalf("node %d: flag %d inv %v deg %d", u, g.Dangling[u], g.InvOutDegree[u], deg)
		}
	}
	if dangling != g.DanglingCount {
		t.Fatalf("%d dangling nodes, DanglingCount %d", dangling, g.DanglingCount)
	}
	if g.NNZ+g.SelfLoops+g.Duplicates != lines {
		t.Fatalf("nnz %d + self-loops %d + duplicates %d != %d edge lines", g.NNZ, g.SelfLoops, g.Duplicates, lines)
	}
}

var paperSeeds = []string{
	"id\tyear\ttitle\ttitle_source\tin_citation_graph\nA00-1001\t2000\tBusTUC - A Natural Language Bus Route Oracle\taan\t1\nA00-1002\t2000\tMachine Translation Of Very Close Languages\taan\t1\n",
	"id\tyear\ttitle\nX\t1990\t\"Quoted\" Title: with, comma\nY\t\t\n",
	"\ufeffid\tyear\ttitle\r\nX\t1990\tT\r\n",
	"title\tyear\tid\nT\t1990\tX\n",
	"",
	"id\tyear\ttitle\n",
	"id\tyear\ttitle\nX\tnineteen\tT\n",
	"id\tyear\ttitle\nX\t1990\tT\nX\t1991\tU\n",
	"id\tyear\ttitle\nX\t1990\n",
	"id\tyear\ttitle\n\t1990\tT\n",
	"id\tid\tyear\ttitle\nX\tY\t1990\tT\n",
	"id year title\nX 1990 T\n",
	"id\tyear\ttitle\nX\xff\t1990\tT\n",
}

func FuzzParsePapers(f *testing.F) {
	fuzzParser(f, paperSeeds, "papers.tsv", ParsePapers, func(t *testing.T, p *Papers, data []byte) {
		if p.Rows != len(p.ByID) {
			t.Fatalf("%d rows, %d ids", p.Rows, len(p.ByID))
		}
		ids := make([]string, 0, len(p.ByID))
		for id, q := range p.ByID {
			if id == "" || id != strings.TrimSpace(id) || q.ID != id || !utf8.ValidString(id+q.Title+q.TitleSource) {
				t.Fatalf("bad entry %q: %+v", id, q)
			}
			if strings.ContainsAny(id+q.Title+q.TitleSource, "\t\n") {
				t.Fatalf("entry %q holds a tab or newline: %+v", id, q)
			}
			ids = append(ids, id)
		}
		// Round trip: written back as a TSV, the metadata parses the same.
		slices.Sort(ids)
		var b strings.Builder
		b.WriteString("id\tyear\ttitle\ttitle_source\n")
		for _, id := range ids {
			q := p.ByID[id]
			y := ""
			if q.Year != 0 {
				y = fmt.Sprint(q.Year)
			}
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", id, y, q.Title, q.TitleSource)
		}
		p2, err := ParsePapers(strings.NewReader(b.String()), "round.tsv")
		if err != nil {
			t.Fatalf("round trip: %v\n%q", err, b.String())
		}
		if p2.Rows != p.Rows {
			t.Fatalf("round trip: %d rows, want %d", p2.Rows, p.Rows)
		}
		for id, q := range p.ByID {
			if p2.ByID[id] != q {
				t.Fatalf("round trip: %+v, want %+v", p2.ByID[id], q)
			}
		}
	})
}

// fuzzFormat is the fuzz body shared by the readers of LoadGraph's formats:
// any input either parses to edges inside [0, n) that build a Graph keeping
// every invariant (checkGraph), and that written back as .el and read again
// give the same edges; or fails with an error naming the file and, for a
// *ParseError, a line of the input.
func fuzzFormat(f *testing.F, format Format, seeds []string) {
	for _, s := range seeds {
		f.Add([]byte(s), false)
	}
	name := "in." + string(format)
	f.Fuzz(func(t *testing.T, data []byte, undirected bool) {
		el, err := ReadEdges(bytes.NewReader(data), name, format, LoadOptions{Undirected: undirected, Workers: 2})
		if err != nil {
			checkParseErr(t, err, name, data)
			return
		}
		n := el.Nodes()
		if len(el.Src) == 0 || len(el.Src) != len(el.Dst) || n < 1 {
			t.Fatalf("%d nodes, %d src, %d dst", n, len(el.Src), len(el.Dst))
		}
		for i := range el.Src {
			if el.Src[i] < 0 || int(el.Src[i]) >= n || el.Dst[i] < 0 || int(el.Dst[i]) >= n {
				t.Fatalf("edge %d: %d -> %d outside [0, %d)", i, el.Src[i], el.Dst[i], n)
			}
		}
		for _, id := range el.IDs {
			if _, err := cleanID(id, true); err != nil || id == "" {
				t.Fatalf("id %q kept: %v", id, err)
			}
		}
		g, err := el.Build("fuzz", 2)
		if err != nil {
			t.Fatalf("parsed edges rejected by Build: %v", err)
		}
		checkGraph(t, g, len(el.Src))
		var b bytes.Buffer
		if err := WriteEdges(&b, el, FormatEL, "fuzz"); err != nil {
			t.Fatal(err)
		}
		back, err := ReadEdges(&b, "round.el", FormatEL, LoadOptions{Workers: 2})
		if err != nil || !slices.Equal(back.Src, el.Src) || !slices.Equal(back.Dst, el.Dst) {
			t.Fatalf("round trip through .el: %v", err)
		}
	})
}

func FuzzReadSNAP(f *testing.F) {
	fuzzFormat(f, FormatSNAP, []string{"# c\n0\t1\n1\t2\n2 0 7\n", "# c\nx y\n", "5 5\n", "1 2\n3\n", "0 99999999999\n", ""})
}

func FuzzReadEL(f *testing.F) {
	fuzzFormat(f, FormatEL, []string{"0 1\n1 2\r\n2 0\n", "0 1 2\n", "a b\n", "0 -1\n", "% c\n\n3 3\n"})
}

func FuzzReadWEL(f *testing.F) {
	fuzzFormat(f, FormatWEL, []string{"0 1 0.5\n1 2 -3e2\n", "0 1\n", "0 1 x\n", "0 1 NaN\n"})
}

func FuzzReadMTX(f *testing.F) {
	fuzzFormat(f, FormatMTX, []string{
		"%%MatrixMarket matrix coordinate pattern general\n% c\n3 3 2\n1 2\n3 1\n",
		"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1.5\n3 3 1\n",
		"%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 -4\n",
		"%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 2\n",
		"%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n",
		"%%MatrixMarket matrix array real general\n2 2\n1\n",
		"1 2\n",
	})
}

func FuzzReadCSV(f *testing.F) {
	fuzzFormat(f, FormatCSV, []string{"source,target,weight\nA,B,1\n\"C, Jr.\",A,2\n", "s,t\nA,\n", "s,t\nA,B,C\n", "s\nA\n", "s,t\n\"A\u200b\",B\n", ""})
}

func FuzzReadTSV(f *testing.F) {
	fuzzFormat(f, FormatTSV, []string{"source\ttarget\nA\tB\nB\tcafe\u0301\n", "s\tt\nA\tB\tC\n", "s\tt\n\tB\n", "s\tt\r\nA\tB\r\n"})
}
