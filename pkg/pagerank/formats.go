package pagerank

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Format names a graph file format that LoadGraph reads.
type Format string

// The formats LoadGraph reads, each also gzip-compressed (RFC 1952, any name).
const (
	// FormatAAN is the ACL Anthology Network edge list: "CITING , CITED"
	// (the bundled acl.txt) or the original release's "CITING ==> CITED";
	// it also takes "A,B" and whitespace-separated "A B" lines. String ids.
	FormatAAN Format = "aan"
	// FormatSNAP is a SNAP edge list (snap.stanford.edu/data): '#' comment
	// lines, whitespace-separated "FROM TO" with integer ids (columns after
	// the second are ignored). A file whose first edge has non-integer ids is
	// read with string ids, as FormatAAN. Integer ids are kept as given: the
	// node set is the ids that occur, in ascending order.
	FormatSNAP Format = "snap"
	// FormatEL is the GAP benchmark suite's edge list (.el): "FROM TO",
	// 0-based integers; n = largest id + 1, so ids that never occur are
	// isolated nodes (as GAP's reader builds them).
	FormatEL Format = "el"
	// FormatWEL is GAP's weighted edge list (.wel): "FROM TO WEIGHT"; the
	// weight is checked to be a number and ignored.
	FormatWEL Format = "wel"
	// FormatMTX is MatrixMarket coordinate format (math.nist.gov/MatrixMarket):
	// the banner "%%MatrixMarket matrix coordinate pattern|integer|real
	// general|symmetric|skew-symmetric", '%' comments, the size line
	// "ROWS COLS ENTRIES" (square; n = ROWS, so isolated nodes exist), then
	// "I J [VALUE]" entries, 1-based; entry (I, J) is the edge I -> J
	// (SuiteSparse's convention). Symmetric matrices store each off-diagonal
	// entry once and it becomes an edge both ways. Values are ignored.
	FormatMTX Format = "mtx"
	// FormatCSV is comma-separated values (RFC 4180 quoting) with a header
	// line; the source and target columns are chosen by name (default the
	// first two). String ids.
	FormatCSV Format = "csv"
	// FormatTSV is tab-separated values with a header line, no quoting.
	FormatTSV Format = "tsv"
)

// Formats lists every Format, in the order help texts show them.
var Formats = []Format{FormatSNAP, FormatEL, FormatWEL, FormatMTX, FormatCSV, FormatTSV, FormatAAN}

// ParseFormat returns the Format named s ("" is "" = sniff).
func ParseFormat(s string) (Format, error) {
	if s == "" {
		return "", nil
	}
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	if !slices.Contains(Formats, f) {
		var names []string
		for _, x := range Formats {
			names = append(names, string(x))
		}
		return "", fmt.Errorf("unknown graph format %q: want one of %s", s, strings.Join(names, ", "))
	}
	return f, nil
}

// LoadOptions are the choices a user makes about a graph file.
type LoadOptions struct {
	Format     Format   // "" = sniffed from the file name and first lines (SniffFormat)
	Undirected bool     // store each edge both ways (SNAP's undirected graphs list each edge once)
	Columns    []string // csv/tsv: the source and target column names; nil = the first two columns
	Workers    int      // goroutines for parsing and building; <= 0 = GOMAXPROCS
}

// LoadInfo says how a graph file was read.
type LoadInfo struct {
	Format Format
	Notes  []string // what was ignored, e.g. "weights in column 3 ignored: PageRank here is unweighted"
}

// SniffFormat picks the format of a graph file from its name (a trailing
// .gz removed) and head, the first bytes of its decompressed content: the
// MatrixMarket banner wins; then the extensions .el, .wel, .mtx, .csv, .tsv,
// .snap; then the first line that is not blank or a comment: " ==> " or
// " , " is FormatAAN, integer fields are FormatSNAP; anything else is read
// as FormatAAN (the most lenient reader: string ids, "A,B", "A<TAB>B" and
// "A B" lines, no header). CSV and TSV are never guessed from the content:
// their first line is a header, and taking a first edge "A<TAB>B" for one
// would drop it without a word; name such a file .csv/.tsv or pass --format.
func SniffFormat(name string, head []byte) Format {
	if bytes.HasPrefix(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), []byte("%%MatrixMarket")) {
		return FormatMTX
	}
	base := strings.ToLower(strings.TrimSuffix(filepath.Base(name), ".gz"))
	switch strings.TrimPrefix(filepath.Ext(base), ".") {
	case "el":
		return FormatEL
	case "wel":
		return FormatWEL
	case "mtx":
		return FormatMTX
	case "csv":
		return FormatCSV
	case "tsv":
		return FormatTSV
	case "snap":
		return FormatSNAP
	}
	if strings.HasSuffix(base, ".snap.txt") {
		return FormatSNAP
	}
	for _, line := range bytes.Split(head, []byte("\n")) {
		s := strings.TrimSpace(string(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))))
		if s == "" || s[0] == '#' || s[0] == '%' {
			continue
		}
		switch {
		case strings.Contains(s, "==>") || strings.Contains(s, " , "):
			return FormatAAN
		case allInts(strings.Fields(s)):
			return FormatSNAP
		}
		return FormatAAN
	}
	return FormatAAN
}

func allInts(fields []string) bool {
	if len(fields) < 2 {
		return false
	}
	for _, f := range fields[:2] {
		if _, ok := parseUint([]byte(f)); !ok {
			return false
		}
	}
	return true
}

// sniffBytes is how much of a file SniffFormat sees.
const sniffBytes = 64 << 10

// LoadGraph reads the graph file at path (read-only; gzip-compressed or
// not, see OpenInput) in opt.Format, or the sniffed one, and builds its
// Graph named name: self-loops and duplicate edges are dropped and counted
// (g.Summary() is the load line). Integer ids are kept as given (g.ID);
// string ids are NFC-normalised. Errors name the file and, for bad content,
// the line, what is wrong and what was expected. Limits: fewer than 2^31-1
// nodes and at most 2^31-1 edges (int32 indices), lines up to 16 MiB.
func LoadGraph(path, name string, opt LoadOptions) (*Graph, LoadInfo, error) {
	return LoadGraphContext(context.Background(), path, name, opt)
}

// LoadGraphContext is LoadGraph that stops soon after ctx is done (reading
// through ContextReader, building with the Context builders); the error is
// then ctx's.
func LoadGraphContext(ctx context.Context, path, name string, opt LoadOptions) (*Graph, LoadInfo, error) {
	el, info, err := ReadGraphFileContext(ctx, path, opt)
	if err != nil {
		return nil, info, err
	}
	if len(el.Src) >= 1<<20 {
		// The parse's block arrays are garbage now: collect them before the
		// build allocates the CSRs, so the peak resident set is the edge
		// list and the CSRs, not also the blocks (about 8 bytes per edge).
		runtime.GC()
	}
	g, err := el.BuildContext(ctx, name, opt.Workers)
	if err != nil {
		return nil, info, fmt.Errorf("%s: %w", path, err)
	}
	return g, info, nil
}

// ReadGraphFile reads the edges of the graph file at path (read-only,
// gzip-compressed or not) in opt.Format or the sniffed one; see LoadGraph.
func ReadGraphFile(path string, opt LoadOptions) (*EdgeList, LoadInfo, error) {
	return ReadGraphFileContext(context.Background(), path, opt)
}

// ReadGraphFileContext is ReadGraphFile that stops soon after ctx is done.
func ReadGraphFileContext(ctx context.Context, path string, opt LoadOptions) (*EdgeList, LoadInfo, error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, LoadInfo{}, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(ContextReader(ctx, f), sniffBytes)
	format := opt.Format
	if format == "" {
		head, _ := br.Peek(sniffBytes)
		format = SniffFormat(path, head)
	}
	el, err := ReadEdges(br, path, format, opt)
	if err != nil {
		return nil, LoadInfo{Format: format}, err
	}
	return el, LoadInfo{Format: format, Notes: el.Notes}, nil
}

// ReadEdges parses r in format f (name is used in error messages). With
// opt.Undirected every edge is also stored reversed. A UTF-8 byte order
// mark at the start (Windows editors write one) is skipped in every format.
func ReadEdges(r io.Reader, name string, f Format, opt LoadOptions) (*EdgeList, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	if head, _ := br.Peek(len(utf8BOM)); string(head) == utf8BOM {
		br.Discard(len(utf8BOM))
	}
	r = br
	var el *EdgeList
	var err error
	switch f {
	case FormatAAN:
		el, err = ParseEdgeList(r, name)
	case FormatSNAP:
		el, err = parseSNAP(r, name, opt.Workers)
	case FormatEL:
		el, err = parseInts(r, name, intSpec{what: `"FROM TO" (GAP .el, 0-based integer ids)`, fields: 2}, opt.Workers)
	case FormatWEL:
		el, err = parseInts(r, name, intSpec{what: `"FROM TO WEIGHT" (GAP .wel, 0-based integer ids)`, fields: 3, weight: true}, opt.Workers)
		if el != nil {
			el.Notes = append(el.Notes, weightsNote)
		}
	case FormatMTX:
		el, err = parseMTX(r, name, opt.Workers)
	case FormatCSV, FormatTSV:
		el, err = parseTable(r, name, f, opt.Columns)
	default:
		return nil, fmt.Errorf("%s: unknown graph format %q", name, f)
	}
	if err != nil {
		return nil, err
	}
	if opt.Undirected {
		if 2*len(el.Src) > maxEdges {
			return nil, fmt.Errorf("%s: %d edges stored both ways exceed the int32 index limit %d", name, len(el.Src), maxEdges)
		}
		m := len(el.Src)
		el.Src = append(el.Src, el.Dst[:m]...)
		el.Dst = append(el.Dst, el.Src[:m]...)
		el.Notes = append(el.Notes, "undirected: each edge stored both ways")
	}
	return el, nil
}

const weightsNote = "weights in column 3 ignored: PageRank here is unweighted"

// utf8BOM is the UTF-8 byte order mark, U+FEFF.
const utf8BOM = "\xef\xbb\xbf"

// Build builds the Graph of el (NewGraphParallel with workers goroutines).
func (el *EdgeList) Build(name string, workers int) (*Graph, error) {
	return el.BuildContext(context.Background(), name, workers)
}

// BuildContext is Build that stops soon after ctx is done.
func (el *EdgeList) BuildContext(ctx context.Context, name string, workers int) (*Graph, error) {
	var g *Graph
	var err error
	if workers == 1 || len(el.Src) < 1<<16 {
		g, err = NewGraphContext(ctx, name, el.Nodes(), el.Src, el.Dst, el.IDs)
	} else {
		g, err = NewGraphParallelContext(ctx, name, el.Nodes(), el.Src, el.Dst, el.IDs, workers)
	}
	if err != nil {
		return nil, err
	}
	if el.IDs == nil {
		g.IDBase = el.IDBase
	}
	return g, nil
}

// ---------------------------------------------------------------- ids

// idTable interns string node ids in order of first appearance.
type idTable struct {
	index  map[string]int32
	ids    []string
	spaces bool // ids may hold the space U+0020 (CSV and TSV cells)
}

// intern returns the dense index of id, adding it when new. id is checked
// (cleanID) and NFC-normalised first; problems come back as the error text.
func (t *idTable) intern(id string) (int32, error) {
	if v, ok := t.index[id]; ok {
		return v, nil
	}
	clean, err := cleanID(id, t.spaces)
	if err != nil {
		return 0, err
	}
	if v, ok := t.index[clean]; ok {
		t.index[id] = v
		return v, nil
	}
	if len(t.ids) >= maxNodes {
		return 0, fmt.Errorf("more than %d distinct node ids (int32 index limit)", maxNodes)
	}
	if t.index == nil {
		t.index = make(map[string]int32)
	}
	v := int32(len(t.ids))
	t.index[clean] = v
	if clean != id {
		t.index[id] = v
	}
	t.ids = append(t.ids, clean)
	return v, nil
}

// cleanID returns id in Unicode normalisation form NFC (so a composed and a
// decomposed "é" are one node), or an error when id holds whitespace (the
// space U+0020 is allowed with spaces, for CSV and TSV cells), a control
// character (NUL, a lone CR) or a format character (zero-width space
// U+200B, bidi marks U+200E/U+200F, a byte-order mark): such ids look like
// others on screen but would be distinct nodes.
func cleanID(id string, spaces bool) (string, error) {
	ascii := true
	for i := 0; i < len(id); i++ {
		if c := id[i]; c >= 0x80 {
			ascii = false
			break
		} else if c < 0x20 || c == 0x7f || (c == ' ' && !spaces) {
			return "", fmt.Errorf("node id %q contains %U (whitespace, a control or an invisible format character)", clip(id), rune(c))
		}
	}
	if ascii { // ASCII is NFC and has no format characters
		return id, nil
	}
	if !utf8.ValidString(id) {
		return "", errors.New("node id is not valid UTF-8")
	}
	for _, r := range id {
		if r == ' ' && spaces {
			continue
		}
		if unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", fmt.Errorf("node id %q contains %U (whitespace, a control or an invisible format character)", clip(id), r)
		}
	}
	return norm.NFC.String(id), nil
}

// ---------------------------------------------------------------- integer formats

// intSpec describes the lines of an integer edge-list format.
type intSpec struct {
	what   string // the expected line, for messages
	fields int    // exact field count; 0 = at least 2 (extra columns ignored)
	weight bool   // field 3 must be a number
	base   int64  // the smallest id (1 for MatrixMarket)
	n      int64  // ids must be < base+n when n > 0 (MatrixMarket's size line)
}

// lineProblem is a problem at a line local to a block.
type lineProblem struct {
	line    int
	problem string
}

// blockEdges is what parsing one block of lines gives.
type blockEdges struct {
	src, dst []int32
	lines    int   // newlines in the block
	maxID    int64 // largest id seen (after subtracting base), -1 when none
	maxLine  int   // the block-local line where maxID first occurs
	extra    bool  // a line had more than 2 fields (ignored columns)
	bad      *lineProblem
}

// blockSize is the unit of parallel parsing: the input is cut into blocks of
// about this many bytes at line ends and each block is parsed by one worker.
const blockSize = 1 << 20

// maxLine is the longest line a reader accepts (bytes).
const maxLine = 16 << 20

// parseUint parses a non-negative decimal integer of at most 18 digits.
func parseUint(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// parseBlock parses the lines of data by spec.
func parseBlock(data []byte, spec intSpec) blockEdges {
	res := blockEdges{maxID: -1}
	est := bytes.Count(data, []byte("\n")) + 1 // at most one edge per line: no growth garbage
	res.src, res.dst = make([]int32, 0, est), make([]int32, 0, est)
	limit := int64(maxNodes) // ids are < maxNodes after subtracting base
	if spec.n > 0 {
		limit = spec.n
	}
	var f [4][]byte
	line := 0
	for len(data) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
			res.lines++
		} else {
			l, data = data, nil
		}
		nf := 0
		for j := 0; j < len(l); {
			for j < len(l) && (l[j] == ' ' || l[j] == '\t' || l[j] == '\r') {
				j++
			}
			if j >= len(l) {
				break
			}
			k := j
			for k < len(l) && l[k] != ' ' && l[k] != '\t' && l[k] != '\r' {
				k++
			}
			if nf < len(f) {
				f[nf] = l[j:k]
			}
			nf++
			j = k
		}
		if nf == 0 || f[0][0] == '#' || f[0][0] == '%' {
			continue
		}
		if (spec.fields > 0 && nf != spec.fields) || nf < 2 {
			res.bad = &lineProblem{line, fmt.Sprintf("want %s, got %d field(s) in %q", spec.what, nf, clip(string(bytes.TrimSpace(l))))}
			return res
		}
		var ids [2]int64
		for c := 0; c < 2; c++ {
			v, ok := parseUint(f[c])
			if !ok {
				res.bad = &lineProblem{line, fmt.Sprintf("node id %q is not a non-negative integer: want %s", clip(string(f[c])), spec.what)}
				return res
			}
			v -= spec.base
			if v < 0 || v >= limit {
				if spec.n > 0 {
					res.bad = &lineProblem{line, fmt.Sprintf("index %d outside [%d, %d] (the size line's %d rows)", v+spec.base, spec.base, spec.n+spec.base-1, spec.n)}
				} else {
					res.bad = &lineProblem{line, fmt.Sprintf("node id %d exceeds the int32 index limit %d", v+spec.base, int64(maxNodes)-1+spec.base)}
				}
				return res
			}
			ids[c] = v
		}
		if spec.weight {
			if _, err := strconv.ParseFloat(string(f[2]), 64); err != nil {
				res.bad = &lineProblem{line, fmt.Sprintf("weight %q is not a number: want %s", clip(string(f[2])), spec.what)}
				return res
			}
		} else if nf > 2 {
			res.extra = true
		}
		res.src = append(res.src, int32(ids[0]))
		res.dst = append(res.dst, int32(ids[1]))
		if m := max(ids[0], ids[1]); m > res.maxID { // the same compare max() makes; the line is noted for the memory guard
			res.maxID, res.maxLine = m, line
		}
	}
	return res
}

// parseBlocks cuts r into blocks at line ends, parses them with up to
// workers goroutines (<= 0: GOMAXPROCS) and concatenates the edges in file
// order. firstLine is the number of lines already read before r (headers).
// maxLine is the 1-based line of the file where the largest id maxID first
// occurs. Errors name the file and the first bad line.
func parseBlocks(r io.Reader, name string, firstLine int, spec intSpec, workers int) (src, dst []int32, maxID int64, maxLine int, extra bool, err error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type job struct {
		seq  int
		data []byte
	}
	jobs := make(chan job, workers)
	results := make(map[int]blockEdges)
	done := make(chan struct {
		seq int
		res blockEdges
	}, workers)
	for w := 0; w < workers; w++ {
		go func() {
			for j := range jobs {
				done <- struct {
					seq int
					res blockEdges
				}{j.seq, parseBlock(j.data, spec)}
			}
		}()
	}
	// Read and dispatch; collect results as they come so that at most about
	// 2*workers blocks are in flight.
	var readErr error
	var carry []byte
	seq, pending := 0, 0
	linesBefore := firstLine // lines in blocks already read, for the too-long error
	collect := func() {
		d := <-done
		results[d.seq] = d.res
		pending--
	}
	for {
		buf := make([]byte, len(carry)+blockSize)
		copy(buf, carry)
		k, rerr := io.ReadFull(r, buf[len(carry):])
		buf = buf[:len(carry)+k]
		eof := rerr == io.EOF || rerr == io.ErrUnexpectedEOF
		if rerr != nil && !eof {
			readErr = rerr
			linesBefore += bytes.Count(buf, []byte("\n")) // the lines read whole before it broke
			break
		}
		cut := len(buf)
		if !eof {
			cut = bytes.LastIndexByte(buf, '\n') + 1
			if cut == 0 { // no line end in the whole buffer
				if len(buf) > maxLine {
					readErr = &ParseError{name, linesBefore + 1, "line longer than 16 MiB"}
					break
				}
				carry = buf
				continue
			}
		}
		carry = append([]byte(nil), buf[cut:]...)
		if cut > 0 {
			linesBefore += bytes.Count(buf[:cut], []byte("\n"))
			for pending >= 2*workers {
				collect()
			}
			jobs <- job{seq, buf[:cut]}
			seq++
			pending++
		}
		if eof {
			break
		}
	}
	close(jobs)
	for pending > 0 {
		collect()
	}
	if readErr != nil {
		if _, ok := readErr.(*ParseError); ok {
			return nil, nil, 0, 0, false, readErr
		}
		if errors.Is(readErr, context.Canceled) || errors.Is(readErr, context.DeadlineExceeded) {
			return nil, nil, 0, 0, false, fmt.Errorf("%s: read: %w", name, readErr)
		}
		return nil, nil, 0, 0, false, &ReadError{File: name, Line: linesBefore + 1, Err: readErr}
	}
	total, line := 0, firstLine
	maxID = -1
	for i := 0; i < seq; i++ {
		b := results[i]
		if b.bad != nil {
			return nil, nil, 0, 0, false, &ParseError{name, line + b.bad.line, b.bad.problem}
		}
		total += len(b.src)
		if b.maxID > maxID {
			maxID, maxLine = b.maxID, line+b.maxLine
		}
		line += b.lines
		extra = extra || b.extra
	}
	if total > maxEdges {
		return nil, nil, 0, 0, false, fmt.Errorf("%s: %d edges exceed the int32 index limit %d", name, total, maxEdges)
	}
	src, dst = make([]int32, 0, total), make([]int32, 0, total)
	for i := 0; i < seq; i++ {
		b := results[i]
		src = append(src, b.src...)
		dst = append(dst, b.dst...)
		delete(results, i) // let the block's arrays go
		b.src, b.dst = nil, nil
	}
	return src, dst, maxID, maxLine, extra, nil
}

// parseInts reads a GAP .el or .wel file: n = largest id + 1, ids kept as
// the indices.
func parseInts(r io.Reader, name string, spec intSpec, workers int) (*EdgeList, error) {
	src, dst, maxID, maxLine, _, err := parseBlocks(r, name, 0, spec, workers)
	if err != nil {
		return nil, err
	}
	if len(src) == 0 {
		return nil, fmt.Errorf("%s: no edges (the file is empty or holds only comments): want lines %s", name, spec.what)
	}
	if err := checkGraphMemory(maxID+1, int64(len(src))); err != nil {
		return nil, &ParseError{name, maxLine, fmt.Sprintf("node id %d: ids are kept as given, so the graph has n = %d nodes (largest id + 1); %v; "+
			"renumber the ids densely from 0, or read them as labels with --format snap (integer ids, renumbered) or --format csv (string ids)", maxID, maxID+1, err)}
	}
	return &EdgeList{N: int(maxID + 1), Src: src, Dst: dst}, nil
}

// parseSNAP reads a SNAP edge list. Integer ids: the node set is the ids
// that occur, in ascending order (ids 0..n-1 all present keep their index).
// A first edge line with a non-integer id switches to string ids
// (ParseEdgeList).
func parseSNAP(r io.Reader, name string, workers int) (*EdgeList, error) {
	br := bufio.NewReaderSize(r, sniffBytes)
	head, _ := br.Peek(sniffBytes)
	for _, line := range bytes.Split(head, []byte("\n")) {
		s := strings.TrimSpace(string(line))
		if s == "" || s[0] == '#' || s[0] == '%' {
			continue
		}
		if !allInts(strings.Fields(s)) {
			return ParseEdgeList(br, name)
		}
		break
	}
	spec := intSpec{what: `"FROM TO" (SNAP: whitespace-separated integer ids)`}
	src, dst, maxID, _, extra, err := parseBlocks(br, name, 0, spec, workers)
	if err != nil {
		return nil, err
	}
	if len(src) == 0 {
		return nil, fmt.Errorf("%s: no edges (the file is empty or holds only comments): want lines %s", name, spec.what)
	}
	el := &EdgeList{Src: src, Dst: dst}
	if extra {
		el.Notes = append(el.Notes, "columns after the second ignored: PageRank here is unweighted")
	}
	// Compact the ids that occur, keeping their order.
	if maxID+1 > int64(2*len(src))+1<<20 { // sparse ids: sort the distinct ones
		ids := slices.Concat(src, dst)
		slices.Sort(ids)
		ids = slices.Compact(ids)
		el.IDs = make([]string, len(ids))
		for i, id := range ids {
			el.IDs[i] = strconv.FormatInt(int64(id), 10)
		}
		for i := range src {
			s, _ := slices.BinarySearch(ids, src[i])
			d, _ := slices.BinarySearch(ids, dst[i])
			src[i], dst[i] = int32(s), int32(d)
		}
		return el, nil
	}
	present := make([]uint64, maxID/64+1)
	for i := range src {
		present[src[i]>>6] |= 1 << (src[i] & 63)
		present[dst[i]>>6] |= 1 << (dst[i] & 63)
	}
	n := 0
	for _, w := range present {
		n += bits.OnesCount64(w)
	}
	if int64(n) == maxID+1 { // every id 0..max occurs: ids are the indices
		el.N = n
		return el, nil
	}
	rank := make([]int32, maxID+1)
	el.IDs = make([]string, 0, n)
	for id := int64(0); id <= maxID; id++ {
		if present[id>>6]&(1<<(id&63)) != 0 {
			rank[id] = int32(len(el.IDs))
			el.IDs = append(el.IDs, strconv.FormatInt(id, 10))
		}
	}
	for i := range src {
		src[i], dst[i] = rank[src[i]], rank[dst[i]]
	}
	return el, nil
}

// parseMTX reads a MatrixMarket coordinate file (see FormatMTX).
func parseMTX(r io.Reader, name string, workers int) (*EdgeList, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	line := 0
	next := func() (string, bool) {
		s, err := br.ReadString('\n')
		if s == "" && err != nil {
			return "", false
		}
		line++
		return strings.TrimRight(s, "\r\n"), true
	}
	banner, ok := next()
	banner = strings.TrimPrefix(banner, "\ufeff")
	f := strings.Fields(strings.ToLower(banner))
	if !ok || len(f) != 5 || f[0] != "%%matrixmarket" {
		return nil, &ParseError{name, 1, fmt.Sprintf("want the banner \"%%%%MatrixMarket matrix coordinate pattern general\", got %q", clip(banner))}
	}
	if f[1] != "matrix" || f[2] != "coordinate" {
		return nil, &ParseError{name, 1, fmt.Sprintf("want a \"matrix coordinate\" (sparse) file, got %q %q", f[1], f[2])}
	}
	var spec intSpec
	switch f[3] {
	case "pattern":
		spec.fields = 2
	case "integer", "real":
		spec.fields = 3
	default:
		return nil, &ParseError{name, 1, fmt.Sprintf("field %q not supported: want pattern, integer or real", f[3])}
	}
	symmetric := false
	switch f[4] {
	case "general":
	case "symmetric", "skew-symmetric":
		symmetric = true
	default:
		return nil, &ParseError{name, 1, fmt.Sprintf("symmetry %q not supported: want general, symmetric or skew-symmetric", f[4])}
	}
	var size string
	for {
		s, ok := next()
		if !ok {
			return nil, &ParseError{name, line + 1, "want the size line \"ROWS COLS ENTRIES\", got the end of the file"}
		}
		if t := strings.TrimSpace(s); t != "" && t[0] != '%' {
			size = t
			break
		}
	}
	sf := strings.Fields(size)
	var dims [3]int64
	for i := range dims {
		if len(sf) != 3 {
			break
		}
		v, ok := parseUint([]byte(sf[i]))
		if !ok {
			sf = nil
			break
		}
		dims[i] = v
	}
	if len(sf) != 3 {
		return nil, &ParseError{name, line, fmt.Sprintf("want the size line \"ROWS COLS ENTRIES\" (three non-negative integers), got %q", clip(size))}
	}
	if dims[0] != dims[1] {
		return nil, &ParseError{name, line, fmt.Sprintf("matrix is %d x %d: an adjacency matrix must be square", dims[0], dims[1])}
	}
	if dims[0] < 1 || dims[0] > int64(maxNodes) {
		return nil, &ParseError{name, line, fmt.Sprintf("%d rows: want 1 to %d (int32 index limit)", dims[0], maxNodes)}
	}
	entries := dims[2]
	if symmetric {
		entries *= 2 // each off-diagonal entry is stored both ways
	}
	if err := checkGraphMemory(dims[0], entries); err != nil {
		return nil, &ParseError{name, line, fmt.Sprintf("the size line says %d rows and %d entries; %v; renumber the nodes densely "+
			"(the size line's n is the number of nodes), or give the edges as string ids with --format csv", dims[0], dims[2], err)}
	}
	spec.base, spec.n = 1, dims[0]
	if spec.fields == 2 {
		spec.what = `"I J" (MatrixMarket pattern entry, 1-based)`
	} else {
		spec.what = `"I J VALUE" (MatrixMarket ` + f[3] + ` entry, 1-based)`
		spec.weight = true
	}
	src, dst, _, _, _, err := parseBlocks(br, name, line, spec, workers)
	if err != nil {
		return nil, err
	}
	if len(src) == 0 && dims[2] == 0 {
		return nil, fmt.Errorf("%s: no entries (the size line, line %d, says 0): a graph needs at least one edge", name, line)
	}
	if int64(len(src)) != dims[2] {
		return nil, fmt.Errorf("%s: the size line (line %d) says %d entries, the file has %d", name, line, dims[2], len(src))
	}
	el := &EdgeList{N: int(dims[0]), IDBase: 1, Src: src, Dst: dst}
	if spec.weight {
		el.Notes = append(el.Notes, "values in column 3 ignored: PageRank here is unweighted")
	}
	if symmetric {
		m := len(src)
		for i := 0; i < m; i++ {
			if src[i] != dst[i] {
				el.Src = append(el.Src, dst[i])
				el.Dst = append(el.Dst, src[i])
			}
		}
		if len(el.Src) > maxEdges {
			return nil, fmt.Errorf("%s: %d edges (symmetric entries stored both ways) exceed the int32 index limit %d", name, len(el.Src), maxEdges)
		}
		el.Notes = append(el.Notes, fmt.Sprintf("%s: each off-diagonal entry stored both ways", f[4]))
	}
	return el, nil
}

// ---------------------------------------------------------------- csv / tsv

// parseTable reads a CSV (RFC 4180) or TSV (no quoting) edge table with a
// header; columns names the source and target columns (nil: the first two).
func parseTable(r io.Reader, name string, f Format, columns []string) (*EdgeList, error) {
	var read func() ([]string, int, error) // record, its line
	if f == FormatCSV {
		cr := csv.NewReader(r)
		cr.FieldsPerRecord = 0
		cr.ReuseRecord = true
		read = func() ([]string, int, error) {
			rec, err := cr.Read()
			if err != nil {
				return nil, 0, csvError(name, err, cr, rec)
			}
			line, _ := cr.FieldPos(0)
			return rec, line, nil
		}
	} else {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), maxLine)
		line, width := 0, -1
		read = func() ([]string, int, error) {
			for sc.Scan() {
				line++
				b := bytes.TrimRight(sc.Bytes(), "\r")
				if len(bytes.TrimSpace(b)) == 0 {
					continue
				}
				rec := strings.Split(string(b), "\t")
				if width < 0 {
					width = len(rec)
				} else if len(rec) != width {
					return nil, 0, &ParseError{name, line, fmt.Sprintf("want %d tab-separated fields like the header, got %d", width, len(rec))}
				}
				return rec, line, nil
			}
			if err := sc.Err(); err != nil {
				if errors.Is(err, bufio.ErrTooLong) {
					return nil, 0, &ParseError{name, line + 1, "line longer than 16 MiB"}
				}
				return nil, 0, err
			}
			return nil, 0, io.EOF
		}
	}
	header, hline, err := read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file, want a header line naming the source and target columns", name)
	}
	if err != nil {
		return nil, wrapRead(name, err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(strings.TrimPrefix(header[i], "\ufeff"))
	}
	header = slices.Clone(header)
	if len(header) < 2 {
		return nil, &ParseError{name, hline, fmt.Sprintf("header %q has %d column(s): want at least a source and a target column", clip(strings.Join(header, ",")), len(header))}
	}
	col := [2]int{0, 1}
	if columns != nil {
		if len(columns) != 2 {
			return nil, fmt.Errorf("%s: --columns wants two names (source,target), got %d", name, len(columns))
		}
		for k, want := range columns {
			col[k] = slices.Index(header, want)
			if col[k] < 0 {
				return nil, &ParseError{name, hline, fmt.Sprintf("header has no column %q (columns: %s)", want, strings.Join(header, ", "))}
			}
		}
	}
	el := &EdgeList{}
	t := idTable{spaces: true}
	for {
		rec, line, err := read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, wrapRead(name, err)
		}
		var uv [2]int32
		for k, c := range col {
			id := strings.TrimSpace(rec[c])
			if id == "" {
				return nil, &ParseError{name, line, fmt.Sprintf("empty node id in column %q", header[c])}
			}
			v, err := t.intern(id)
			if err != nil {
				return nil, &ParseError{name, line, err.Error()}
			}
			uv[k] = v
		}
		if len(el.Src) >= maxEdges {
			return nil, &ParseError{name, line, fmt.Sprintf("more than %d edges (int32 index limit)", maxEdges)}
		}
		el.Src = append(el.Src, uv[0])
		el.Dst = append(el.Dst, uv[1])
	}
	if len(el.Src) == 0 {
		return nil, fmt.Errorf("%s: no edges after the header", name)
	}
	el.IDs = t.ids
	// Said always, so a header-less table whose first edge was taken for the
	// header is visible in the load notes.
	el.Notes = append(el.Notes, fmt.Sprintf("columns %s,%s from the header line (line %d) are the source and target", header[col[0]], header[col[1]], hline))
	var ignored []string
	for i, h := range header {
		if i != col[0] && i != col[1] {
			ignored = append(ignored, fmt.Sprintf("%q", h))
		}
	}
	if len(ignored) > 0 {
		el.Notes = append(el.Notes, "columns "+strings.Join(ignored, ", ")+" ignored: PageRank here is unweighted")
	}
	return el, nil
}

// csvError is err from cr.Read as a ParseError naming file and line; a
// row whose field count differs from the header's (csv.ErrFieldCount, rec
// the row read) says how many fields the header has and how many were found.
func csvError(name string, err error, cr *csv.Reader, rec []string) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return err
	}
	if errors.Is(pe.Err, csv.ErrFieldCount) {
		return &ParseError{name, pe.Line, fmt.Sprintf("want %d comma-separated fields like the header, got %d", cr.FieldsPerRecord, len(rec))}
	}
	return &ParseError{name, pe.Line, pe.Err.Error()}
}

func wrapRead(name string, err error) error {
	if _, ok := err.(*ParseError); ok {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}
