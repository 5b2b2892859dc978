package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gocarina/gocsv"

	"github.com/prlab/prlab/pkg/pagerank"
)

// File names inside a report directory.
const (
	HTMLFile = "index.html"
	CSVFile  = "results.csv"
	JSONFile = "results.json"
)

// Files renders run into the three files of a report directory (index.html,
// results.csv, results.json), keyed by name, for OutDir.Write.
func Files(run *Run) (map[string][]byte, error) {
	run.sanitize()
	js, err := EncodeJSON(run)
	if err != nil {
		return nil, err
	}
	cs, err := EncodeCSV(run)
	if err != nil {
		return nil, err
	}
	page, err := RenderHTML(run)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{JSONFile: js, CSVFile: cs, HTMLFile: page}, nil
}

// Write renders run (in memory, before anything is written) and writes dir
// as one unit with WriteDir: afterwards dir holds either the new report or,
// on any error or crash, the previous one.
func Write(dir string, run *Run) error {
	files, err := Files(run)
	if err != nil {
		return err
	}
	return WriteDir(dir, files)
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
	var bad []string
	scrub(reflect.ValueOf(run).Elem(), "", &bad)
	if len(bad) > 0 {
		if len(bad) > 5 {
			bad = append(bad[:5], fmt.Sprintf("and %d more", len(bad)-5))
		}
		msg := "non-finite values written as 0: " + strings.Join(bad, ", ")
		if !slices.Contains(run.Notes, msg) {
			run.Notes = append(run.Notes, msg)
		}
	}
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

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func firstNonFinite(xs []float64) int {
	for i, x := range xs {
		if !finite(x) {
			return i
		}
	}
	return -1
}

// EncodeJSON is results.json: the whole Run, indented.
func EncodeJSON(run *Run) ([]byte, error) {
	run.sanitize()
	return encodeDocument(run, JSONFile)
}

// ReadJSON reads and validates a results.json written by Write. Errors name
// the file and either the line:column of a syntax or type error or the field
// path of a semantic one, e.g.
// `results.json: correctness[3].status: "maybe" is not one of pass, fail, failed, skipped`.
func ReadJSON(path string) (*Run, error) {
	return readFile(path, DecodeJSON)
}

// DecodeJSON parses and validates results.json bytes; name is used in errors.
func DecodeJSON(data []byte, name string) (*Run, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: empty file, want a JSON object with \"schema\": %q", name, Schema)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
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
		return nil, fmt.Errorf("%s: schema: missing, want %q", name, Schema)
	}
	if *head.Schema != Schema {
		return nil, fmt.Errorf("%s: schema: %q is not supported, want %q", name, *head.Schema, Schema)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	run := new(Run)
	if err := dec.Decode(run); err != nil {
		return nil, jsonError(name, data, err, dec.InputOffset())
	}
	if dec.More() {
		return nil, fmt.Errorf("%s:%s: unexpected data after the JSON object", name, lineCol(data, dec.InputOffset()))
	}
	if err := run.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return run, nil
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

// Validate checks the invariants ReadJSON relies on; the error names the field.
func (run *Run) Validate() error {
	if run.Schema != Schema {
		return fmt.Errorf("schema: %q is not supported, want %q", run.Schema, Schema)
	}
	if run.Name == "" {
		return errors.New("name: missing")
	}
	if run.Env.Date == "" {
		return errors.New("environment.date: missing")
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
		if im.Name == "" {
			return fmt.Errorf("%s.name: missing", p)
		}
		if impls[im.Name] {
			return fmt.Errorf("%s.name: duplicate %q", p, im.Name)
		}
		impls[im.Name] = true
		if !slices.Contains(kinds, im.Kind) {
			return fmt.Errorf("%s.kind: %q is not one of %s", p, im.Kind, strings.Join(kinds, ", "))
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
	status := func(p, s string) error {
		if !slices.Contains(statuses, s) {
			return fmt.Errorf("%s.status: %q is not one of %s", p, s, strings.Join(statuses, ", "))
		}
		return nil
	}
	for i, c := range run.Correctness {
		p := fmt.Sprintf("correctness[%d]", i)
		if err := known(p, c.Implementation); err != nil {
			return err
		}
		if c.Case == "" {
			return fmt.Errorf("%s.case: missing", p)
		}
		if err := status(p, c.Status); err != nil {
			return err
		}
		if c.N < 0 || c.NNZ < 0 || c.Iterations < 0 {
			return fmt.Errorf("%s: n, nnz and iterations must be >= 0 (got %d, %d, %d)", p, c.N, c.NNZ, c.Iterations)
		}
	}
	for i, c := range run.Convergence {
		p := fmt.Sprintf("convergence[%d]", i)
		if err := known(p, c.Implementation); err != nil {
			return err
		}
		if err := status(p, c.Status); err != nil {
			return err
		}
	}
	for i, t := range run.Top {
		if t.Rank != i+1 {
			return fmt.Errorf("top[%d].rank: %d, want %d", i, t.Rank, i+1)
		}
	}
	for i, t := range run.Timings {
		p := fmt.Sprintf("timings[%d]", i)
		if err := known(p, t.Implementation); err != nil {
			return err
		}
		if err := status(p, t.Status); err != nil {
			return err
		}
		if t.Status == StatusPass && len(t.Timing.RunsMs) == 0 {
			return fmt.Errorf("%s.timing.runs_ms: empty, but a timed row needs its runs", p)
		}
	}
	for i, t := range run.Tiers {
		p := fmt.Sprintf("tiers[%d]", i)
		if err := known(p, t.Implementation); err != nil {
			return err
		}
		if !slices.Contains([]string{TierNone, TierPass, TierBronze, TierSilver, TierGold}, t.Tier) {
			return fmt.Errorf("%s.tier: %q is not one of none, pass, bronze, silver, gold", p, t.Tier)
		}
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

// CSVRow is one row of results.csv. Section says which table it belongs to:
// "correctness" (case × implementation), "convergence" (real graph,
// tolerance mode), "timing" (real graph), "stage" (the copy rows with implementation "copy", the
// course's stage table with implementation "stage-table", then each GPU
// implementation's own stages), or "tier". Columns that do not apply
// to a section are empty. Times in ms, bytes in bytes, bandwidth in GB/s
// (1e9 bytes per second), CV as a fraction.
type CSVRow struct {
	Section        string `csv:"section"`
	Case           string `csv:"case"`
	Implementation string `csv:"implementation"`
	Label          string `csv:"label"`
	Kind           string `csv:"kind"`
	Precision      string `csv:"precision"`
	Status         string `csv:"status"`
	Reason         string `csv:"reason"`
	N              Count  `csv:"n"`
	NNZ            Count  `csv:"nnz"`
	Iterations     Count  `csv:"iterations"`
	ErrOverTol     F      `csv:"err_over_tol"`
	SumMinus1      F      `csv:"sum_minus_1"`
	SumAllowed     F      `csv:"sum_allowed"`
	Spearman       F      `csv:"spearman"`
	Tolerance      F      `csv:"tolerance"`
	FinalResidual  F      `csv:"final_residual"`
	MedianMs       F      `csv:"median_ms"`
	MeanMs         F      `csv:"mean_ms"`
	CV             F      `csv:"cv"`
	MsPerIter      F      `csv:"ms_per_iter"`
	Runs           Count  `csv:"runs"`
	Clock          string `csv:"clock"`
	Stage          string `csv:"stage"`
	StageMs        F      `csv:"stage_ms"`
	Bytes          Count  `csv:"bytes"`
	GBps           F      `csv:"gbps"`
	XDRAM          F      `csv:"x_dram"`
	Launches       F      `csv:"launches_per_iter"`
	HostSyncs      F      `csv:"host_syncs_per_iter"`
	Tier           string `csv:"tier"`
}

// CSV sections.
const (
	SectionCorrectness = "correctness"
	SectionConvergence = "convergence"
	SectionTiming      = "timing"
	SectionStage       = "stage"
	SectionTier        = "tier"
)

var sections = []string{SectionCorrectness, SectionConvergence, SectionTiming, SectionStage, SectionTier}

func blankRow(section string) CSVRow {
	return CSVRow{Section: section, ErrOverTol: NaN, SumMinus1: NaN, SumAllowed: NaN, Spearman: NaN,
		Tolerance: NaN, FinalResidual: NaN, MedianMs: NaN, MeanMs: NaN, CV: NaN, MsPerIter: NaN,
		StageMs: NaN, GBps: NaN, XDRAM: NaN, Launches: NaN, HostSyncs: NaN}
}

// CSVRows flattens run into results.csv rows.
func CSVRows(run *Run) []CSVRow {
	var rows []CSVRow
	for _, c := range run.Correctness {
		r := blankRow(SectionCorrectness)
		r.Case, r.Implementation, r.Label, r.Kind, r.Precision = c.Case, c.Implementation, c.Label, c.Kind, string(c.Precision)
		r.Status, r.Reason, r.N, r.NNZ, r.Iterations = c.Status, c.Reason, Count(c.N), Count(c.NNZ), Count(c.Iterations)
		r.ErrOverTol, r.SumMinus1, r.SumAllowed, r.Spearman = c.ErrOverTol, c.SumMinus1, c.SumAllowed, c.Spearman
		rows = append(rows, r)
	}
	for _, c := range run.Convergence {
		r := blankRow(SectionConvergence)
		r.Case, r.Implementation, r.Label, r.Kind, r.Precision = run.Graph.Name, c.Implementation, c.Label, c.Kind, string(c.Precision)
		r.Status, r.Reason, r.N, r.NNZ, r.Iterations = c.Status, c.Reason, Count(run.Graph.Nodes), Count(run.Graph.Edges), Count(c.Iterations)
		r.SumMinus1, r.SumAllowed, r.Spearman, r.Tolerance, r.FinalResidual = c.SumMinus1, c.SumAllowed, c.Spearman, F(c.Tolerance), c.FinalResidual
		rows = append(rows, r)
	}
	for _, t := range run.Timings {
		r := blankRow(SectionTiming)
		r.Case, r.Implementation, r.Label, r.Kind, r.Precision = t.Case, t.Implementation, t.Label, t.Kind, string(t.Precision)
		r.Status, r.Reason, r.Iterations = t.Status, t.Reason, Count(t.Timing.Iterations)
		r.N, r.NNZ = Count(run.Graph.Nodes), Count(run.Graph.Edges)
		if t.Status == StatusPass {
			r.MedianMs, r.MeanMs, r.CV = F(t.Timing.MedianMs), F(t.Timing.MeanMs), F(t.Timing.CV)
			r.MsPerIter = F(t.Timing.MsPerIteration())
			r.Runs, r.Clock = Count(len(t.Timing.RunsMs)), t.Timing.Clock
			r.Bytes, r.GBps, r.XDRAM = Count(t.BytesPerIteration), t.GBps, t.XDRAM
			r.Launches, r.HostSyncs = F(t.LaunchesPerIteration), F(t.HostSyncsPerIteration)
		}
		rows = append(rows, r)
	}
	for _, s := range run.CopyRows {
		rows = append(rows, stageRow(run.Graph.Name, "copy", "device-to-device copy", KindGPU, s))
	}
	for _, s := range run.Stages {
		rows = append(rows, stageRow(run.Graph.Name, "stage-table", "stage timed alone", KindGPU, s))
	}
	for _, t := range run.Timings {
		for _, s := range t.Stages {
			rows = append(rows, stageRow(t.Case, t.Implementation, t.Label, t.Kind, s))
		}
	}
	for _, t := range run.Tiers {
		r := blankRow(SectionTier)
		r.Implementation, r.Label, r.Kind, r.Tier, r.Reason = t.Implementation, t.Label, KindGPU, t.Tier, t.Why
		r.Status = StatusPass
		if !t.AllCorrect {
			r.Status = StatusFail
		}
		r.CV, r.XDRAM = t.CV, t.Fraction
		rows = append(rows, r)
	}
	return rows
}

func stageRow(cse, impl, label, kind string, s pagerank.Stage) CSVRow {
	r := blankRow(SectionStage)
	r.Case, r.Implementation, r.Label, r.Kind, r.Status = cse, impl, label, kind, StatusPass
	r.Stage, r.StageMs, r.Bytes, r.GBps, r.XDRAM = s.Name, F(s.Ms), Count(s.Bytes), F(s.GBps), F(s.XDRAM)
	r.Reason = s.Formula
	return r
}

// Count is a non-negative integer CSV cell, parsed strictly (gocsv's own int
// parsing silently truncates "6.5" to 6).
type Count int64

// MarshalCSV writes the decimal integer.
func (c Count) MarshalCSV() (string, error) { return strconv.FormatInt(int64(c), 10), nil }

// UnmarshalCSV reads a decimal integer; an empty cell is 0.
func (c *Count) UnmarshalCSV(s string) error {
	if s == "" {
		*c = 0
		return nil
	}
	x, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("want an integer, got %q", clip(s))
	}
	*c = Count(x)
	return nil
}

// EncodeCSV is results.csv (gocsv, with a header line).
func EncodeCSV(run *Run) ([]byte, error) {
	return encodeCSVRows(CSVRows(run), csvHeader(), CSVFile)
}

// csvHeader is the column names of CSVRow, in order.
func csvHeader() []string { return csvHeaderOf(blankRow(SectionCorrectness)) }

// ReadCSV reads and validates a results.csv written by Write. Errors name the
// file, line and column, e.g. `results.csv:7: column spearman: want a number
// or an empty cell, got "abc"`.
func ReadCSV(path string) ([]CSVRow, error) {
	return readFile(path, DecodeCSV)
}

// DecodeCSV parses and validates results.csv bytes; name is used in errors.
func DecodeCSV(data []byte, name string) ([]CSVRow, error) {
	rows, err := decodeCSVRows[CSVRow](data, name, csvHeader())
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	lines := recordLines(data) // a quoted cell (a panic's stack in reason) may span lines
	for i, r := range rows {
		line := i + 2
		if i+1 < len(lines) {
			line = lines[i+1]
		}
		if !slices.Contains(sections, r.Section) {
			return nil, fmt.Errorf("%s:%d: column section: %q is not one of %s", name, line, clip(r.Section), strings.Join(sections, ", "))
		}
		if r.Implementation == "" {
			return nil, fmt.Errorf("%s:%d: column implementation: empty", name, line)
		}
		if r.Section != SectionTier && !slices.Contains(statuses, r.Status) {
			return nil, fmt.Errorf("%s:%d: column status: %q is not one of %s", name, line, clip(r.Status), strings.Join(statuses, ", "))
		}
		if r.Section == SectionCorrectness {
			if r.Case == "" {
				return nil, fmt.Errorf("%s:%d: column case: empty in a correctness row", name, line)
			}
		}
		if r.Section == SectionStage && r.Stage == "" {
			return nil, fmt.Errorf("%s:%d: column stage: empty in a stage row", name, line)
		}
		if r.N < 0 || r.NNZ < 0 || r.Iterations < 0 || r.Runs < 0 || r.Bytes < 0 {
			return nil, fmt.Errorf("%s:%d: n, nnz, iterations, runs and bytes must be >= 0", name, line)
		}
	}
	return rows, nil
}

// recordLines returns the 1-based line on which each CSV record starts.
func recordLines(data []byte) []int {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	var lines []int
	for {
		if _, err := cr.Read(); err != nil {
			return lines
		}
		line, _ := cr.FieldPos(0)
		lines = append(lines, line)
	}
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

// encodeCSVRows writes rows with gocsv; an empty slice still gets its header
// line (gocsv writes nothing for it) so the file reads back.
func encodeCSVRows[T any](rows []T, header []string, file string) ([]byte, error) {
	var buf bytes.Buffer
	if len(rows) == 0 {
		buf.WriteString(strings.Join(header, ",") + "\n")
		return buf.Bytes(), nil
	}
	if err := gocsv.Marshal(rows, &buf); err != nil {
		return nil, fmt.Errorf("encode %s: %w", file, err)
	}
	return buf.Bytes(), nil
}

// csvHeaderOf is the column names gocsv writes for rows like blank, in order.
func csvHeaderOf[T any](blank T) []string {
	var b bytes.Buffer
	gocsv.Marshal([]T{blank}, &b)
	h, _ := csv.NewReader(&b).Read()
	return h
}

// decodeCSVRows checks the header line against want (every column present,
// none unknown or repeated) and unmarshals the rows with gocsv. Errors name
// the file, line and column.
func decodeCSVRows[T any](data []byte, name string, want []string) ([]T, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: empty file, want a header line starting with \"section\"", name)
	}
	header, err := csv.NewReader(bytes.NewReader(data)).Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1: header: %v", name, err)
	}
	for _, h := range want {
		if !slices.Contains(header, h) {
			return nil, fmt.Errorf("%s:1: header: missing column %q", name, h)
		}
	}
	for i, h := range header {
		if !slices.Contains(want, h) {
			return nil, fmt.Errorf("%s:1: header: unknown column %d %q", name, i+1, clip(h))
		}
		if slices.Index(header, h) != i {
			return nil, fmt.Errorf("%s:1: header: duplicate column %q", name, h)
		}
	}
	var rows []T
	if err := gocsv.UnmarshalBytes(data, &rows); err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			col := ""
			if pe.Column >= 1 && pe.Column <= len(header) {
				col = " column " + header[pe.Column-1] + ":"
			}
			return nil, fmt.Errorf("%s:%d:%s %v", name, pe.Line, col, pe.Err)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return rows, nil
}
