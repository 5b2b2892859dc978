package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Every committed JSON document under reports/ (results.json, scale.json,
// incremental.json, verify.json) reads with today's code and encodes back
// with every value it holds, unchanged: each key the file has is written
// again with the same value, numbers to the digit (json.Number), and a field
// added to the row model since the file was written may only add a zero
// value (0, null, "", false, empty). So every committed report re-renders
// (prlab render, scale --render, incremental --render) from its own
// numbers; a change that renames or drops a field, or changes how a value
// is read or written, fails here. Documents that encode back to the very
// same bytes are counted in the log.
func TestCommittedDocumentsEncodeBackTheirValues(t *testing.T) {
	encoders := map[string]func(path string) ([]byte, error){
		JSONFile:            reencode[Run],
		ScaleJSONFile:       reencode[ScaleStudy],
		IncrementalJSONFile: reencode[IncrementalStudy],
		VerifyJSONFile: func(path string) ([]byte, error) {
			v, err := ReadVerification(path)
			if err != nil {
				return nil, err
			}
			js, _, _, err := EncodeVerification(v)
			return js, err
		},
	}
	n, identical := 0, 0
	err := filepath.WalkDir(filepath.Join("..", "..", "reports"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		encode := encoders[d.Name()]
		if d.IsDir() || encode == nil {
			return nil
		}
		n++
		want, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		got, err := encode(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		if bytes.Equal(got, want) {
			identical++
			return nil
		}
		if problem := sameValues("$", jsonValue(t, path, want), jsonValue(t, path+" (encoded again)", got)); problem != "" {
			t.Errorf("%s does not encode back its values: %s", path, problem)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 19 { // the documents committed when this test was written
		t.Errorf("%d committed documents found under reports/, want at least 19", n)
	}
	t.Logf("%d committed documents, %d encode back byte for byte (the others gained fields, with zero values)", n, identical)
}

// jsonValue decodes b with numbers kept as their text.
func jsonValue(t *testing.T, name string, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// sameValues says where got (the document encoded again) loses or changes
// a value of want (the committed one), "" when it keeps all: at path, a key
// of want missing from got, a different value or array length, or a key
// only got has whose value is not zero.
func sameValues(path string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: an object became %T", path, got)
		}
		for _, k := range slices.Sorted(maps.Keys(w)) {
			gv, ok := g[k]
			if !ok {
				return fmt.Sprintf("%s.%s: missing", path, k)
			}
			if p := sameValues(path+"."+k, w[k], gv); p != "" {
				return p
			}
		}
		for _, k := range slices.Sorted(maps.Keys(g)) {
			if _, ok := w[k]; !ok && !zeroJSON(g[k]) {
				return fmt.Sprintf("%s.%s: a new field with the value %v", path, k, g[k])
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: %d elements became %v", path, len(w), describe(got))
		}
		for i := range w {
			if p := sameValues(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); p != "" {
				return p
			}
		}
		return ""
	default:
		if want != got {
			return fmt.Sprintf("%s: %v became %v", path, want, got)
		}
		return ""
	}
}

// zeroJSON reports whether v is a zero value as encoding/json writes one.
func zeroJSON(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case json.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	case string:
		return x == ""
	case bool:
		return !x
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

func describe(v any) string {
	if a, ok := v.([]any); ok {
		return fmt.Sprintf("%d elements", len(a))
	}
	return fmt.Sprintf("%T", v)
}

// reencode reads the document at path and encodes it again.
func reencode[T Document, PT document[T]](path string) ([]byte, error) {
	doc, err := Read[T, PT](path)
	if err != nil {
		return nil, err
	}
	return Encode[T, PT](doc)
}
