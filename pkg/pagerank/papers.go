package pagerank

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gocarina/gocsv"
)

// Paper is one row of the metadata TSV (papers.tsv of the AAN staging:
// header "id year title title_source in_citation_graph").
type Paper struct {
	ID          string
	Year        int // 0 when unknown
	Title       string
	TitleSource string
}

// Papers is paper metadata keyed by node id.
type Papers struct {
	ByID map[string]Paper
	Rows int // data rows read
}

// Lookup returns the metadata of id, if present.
func (p *Papers) Lookup(id string) (Paper, bool) {
	if p == nil {
		return Paper{}, false
	}
	q, ok := p.ByID[id]
	return q, ok
}

// Coverage counts how many of g's nodes have metadata, and how many metadata
// rows name ids that are not in g (allowed; reported). A nil *Papers (no
// metadata file) covers nothing.
func (p *Papers) Coverage(g *Graph) (inGraph, notInGraph int) {
	if p == nil {
		return 0, 0
	}
	seen := make(map[string]bool, g.N)
	for v := 0; v < g.N; v++ {
		id := g.ID(v)
		seen[id] = true
		if _, ok := p.ByID[id]; ok {
			inGraph++
		}
	}
	for id := range p.ByID {
		if !seen[id] {
			notInGraph++
		}
	}
	return inGraph, notInGraph
}

// paperRow is the gocsv mapping of one TSV row. Year stays text so that a bad
// year is reported with its line number.
type paperRow struct {
	ID          string `csv:"id"`
	Year        string `csv:"year"`
	Title       string `csv:"title"`
	TitleSource string `csv:"title_source"`
}

// tsvReader implements gocsv.CSVReader over tab-separated lines without CSV
// quoting (titles in papers.tsv contain bare double quotes). It tracks line
// numbers so errors can name them.
type tsvReader struct {
	sc     *bufio.Scanner
	name   string
	line   int
	lines  []int // line number of each record returned
	width  int
	header []string // first record
}

func (t *tsvReader) Read() ([]string, error) {
	for t.sc.Scan() {
		t.line++
		b := t.sc.Bytes()
		if t.line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		b = bytes.TrimSuffix(b, []byte("\r"))
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if !utf8.Valid(b) {
			return nil, &ParseError{t.name, t.line, "line is not valid UTF-8"}
		}
		rec := strings.Split(string(b), "\t")
		for i := range rec { // trailing whitespace, a stray CR, spaces around an id
			rec[i] = strings.TrimSpace(rec[i])
		}
		if t.width == 0 {
			t.width = len(rec)
			t.header = rec
		} else if len(rec) != t.width {
			return nil, &ParseError{t.name, t.line, fmt.Sprintf("want %d tab-separated fields like the header, got %d", t.width, len(rec))}
		}
		t.lines = append(t.lines, t.line)
		return rec, nil
	}
	if err := t.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &ParseError{t.name, t.line + 1, "line longer than 4 MiB"}
		}
		return nil, fmt.Errorf("%s: read after line %d: %w", t.name, t.line, err)
	}
	return nil, io.EOF
}

func (t *tsvReader) ReadAll() ([][]string, error) {
	var out [][]string
	for {
		rec, err := t.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
}

// ParsePapers reads a metadata TSV with a header naming at least the columns
// id, year and title (title_source optional) through gocsv. Every field is
// trimmed of surrounding whitespace (so "X \t1990" names node X, as in the
// edge list). Errors name the file and line: a missing or
// twice-named header column, a row with the wrong field count, an empty id, a
// year that is not an integer, a duplicate id.
func ParsePapers(r io.Reader, name string) (*Papers, error) {
	tr := &tsvReader{sc: bufio.NewScanner(r), name: name}
	tr.sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	var rows []paperRow
	err := gocsv.UnmarshalCSV(tr, &rows)
	if len(tr.lines) == 0 && (err == nil || err.Error() == "empty csv file given") {
		return nil, fmt.Errorf("%s: empty file, want a header line \"id\\tyear\\ttitle...\"", name)
	}
	if err != nil {
		if _, ok := err.(*ParseError); ok {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := checkPapersHeader(tr.header, name, tr.lines[0]); err != nil {
		return nil, err
	}
	p := &Papers{ByID: make(map[string]Paper, len(rows))}
	for i, row := range rows {
		line := tr.lines[i+1]
		if row.ID == "" {
			return nil, &ParseError{name, line, "empty id (is there an \"id\" column in the header?)"}
		}
		year := 0
		if ys := strings.TrimSpace(row.Year); ys != "" {
			y, err := strconv.Atoi(ys)
			if err != nil {
				return nil, &ParseError{name, line, fmt.Sprintf("year %q of %s is not an integer", ys, row.ID)}
			}
			year = y
		}
		if _, dup := p.ByID[row.ID]; dup {
			return nil, &ParseError{name, line, fmt.Sprintf("duplicate id %q", row.ID)}
		}
		p.ByID[row.ID] = Paper{ID: row.ID, Year: year, Title: row.Title, TitleSource: row.TitleSource}
	}
	p.Rows = len(rows)
	return p, nil
}

// checkPapersHeader rejects a header without the columns id, year and title
// or with a column named twice (gocsv would silently take the last one).
func checkPapersHeader(header []string, name string, line int) error {
	seen := make(map[string]bool, len(header))
	for _, h := range header {
		h = strings.TrimSpace(h)
		if seen[h] && h != "" {
			return &ParseError{name, line, fmt.Sprintf("header names column %q twice", clip(h))}
		}
		seen[h] = true
	}
	for _, want := range []string{"id", "year", "title"} {
		if !seen[want] {
			return &ParseError{name, line, fmt.Sprintf("header has no %q column: want tab-separated columns id, year, title (title_source optional), got %q", want, clip(strings.Join(header, "\t")))}
		}
	}
	return nil
}

// LoadPapers reads the metadata TSV at path, gzip-compressed or not (see
// OpenInput and ParsePapers).
func LoadPapers(path string) (*Papers, error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParsePapers(f, path)
}
