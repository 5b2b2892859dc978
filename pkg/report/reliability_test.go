package report

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// setFloats sets every float64 (and F) reachable from v to x: struct
// fields, slice elements and pointees.
func setFloats(v reflect.Value, x float64) {
	switch v.Kind() {
	case reflect.Float64:
		if v.CanSet() {
			v.SetFloat(x)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			setFloats(v.Elem(), x)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			setFloats(v.Field(i), x)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			setFloats(v.Index(i), x)
		}
	}
}

// TestWrittenReportAlwaysReadsBack: whatever numbers the implementations
// and measurements put in a run (NaN, ±Inf, negative, zero, huge, tiny),
// results.json as written must read back, so that `prlab render` can always
// redraw a report `prlab report` wrote.
func TestWrittenReportAlwaysReadsBack(t *testing.T) {
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, 0, math.MaxFloat64, 5e-324} {
		for _, gpu := range []bool{false, true} {
			run := fixtureRun(gpu)
			setFloats(reflect.ValueOf(run), x)
			// The protocol and the tolerances are configuration, range-checked
			// before the run (study.Config.Validate); every other number is
			// measured or reported by an implementation and may be anything.
			fresh := fixtureRun(gpu)
			run.Protocol = fresh.Protocol
			for i := range run.Convergence {
				run.Convergence[i].Tolerance = fresh.Convergence[i].Tolerance
			}
			b, err := Encode(run)
			if err != nil {
				t.Errorf("%v gpu=%v: encode: %v", x, gpu, err)
				continue
			}
			if _, err := Decode[Run](b, "results.json"); err != nil {
				t.Errorf("%v gpu=%v: written report does not read back: %v", x, gpu, err)
			}
			if _, err := RenderHTML(run); err != nil {
				t.Errorf("%v gpu=%v: render: %v", x, gpu, err)
			}
		}
	}
}

// TestCSVErrorLineAfterMultilineCell: a reason cell holding a panic's stack
// spans several lines; an error in a later row names that row's real line.
func TestCSVErrorLineAfterMultilineCell(t *testing.T) {
	run := fixtureRun(false)
	run.Correctness[0].Status = StatusFailed
	run.Correctness[0].Reason = "panic: runtime error: index out of range [7] with length 6\n\ngoroutine 1 [running]:\nmain.main()"
	tables, err := RunCSV(run)
	if err != nil {
		t.Fatal(err)
	}
	good := tables[CorrectnessCSVFile]
	if _, err := DecodeTable[Check](good, CorrectnessCSVFile); err != nil {
		t.Fatalf("multi-line reason does not read back: %v", err)
	}
	// Row 2 (the second correctness row) starts on line 6: header, then row 1 on lines 2-5.
	lines := strings.Split(string(good), "\n")
	if !strings.Contains(lines[5], ",pass,") {
		t.Fatalf("line 6 is %q", lines[5])
	}
	lines[5] = strings.Replace(lines[5], ",pass,", ",misc,", 1)
	_, err = DecodeTable[Check]([]byte(strings.Join(lines, "\n")), CorrectnessCSVFile)
	if err == nil || !strings.HasPrefix(err.Error(), `correctness.csv:6: column status: "misc"`) {
		t.Fatalf("got %v, want correctness.csv:6: column status ...", err)
	}
}
