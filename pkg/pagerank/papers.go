package pagerank

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gocarina/gocsv"
)

// Paper is one row of a metadata table (papers.tsv of the AAN staging has
// the header "id year title title_source in_citation_graph"; a user's table
// has an id column and any of title, year and label).
type Paper struct {
	ID          string
	Year        int // 0 when unknown
	Title       string
	Label       string
	TitleSource string
}

// Papers is paper metadata keyed by node id.
type Papers struct {
	ByID    map[string]Paper
	Rows    int      // data rows read
	Columns []string // which of "year", "title", "label" the table has, in that order
}

// Has reports whether the table has the column ("year", "title" or "label").
func (p *Papers) Has(column string) bool { return p != nil && slices.Contains(p.Columns, column) }

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
	Label       string `csv:"label"`
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

func (t *tsvReader) ReadAll() ([][]string, error) { return readAll(t.Read) }

// readAll collects the records of read until io.EOF.
func readAll(read func() ([]string, error)) ([][]string, error) {
	var out [][]string
	for {
		rec, err := read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
}

// csvLines is a gocsv.CSVReader over encoding/csv that keeps each record's
// line number (RFC 4180 quoting; a record may span lines).
type csvLines struct {
	r      *csv.Reader
	name   string
	lines  []int
	header []string
}

func (c *csvLines) Read() ([]string, error) {
	rec, err := c.r.Read()
	if err != nil {
		return nil, csvError(c.name, err, c.r, rec)
	}
	line, _ := c.r.FieldPos(0)
	for i := range rec {
		rec[i] = strings.TrimSpace(rec[i])
	}
	if c.header == nil {
		rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
		c.header = rec
	}
	c.lines = append(c.lines, line)
	return rec, nil
}

func (c *csvLines) ReadAll() ([][]string, error) { return readAll(c.Read) }

// ParsePapers reads a tab-separated metadata table (see ParseMetadata).
func ParsePapers(r io.Reader, name string) (*Papers, error) { return ParseMetadata(r, name, '\t') }

// ParseMetadata reads a metadata table, tab-separated (sep '\t', no quoting:
// titles hold bare double quotes) or comma-separated (sep ',', RFC 4180),
// through gocsv. The header names an id column and at least one of year,
// title and label (title_source is kept when present; other columns are
// ignored). Every field is trimmed of surrounding whitespace (so "X \t1990"
// names node X, as in the edge list); ids are NFC-normalised like the graph
// readers' string ids. Errors name the file and line: a missing or
// twice-named header column, a row with the wrong field count, an empty id,
// a year that is not an integer, a duplicate id.
func ParseMetadata(r io.Reader, name string, sep rune) (*Papers, error) {
	var rd gocsv.CSVReader
	var lines func() []int
	var header func() []string
	if sep == ',' {
		cr := csv.NewReader(r)
		cr.FieldsPerRecord = 0
		c := &csvLines{r: cr, name: name}
		rd, lines, header = c, func() []int { return c.lines }, func() []string { return c.header }
	} else {
		tr := &tsvReader{sc: bufio.NewScanner(r), name: name}
		tr.sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
		rd, lines, header = tr, func() []int { return tr.lines }, func() []string { return tr.header }
	}
	var rows []paperRow
	err := gocsv.UnmarshalCSV(rd, &rows)
	if len(lines()) == 0 && (err == nil || err.Error() == "empty csv file given") {
		return nil, fmt.Errorf("%s: empty file, want a header line \"id\\tyear\\ttitle...\"", name)
	}
	if err != nil {
		if _, ok := err.(*ParseError); ok {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := checkPapersHeader(header(), name, lines()[0]); err != nil {
		return nil, err
	}
	p := &Papers{ByID: make(map[string]Paper, len(rows))}
	for _, c := range []string{"year", "title", "label"} {
		if slices.Contains(header(), c) {
			p.Columns = append(p.Columns, c)
		}
	}
	for i, row := range rows {
		line := lines()[i+1]
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
		id, err := cleanID(row.ID, true)
		if err != nil {
			return nil, &ParseError{name, line, err.Error()}
		}
		if _, dup := p.ByID[id]; dup {
			return nil, &ParseError{name, line, fmt.Sprintf("duplicate id %q", id)}
		}
		p.ByID[id] = Paper{ID: id, Year: year, Title: row.Title, Label: row.Label, TitleSource: row.TitleSource}
	}
	p.Rows = len(rows)
	return p, nil
}

// checkPapersHeader rejects a header without an id column and at least one
// of year, title and label, or with a column named twice (gocsv would
// silently take the last one).
func checkPapersHeader(header []string, name string, line int) error {
	seen := make(map[string]bool, len(header))
	for _, h := range header {
		h = strings.TrimSpace(h)
		if seen[h] && h != "" {
			return &ParseError{name, line, fmt.Sprintf("header names column %q twice", clip(h))}
		}
		seen[h] = true
	}
	if !seen["id"] {
		return &ParseError{name, line, fmt.Sprintf("header has no \"id\" column: want the columns id and any of year, title, label, got %q", clip(strings.Join(header, "\t")))}
	}
	if !seen["year"] && !seen["title"] && !seen["label"] {
		return &ParseError{name, line, fmt.Sprintf("header has none of the columns year, title, label: want id and any of them, got %q", clip(strings.Join(header, "\t")))}
	}
	return nil
}

// LoadPapers reads the metadata table at path, gzip-compressed or not (see
// OpenInput): comma-separated when the name ends in .csv (before any .gz),
// tab-separated otherwise (see ParseMetadata).
func LoadPapers(path string) (*Papers, error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sep := '\t'
	if strings.HasSuffix(strings.ToLower(strings.TrimSuffix(path, ".gz")), ".csv") {
		sep = ','
	}
	return ParseMetadata(f, path, sep)
}
