package pagerank

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/internal/fixture"
)

func parse(s string) (*EdgeList, error) { return ParseEdgeList(strings.NewReader(s), "edges.txt") }

func TestParseEdgeListForms(t *testing.T) {
	inputs := map[string]string{
		"aan":     "A , B\nB , C\n",
		"comma":   "A,B\nB,C",
		"tabs":    "A\tB\r\nB\tC\r\n",
		"snap":    "# Directed graph\n# FromNodeId ToNodeId\nA B\n\n   B   C   \n",
		"bom":     "\ufeffA , B\nB , C\n",
		"percent": "% matrix market style comment\nA B\nB C\n",
	}
	for name, in := range inputs {
		el, err := parse(in)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if strings.Join(el.IDs, ",") != "A,B,C" || len(el.Src) != 2 || el.Src[1] != 1 || el.Dst[1] != 2 {
			t.Errorf("%s: ids %v src %v dst %v", name, el.IDs, el.Src, el.Dst)
		}
	}
}

func TestParseEdgeListErrors(t *testing.T) {
	cases := []struct{ in, line, problem string }{
		{"A , B\nC\n", ":2:", "want 2 fields"},
		{"A , B\nA , B , C\n", ":2:", "got 3"},
		{"A , B\n , C\n", ":2:", "empty node id"},
		{"A , B\nA\xff , C\n", ":2:", "not valid UTF-8"},
		{"", "", "no edges"},
		{"# only\n# comments\n", "", "no edges"},
	}
	for _, c := range cases {
		_, err := parse(c.in)
		if err == nil || !strings.Contains(err.Error(), "edges.txt"+c.line) || !strings.Contains(err.Error(), c.problem) {
			t.Errorf("%q: error %v, want edges.txt%s ... %s", c.in, err, c.line, c.problem)
		}
	}
	var pe *ParseError
	if _, err := parse("X\n"); !errors.As(err, &pe) || pe.Line != 1 {
		t.Errorf("want *ParseError at line 1, got %v", err)
	}
}

func TestLoadEdgeListFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadEdgeList(dir, "d"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	missing := filepath.Join(dir, "missing.txt")
	if _, err := LoadEdgeList(missing, "m"); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("missing: %v", err)
	}
	p := filepath.Join(dir, "self.txt")
	os.WriteFile(p, []byte("A , A\nA , B\nA , B\n"), 0o644)
	g, err := LoadEdgeList(p, "self")
	if err != nil || g.Summary() != "loaded 2 nodes and 1 edges (dropped 1 self-loops, 1 duplicates); 1 dangling" {
		t.Errorf("got %v, %v", g, err)
	}
}

func TestParsePapers(t *testing.T) {
	in := "id\tyear\ttitle\ttitle_source\tin_citation_graph\n" +
		"A00-1001\t2000\t\"Quoted\" Title: with, comma\taan\t1\n" +
		"P98-2133\t1998\t\tnone\t1\n"
	p, err := ParsePapers(strings.NewReader(in), "papers.tsv")
	if err != nil {
		t.Fatal(err)
	}
	a, ok := p.Lookup("A00-1001")
	if !ok || a.Year != 2000 || a.Title != "\"Quoted\" Title: with, comma" || a.TitleSource != "aan" {
		t.Fatalf("%+v", a)
	}
	if b, _ := p.Lookup("P98-2133"); b.Title != "" || b.Year != 1998 || p.Rows != 2 {
		t.Fatalf("%+v rows %d", b, p.Rows)
	}
	bad := []struct{ in, want string }{
		{"id\tyear\ttitle\nX\tnineteen\tT\n", "papers.tsv:2: year \"nineteen\""},
		{"id\tyear\ttitle\nX\t1990\tT\nX\t1991\tU\n", "papers.tsv:3: duplicate id \"X\""},
		{"id\tyear\ttitle\nX\t1990\n", "papers.tsv:2: want 3 tab-separated fields"},
		{"id\tyear\ttitle\n\t1990\tT\n", "papers.tsv:2: empty id"},
		{"", "papers.tsv: empty file"},
	}
	for _, c := range bad {
		if _, err := ParsePapers(strings.NewReader(c.in), "papers.tsv"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

func TestLoadRealPapers(t *testing.T) {
	edges := fixture.NeedBundled(t, fixture.Edges)
	g, err := LoadEdgeList(edges, "aan")
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadPapers(filepath.Join(filepath.Dir(edges), "papers.tsv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	in, notIn := p.Coverage(g)
	// data/aan/README.md: 19,267 rows, every graph node has a row (16,589), 2,678 rows are not in the graph.
	if p.Rows != 19267 || in != 16589 || notIn != 2678 {
		t.Fatalf("rows %d, in graph %d, not in graph %d", p.Rows, in, notIn)
	}
	if q, _ := p.Lookup("J93-2004"); q.Year != 1993 || !strings.Contains(q.Title, "Penn Treebank") {
		t.Fatalf("J93-2004: %+v", q)
	}
}
