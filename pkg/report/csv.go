package report

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/gocarina/gocsv"

	"github.com/prlab/prlab/pkg/pagerank"
)

// The CSV side of the row model: one tidy file per table (one row per
// observation, one column per variable), written with gocsv from the very
// row structs results.json, scale.json and incremental.json hold — the csv
// tag stands next to the json tag, the embedded Identity and Outcome give
// every row the same implementation, label, kind, precision, status and
// reason columns (GraphSize the same n and nnz), and a nested
// timing is flattened into "timing.median_ms", "warm.cv" and so on. Lists
// (every run's ms, a row's top ids) stay in the JSON. Empty cell: no value
// (NaN); times in ms, bytes in bytes, bandwidth in GB/s (1e9 bytes/s), CV
// as a fraction. A pandas user loads a table in one line:
//
//	pd.read_csv("reports/cpu-2core/timing.csv")
//
// Reports written before this layout have one union results.csv (scale.csv,
// incremental.csv) with a section column instead; prlab reads only the
// JSON documents, so they still re-render.

// A report directory's tables (prlab report).
const (
	CorrectnessCSVFile = "correctness.csv" // Run.Correctness: case × implementation
	ConvergenceCSVFile = "convergence.csv" // Run.Convergence: real graph, tolerance mode
	TimingCSVFile      = "timing.csv"      // Run.Timings: real graph (stages in stages.csv)
	StagesCSVFile      = "stages.csv"      // StageRow: copy rows, the stage table, each GPU row's stages
	TiersCSVFile       = "tiers.csv"       // Run.Tiers
)

// A scale-study directory's tables (prlab scale).
const (
	ScaleGraphsCSVFile    = "scale-graphs.csv"    // ScaleStudy.Graphs
	ScaleRowsCSVFile      = "scale-rows.csv"      // ScaleStudy.Rows: graph × implementation
	ScaleBandwidthCSVFile = "scale-bandwidth.csv" // ScaleStudy.Bandwidth: the copy rows
	ScaleGoalsCSVFile     = "scale-goals.csv"     // ScaleStudy.Goals
)

// An incremental-study directory's tables (prlab incremental).
const (
	IncrementalBatchesCSVFile    = "incremental-batches.csv"    // IncrementalStudy.Batches
	IncrementalRowsCSVFile       = "incremental-rows.csv"       // IncrementalStudy.Rows: batch × implementation
	IncrementalTopCSVFile        = "incremental-top.csv"        // YearTopRow: each year's top papers
	IncrementalCrossoversCSVFile = "incremental-crossovers.csv" // IncrementalStudy.Crossovers
)

// The tables each command writes, in order (cmd/prlab checks and names them).
var (
	RunCSVFiles         = []string{CorrectnessCSVFile, ConvergenceCSVFile, TimingCSVFile, StagesCSVFile, TiersCSVFile}
	ScaleCSVFiles       = []string{ScaleGraphsCSVFile, ScaleRowsCSVFile, ScaleBandwidthCSVFile, ScaleGoalsCSVFile}
	IncrementalCSVFiles = []string{IncrementalBatchesCSVFile, IncrementalRowsCSVFile, IncrementalTopCSVFile, IncrementalCrossoversCSVFile}
)

// StageRow is one row of stages.csv: a stage (pagerank.Stage: ms, bytes,
// GB/s, x DRAM, formula) and whose it is. Implementation is "copy" for the
// device-to-device copy rows, "stage-table" for the course's stage table
// (every GPU stage timed alone), else the GPU implementation whose timed
// row it belongs to.
type StageRow struct {
	Case string `csv:"case"`
	Identity
	pagerank.Stage `json:"stage"` // CSV: flattened (stage, stage_kind, ms, ...)
}

// YearTopRow is one row of incremental-top.csv: one paper of one year's
// top by the oracle's converged ranks; Entered: the paper is new in it.
type YearTopRow struct {
	Workload     string `csv:"workload"`
	SnapshotYear int    `csv:"snapshot_year"`
	N            int    `csv:"n"`
	NNZ          int    `csv:"nnz"`
	TopRow
	Entered bool `csv:"entered"`
}

// csvTables maps a table's file name to its CSV bytes.
type csvTables map[string][]byte

// addTable encodes rows into t as file (gocsv, with a header line even when
// there is no row).
func addTable[T any](t csvTables, file string, rows []T) error {
	var zero T
	b, err := encodeCSVRows(rows, csvHeaderOf(zero), file)
	if err != nil {
		return err
	}
	t[file] = b
	return nil
}

// RunCSV is a report directory's tables (correctness.csv, convergence.csv,
// timing.csv, stages.csv, tiers.csv), keyed by file name.
func RunCSV(run *Run) (map[string][]byte, error) {
	var stages []StageRow
	for _, s := range run.CopyRows {
		stages = append(stages, StageRow{run.Graph.Name, Identity{Implementation: "copy", Label: "device-to-device copy", Kind: KindGPU}, s})
	}
	for _, s := range run.Stages {
		stages = append(stages, StageRow{run.Graph.Name, Identity{Implementation: "stage-table", Label: "stage timed alone", Kind: KindGPU}, s})
	}
	for _, t := range run.Timings {
		for _, s := range t.Stages {
			stages = append(stages, StageRow{t.Case, t.Identity, s})
		}
	}
	t := csvTables{}
	return t, errors.Join(addTable(t, CorrectnessCSVFile, run.Correctness), addTable(t, ConvergenceCSVFile, run.Convergence),
		addTable(t, TimingCSVFile, run.Timings), addTable(t, StagesCSVFile, stages), addTable(t, TiersCSVFile, run.Tiers))
}

// ScaleCSV is a scale-study directory's tables (scale-graphs.csv,
// scale-rows.csv, scale-bandwidth.csv, scale-goals.csv), keyed by file name.
func ScaleCSV(s *ScaleStudy) (map[string][]byte, error) {
	t := csvTables{}
	return t, errors.Join(addTable(t, ScaleGraphsCSVFile, s.Graphs), addTable(t, ScaleRowsCSVFile, s.Rows),
		addTable(t, ScaleBandwidthCSVFile, s.Bandwidth), addTable(t, ScaleGoalsCSVFile, s.Goals))
}

// IncrementalCSV is an incremental-study directory's tables
// (incremental-batches.csv, incremental-rows.csv, incremental-top.csv,
// incremental-crossovers.csv), keyed by file name.
func IncrementalCSV(s *IncrementalStudy) (map[string][]byte, error) {
	var top []YearTopRow
	for _, y := range s.Years {
		for _, r := range y.Top {
			top = append(top, YearTopRow{workloadOfYears(s), y.Year, y.N, y.NNZ, r, slices.Contains(y.Entered, r.ID)})
		}
	}
	t := csvTables{}
	return t, errors.Join(addTable(t, IncrementalBatchesCSVFile, s.Batches), addTable(t, IncrementalRowsCSVFile, s.Rows),
		addTable(t, IncrementalTopCSVFile, top), addTable(t, IncrementalCrossoversCSVFile, s.Crossovers))
}

// ReadTable reads one table written by RunCSV, ScaleCSV or IncrementalCSV
// into its row type, e.g. ReadTable[Check]("reports/x/correctness.csv").
// The header must hold exactly T's columns; errors name the file, line and
// column, e.g. `timing.csv:4: column timing.cv: ...`.
func ReadTable[T any](path string) ([]T, error) {
	return readFile(path, DecodeTable[T])
}

// DecodeTable is ReadTable of bytes; name is used in errors. Besides the
// cells' types it checks what the JSON readers check of a row: a row with
// an implementation column names one, and a status column holds a status
// (a goal's status for Goal rows).
func DecodeTable[T any](data []byte, name string) ([]T, error) {
	var zero T
	rows, err := decodeCSVRows[T](data, name, csvHeaderOf(zero))
	if err != nil {
		return nil, err
	}
	lines := recordLines(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))) // a quoted cell (a panic's stack) may span lines
	for i := range rows {
		line := i + 2
		if i+1 < len(lines) {
			line = lines[i+1]
		}
		if err := checkRow(reflect.ValueOf(rows[i])); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	return rows, nil
}

// checkRow checks one decoded row's implementation and status columns.
func checkRow(v reflect.Value) error {
	if f := v.FieldByName("Implementation"); f.IsValid() && f.String() == "" {
		return errors.New("column implementation: empty")
	}
	if f := v.FieldByName("Status"); f.IsValid() {
		allowed := statuses
		if v.Type() == reflect.TypeOf(Goal{}) {
			allowed = goalStatuses
		}
		if err := oneOf("column status", f.String(), allowed); err != nil {
			return err
		}
	}
	return nil
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
		return nil, fmt.Errorf("%s: empty file, want a header line", name)
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
