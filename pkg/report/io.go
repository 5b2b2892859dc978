package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// File names inside a report directory.
const (
	HTMLFile = "index.html"
	JSONFile = "results.json"
)

// Files renders run into the files of a report directory (results.json,
// the tables of RunCSV, index.html), keyed by name, for OutDir.Write.
func Files(run *Run) (map[string][]byte, error) {
	return studyFiles(run, RunCSV, RenderHTML)
}

// Write renders run (in memory, before anything is written) and writes dir
// as one unit with WriteDir: afterwards dir holds either the new report or,
// on any error or crash, the previous one.
func Write(dir string, run *Run) error {
	return writeRendered(dir)(Files(run))
}

// writeRendered writes what a study's Files function rendered into dir
// as one unit (WriteDir), or returns its error having written nothing.
func writeRendered(dir string) func(files map[string][]byte, err error) error {
	return func(files map[string][]byte, err error) error {
		if err != nil {
			return err
		}
		return WriteDir(dir, files)
	}
}

// sanitize makes run encodable: encoding/json cannot write NaN or ±Inf, so a
// Result whose residuals, sums, ranks or stages hold one is cut at the first
// non-finite value and its Err says where (a run that produced NaN has failed).
func (run *Run) sanitize() {
	if run.Schema == "" {
		run.Schema = Schema
	}
	for i := range run.Results {
		r := &run.Results[i]
		note := func(what string, k int) {
			msg := fmt.Sprintf("%s became non-finite at index %d", what, k)
			if r.Err == "" {
				r.Err = msg
			} else if !strings.Contains(r.Err, msg) {
				r.Err += "; " + msg
			}
		}
		if k := firstNonFinite(r.Residuals); k >= 0 {
			note("residual", k)
			r.Residuals = r.Residuals[:k]
		}
		if k := firstNonFinite(r.Sums); k >= 0 {
			note("sum of ranks", k)
			r.Sums = r.Sums[:k]
		}
		if k := firstNonFinite(r.Ranks); k >= 0 {
			note("rank", k)
			r.Ranks = nil
		}
	}
	// Every other float64 the model holds (protocol, stages, timings, scores):
	// a non-finite value is written as 0 and named in the notes. F fields
	// keep NaN, which they write as null.
	scrubNotes(run, &run.Notes)
}

// fType is the reflect.Type of F, whose NaN is meaningful (null).
var fType = reflect.TypeOf(F(0))

// scrub sets every non-finite plain float64 reachable from v to 0 and
// appends its path (e.g. "timings[2].timing.mean_ms") to bad.
func scrub(v reflect.Value, path string, bad *[]string) {
	switch v.Kind() {
	case reflect.Float64:
		if v.Type() != fType && v.CanSet() && !finite(v.Float()) {
			*bad = append(*bad, strings.TrimPrefix(path, "."))
			v.SetFloat(0)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			scrub(v.Elem(), path, bad)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name == "" {
				name = t.Field(i).Name
			}
			scrub(v.Field(i), path+"."+name, bad)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			scrub(v.Index(i), fmt.Sprintf("%s[%d]", path, i), bad)
		}
	}
}

// scrubNotes writes every non-finite plain float64 of doc (a pointer to a
// document) as 0 and names them, the first five and a count of the rest, in
// one note added to notes unless it is there already.
func scrubNotes(doc any, notes *[]string) {
	var bad []string
	scrub(reflect.ValueOf(doc).Elem(), "", &bad)
	if len(bad) == 0 {
		return
	}
	if len(bad) > 5 {
		bad = append(bad[:5], fmt.Sprintf("and %d more", len(bad)-5))
	}
	if msg := "non-finite values written as 0: " + strings.Join(bad, ", "); !slices.Contains(*notes, msg) {
		*notes = append(*notes, msg)
	}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func firstNonFinite(xs []float64) int {
	for i, x := range xs {
		if !finite(x) {
			return i
		}
	}
	return -1
}

// Document is a study document prlab writes as one JSON file and reads
// back: results.json (Run), scale.json (ScaleStudy) and incremental.json
// (IncrementalStudy).
type Document interface {
	Run | ScaleStudy | IncrementalStudy
}

// document is what Encode, Read and Decode need of a *Document: its schema
// and file name, the scrub of non-finite numbers before writing, Validate.
type document[T Document] interface {
	*T
	validator
	sanitize()
	schemaFile() (schema, file string)
}

func (*Run) schemaFile() (string, string)              { return Schema, JSONFile }
func (*ScaleStudy) schemaFile() (string, string)       { return ScaleSchema, ScaleJSONFile }
func (*IncrementalStudy) schemaFile() (string, string) { return IncrementalSchema, IncrementalJSONFile }

// Encode is doc's JSON file (results.json, scale.json or incremental.json),
// indented: a missing schema is set, non-finite numbers are written as 0
// and named in the document's notes.
func Encode[T Document, PT document[T]](doc PT) ([]byte, error) {
	doc.sanitize()
	_, file := doc.schemaFile()
	return encodeDocument(doc, file)
}

// Read reads and validates the document file at path written by Write,
// WriteScale or WriteIncremental (errors as Decode's, naming path).
func Read[T Document, PT document[T]](path string) (*T, error) {
	return readFile(path, Decode[T, PT])
}

// Decode parses and validates a document's JSON bytes; name is used in
// errors, which give the line:column of a syntax or type error or the field
// path of a semantic one, e.g.
// `results.json: correctness[3].status: "maybe" is not one of pass, fail, failed, skipped`.
func Decode[T Document, PT document[T]](data []byte, name string) (*T, error) {
	schema, _ := PT(new(T)).schemaFile()
	return decodeDocument[T, PT](data, name, schema)
}

// validator is a study model that checks its own invariants.
type validator interface{ Validate() error }

// decodeDocument is the one JSON reader of the documents encodeDocument
// writes (results.json, scale.json, incremental.json): the "schema" must
// be schema; a BOM is dropped; empty input, invalid UTF-8, a missing or
// other schema, unknown fields, trailing data and Validate's errors are
// errors naming the file and the line:column or the field.
func decodeDocument[T any, PT interface {
	*T
	validator
}](data []byte, name, schema string) (*T, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: empty file, want a JSON object with \"schema\": %q", name, schema)
	}
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, size := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		return nil, fmt.Errorf("%s:%s: not valid UTF-8", name, lineCol(data, int64(off)))
	}
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, jsonError(name, data, err, -1)
	}
	if head.Schema == nil {
		return nil, fmt.Errorf("%s: schema: missing, want %q", name, schema)
	}
	if *head.Schema != schema {
		return nil, fmt.Errorf("%s: schema: %q is not supported, want %q", name, clip(*head.Schema), schema)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	s := new(T)
	if err := dec.Decode(s); err != nil {
		return nil, jsonError(name, data, err, dec.InputOffset())
	}
	if dec.More() {
		return nil, fmt.Errorf("%s:%s: unexpected data after the JSON object", name, lineCol(data, dec.InputOffset()))
	}
	if err := PT(s).Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

func jsonError(name string, data []byte, err error, off int64) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%s:%s: invalid JSON: %v", name, lineCol(data, se.Offset), se)
	case errors.As(err, &te):
		return fmt.Errorf("%s:%s: %s: want %s, got JSON %s", name, lineCol(data, te.Offset), te.Field, te.Type, te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: truncated JSON (unexpected end of file)", name)
	}
	if off >= 0 {
		return fmt.Errorf("%s:%s: %v", name, lineCol(data, off), strings.TrimPrefix(err.Error(), "json: "))
	}
	return fmt.Errorf("%s: %v", name, strings.TrimPrefix(err.Error(), "json: "))
}

// lineCol turns a byte offset into "line:column" (1-based).
func lineCol(data []byte, off int64) string {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Sprintf("%d:%d", line, col)
}

var statuses = []string{StatusPass, StatusFail, StatusFailed, StatusSkipped}
var kinds = []string{KindCPU, KindGPU, KindExercise}

// eachRow runs check on every row of a table, naming row i "table[i]".
func eachRow[T any](rows []T, table string, check func(p string, row T) error) error {
	for i, r := range rows {
		if err := check(fmt.Sprintf("%s[%d]", table, i), r); err != nil {
			return err
		}
	}
	return nil
}

var tiers = []string{TierNone, TierPass, TierBronze, TierSilver, TierGold}

// checkHead checks what every document starts with: its schema (want), its
// name and its environment's date; the error names the field.
func checkHead(schema, want, name, date string) error {
	if schema != want {
		return fmt.Errorf("schema: %q is not supported, want %q", clip(schema), want)
	}
	if name == "" {
		return errors.New("name: missing")
	}
	if date == "" {
		return errors.New("environment.date: missing")
	}
	return nil
}

// oneOf is nil when v is one of allowed, else an error naming the field p.
func oneOf(p, v string, allowed []string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("%s: %q is not one of %s", p, clip(v), strings.Join(allowed, ", "))
}

// unique is nil when name is not empty and not yet in seen, which it then
// joins; else the error naming the field p.
func unique(seen map[string]bool, p, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%s: missing", p)
	case seen[name]:
		return fmt.Errorf("%s: duplicate %q", p, clip(name))
	}
	seen[name] = true
	return nil
}

// timedRuns is nil when every timed run in runsMs is a finite number of ms,
// else the error naming the field p[j].
func timedRuns(p string, runsMs []float64) error {
	for j, ms := range runsMs {
		if !finite(ms) {
			return fmt.Errorf("%s[%d]: %v is not a number of ms", p, j, ms)
		}
	}
	return nil
}

// check is the error naming row p's field when the row's implementation is
// missing or its kind or status (status) is not a known one.
func (id Identity) check(p, status string) error {
	if id.Implementation == "" {
		return fmt.Errorf("%s.implementation: missing", p)
	}
	if err := oneOf(p+".kind", id.Kind, kinds); err != nil {
		return err
	}
	return oneOf(p+".status", status, statuses)
}

// Validate checks the invariants Read[Run] relies on; the error names the field.
func (run *Run) Validate() error {
	if err := checkHead(run.Schema, Schema, run.Name, run.Env.Date); err != nil {
		return err
	}
	for i, d := range run.Env.Datasets {
		if len(d.SHA256) != 64 || strings.Trim(d.SHA256, "0123456789abcdef") != "" {
			return fmt.Errorf("environment.datasets[%d].sha256: %q is not 64 lowercase hex digits", i, clip(d.SHA256))
		}
		if c := d.ContentSHA256; c != "" && (len(c) != 64 || strings.Trim(c, "0123456789abcdef") != "") {
			return fmt.Errorf("environment.datasets[%d].content_sha256: %q is not 64 lowercase hex digits", i, clip(c))
		}
	}
	impls := map[string]bool{}
	for i, im := range run.Implementations {
		p := fmt.Sprintf("implementations[%d]", i)
		if err := unique(impls, p+".name", im.Name); err != nil {
			return err
		}
		if err := oneOf(p+".kind", im.Kind, kinds); err != nil {
			return err
		}
	}
	known := func(p, name string) error {
		if name == "" {
			return fmt.Errorf("%s.implementation: missing", p)
		}
		if !impls[name] {
			return fmt.Errorf("%s.implementation: %q is not in implementations", p, name)
		}
		return nil
	}
	// row checks a row's implementation and its status.
	row := func(p, impl, status string) error {
		if err := known(p, impl); err != nil {
			return err
		}
		return oneOf(p+".status", status, statuses)
	}
	if err := eachRow(run.Correctness, "correctness", func(p string, c Check) error {
		if err := known(p, c.Implementation); err != nil {
			return err
		}
		if c.Case == "" {
			return fmt.Errorf("%s.case: missing", p)
		}
		if err := row(p, c.Implementation, c.Status); err != nil {
			return err
		}
		if c.N < 0 || c.NNZ < 0 || c.Iterations < 0 {
			return fmt.Errorf("%s: n, nnz and iterations must be >= 0 (got %d, %d, %d)", p, c.N, c.NNZ, c.Iterations)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := eachRow(run.Convergence, "convergence", func(p string, c Convergence) error {
		return row(p, c.Implementation, c.Status)
	}); err != nil {
		return err
	}
	for i, t := range run.Top {
		if t.Rank != i+1 {
			return fmt.Errorf("top[%d].rank: %d, want %d", i, t.Rank, i+1)
		}
	}
	if err := eachRow(run.Timings, "timings", func(p string, t TimingRow) error {
		if err := row(p, t.Implementation, t.Status); err != nil {
			return err
		}
		if t.Status == StatusPass && len(t.Timing.RunsMs) == 0 {
			return fmt.Errorf("%s.timing.runs_ms: empty, but a timed row needs its runs", p)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := eachRow(run.Tiers, "tiers", func(p string, t TierRow) error {
		if err := known(p, t.Implementation); err != nil {
			return err
		}
		return oneOf(p+".tier", t.Tier, tiers)
	}); err != nil {
		return err
	}
	for i, r := range run.Results {
		p := fmt.Sprintf("results[%d]", i)
		if err := known(p, r.Implementation); err != nil {
			return err
		}
		if r.Case == "" {
			return fmt.Errorf("%s.case: missing", p)
		}
		if len(r.Residuals) > r.Iterations || len(r.Sums) > r.Iterations {
			return fmt.Errorf("%s: %d residuals and %d sums for %d iterations", p, len(r.Residuals), len(r.Sums), r.Iterations)
		}
		if len(r.Ranks) != 0 && len(r.Ranks) != r.N {
			return fmt.Errorf("%s.ranks: %d values for n = %d", p, len(r.Ranks), r.N)
		}
	}
	return nil
}

// encodeDocument is the one JSON writer of every document prlab writes
// (results.json, scale.json, incremental.json, verify.json): indented by
// one space, with a final newline; file names the document in errors.
func encodeDocument(doc any, file string) ([]byte, error) {
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", file, err)
	}
	return append(b, '\n'), nil
}

// readFile reads the regular file path and decodes it with decode, which
// names path in its errors.
func readFile[T any](path string, decode func(data []byte, name string) (T, error)) (T, error) {
	data, err := readRegular(path)
	if err != nil {
		var zero T
		return zero, err
	}
	return decode(data, path)
}

// readRegular reads a file, rejecting directories with a clear error.
func readRegular(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, want a file", path)
	}
	return os.ReadFile(path)
}
