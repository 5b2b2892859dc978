package report

// Native fuzz targets for the results readers that `prlab render` relies on
// (issue 7). Seed corpora live in testdata/fuzz/<target>/ and run as ordinary
// tests with `go test`; fuzz one target at a time with, e.g.,
//
//	go test ./pkg/report -run '^$' -fuzz '^FuzzDecodeJSON$' -fuzztime 3m
//
// Any crasher found is committed there and stays a regression test.

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// fileLine matches an error that names the file, and optionally line[:col].
var fileLine = regexp.MustCompile(`^(results\.json|correctness\.csv)(:\d+(:\d+)?)?: `)

func checkReadErr(t *testing.T, err error, name string) {
	t.Helper()
	msg := err.Error()
	if !strings.HasPrefix(msg, name+":") || !fileLine.MatchString(msg) {
		t.Fatalf("error %q does not start with %s[:line[:col]]: ", msg, name)
	}
	if !utf8.ValidString(msg) {
		t.Fatalf("error message is not valid UTF-8: %q", msg)
	}
}

// addFixtureSeeds adds the CPU-only and the GPU fixture run, encoded with
// encode, to f's seed corpus.
func addFixtureSeeds(f *testing.F, encode func(*Run) ([]byte, error)) {
	for _, gpu := range []bool{false, true} {
		b, err := encode(fixtureRun(gpu))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzDecodeJSON(f *testing.F) {
	addFixtureSeeds(f, Encode[Run])
	f.Add([]byte(`{"schema":"prlab/results/v1","name":"x","environment":{"date":"d"}}`))
	f.Add([]byte(`{"schema":"prlab/results/v1"}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := Decode[Run](data, "results.json")
		if err != nil {
			checkReadErr(t, err, "results.json")
			return
		}
		if err := run.Validate(); err != nil {
			t.Fatalf("Decode[Run] accepted a run that fails Validate: %v", err)
		}
		// What was read must write back and read back to the same JSON.
		b1, err := Encode(run)
		if err != nil {
			t.Fatalf("accepted run does not encode: %v", err)
		}
		run2, err := Decode[Run](b1, "results.json")
		if err != nil {
			t.Fatalf("re-encoded run does not read back: %v", err)
		}
		b2, err := Encode(run2)
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("JSON round trip differs (%v)", err)
		}
		if _, err := RunCSV(run); err != nil {
			t.Fatalf("accepted run does not encode as CSV: %v", err)
		}
	})
}

// FuzzRenderJSON is `prlab render`: every results.json the reader accepts
// must render to HTML without a panic or an error. (Rendering costs ~30 ms,
// so this target runs apart from FuzzDecodeJSON; it shares its seeds.)
func FuzzRenderJSON(f *testing.F) {
	b, err := Encode(fixtureRun(true))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := Decode[Run](data, "results.json")
		if err != nil {
			return // FuzzDecodeJSON checks the errors
		}
		page, err := RenderHTML(run)
		if err != nil {
			t.Fatalf("accepted run does not render: %v", err)
		}
		if !bytes.Contains(page, []byte("</html>")) {
			t.Fatalf("rendered page is not complete (%d bytes)", len(page))
		}
	})
}

// FuzzDecodeCSV fuzzes the table reader on correctness.csv: rows it
// accepts write back (gocsv) and read back to the same bytes.
func FuzzDecodeCSV(f *testing.F) {
	addFixtureSeeds(f, func(run *Run) ([]byte, error) {
		t, err := RunCSV(run)
		return t[CorrectnessCSVFile], err
	})
	header := strings.Join(csvHeaderOf(Check{}), ",")
	f.Add([]byte(header + "\n"))
	f.Add([]byte(header + "\ntiny,t0-oracle\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := DecodeTable[Check](data, CorrectnessCSVFile)
		if err != nil {
			checkReadErr(t, err, CorrectnessCSVFile)
			return
		}
		// Rows read back must write and read back unchanged.
		b1, err := encodeCSVRows(rows, csvHeaderOf(Check{}), CorrectnessCSVFile)
		if err != nil {
			t.Fatalf("accepted rows do not encode: %v", err)
		}
		rows2, err := DecodeTable[Check](b1, CorrectnessCSVFile)
		if err != nil {
			t.Fatalf("re-encoded rows do not read back: %v\n%s", err, b1)
		}
		b2, err := encodeCSVRows(rows2, csvHeaderOf(Check{}), CorrectnessCSVFile)
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("CSV round trip differs (%v):\n%s\n%s", err, b1, b2)
		}
	})
}
