package report

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

func TestHolmAdjustsStepDown(t *testing.T) {
	// Sorted 0.01, 0.03, 0.04 with m = 3: 3·0.01 = 0.03, 2·0.03 = 0.06,
	// max(0.06, 1·0.04) = 0.06 (Holm 1979); NaN is not a test.
	got := holm([]float64{0.01, 0.04, math.NaN(), 0.03})
	want := []float64{0.03, 0.06, math.NaN(), 0.06}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-15) {
			t.Errorf("holm[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	// m = 5, sorted 0.01, 0.04, 0.3, 0.9, 0.95: 5·0.01, 4·0.04, 3·0.3, then capped at 1.
	got = holm([]float64{0.04, 0.01, 0.3, 0.9, 0.95})
	for i, w := range []float64{0.16, 0.05, 0.9, 1, 1} {
		if math.Abs(got[i]-w) > 1e-12 {
			t.Errorf("holm 5 tests [%d] = %v, want %v", i, got[i], w)
		}
	}
}

func evidence(name string, runs ...[]float64) Evidence {
	e := Evidence{Format: FormatResults, Name: name, Env: Environment{Date: "2026-12-01T00:00:00Z", CPUModel: "cpu", CPUCores: 2, GOMAXPROCS: 2},
		Data: []DataFact{{Key: "acl.txt", Identity: strings.Repeat("a", 64), Primary: true}},
		Rows: []RowFact{{Table: TableCorrectness, Case: "tiny", Implementation: "x", Precision: pagerank.Float32, Status: StatusPass,
			Spearman: 1, SpearmanGate: 0.999, SumMinus1: 1e-7, SumAllowed: 1e-6}},
		Convergence: []ConvergenceFact{{Case: "aan", Implementation: "x", Precision: pagerank.Float32, Status: StatusPass, Iterations: 49}}}
	for i, r := range runs {
		e.Timings = append(e.Timings, TimingFact{Case: "aan", Implementation: string(rune('a' + i)), Kind: KindCPU, Iterations: 50, RunsMs: r})
	}
	return e
}

func TestCompareTimingClasses(t *testing.T) {
	base := []float64{10, 10.1, 10.2, 10.3, 10.4, 10.5, 10.6, 10.7, 10.8, 10.9}
	scaled := func(k float64) []float64 {
		out := make([]float64, len(base))
		for i, x := range base {
			out[i] = k * x
		}
		return out
	}
	a := evidence("a", base, base, base, base)
	b := evidence("b", scaled(1.2), scaled(1/1.2), scaled(1.02), base)
	v := Compare(a, b, Options{})
	want := []string{ClassSlower, ClassFaster, ClassUnchanged, ClassUnchanged}
	for i, tc := range v.Timing {
		if tc.Class != want[i] {
			t.Errorf("row %s: class %q (ratio %.3f, CI %.3f–%.3f, p_holm %.3g), want %q", tc.Implementation, tc.Class, tc.Ratio, tc.Lo, tc.Hi, tc.PHolm, want[i])
		}
	}
	if r := float64(v.Timing[0].Ratio); math.Abs(r-1.2) > 1e-12 {
		t.Errorf("ratio of medians %v, want 1.2", r)
	}
	// Each median's interval at √0.95 is a pair of order statistics, so the
	// ratio's interval brackets 1.2 and lies inside [min·1.2/max, max·1.2/min].
	if tc := v.Timing[0]; !(tc.Lo < 1.2 && tc.Hi > 1.2 && float64(tc.Lo) >= 12/10.9-1e-12 && float64(tc.Hi) <= 10.9*1.2/10+1e-12) {
		t.Errorf("interval %v–%v", tc.Lo, tc.Hi)
	}
	if !v.Pass || !strings.Contains(v.Paragraph, "Timing: 2 unchanged, 1 faster, 1 slower (largest move: ") {
		t.Errorf("pass %v, paragraph %s", v.Pass, v.Paragraph)
	}
	// --max-slowdown gates the slower row only when its ratio is above the limit.
	if v := Compare(a, b, Options{MaxSlowdown: 1.1}); v.Pass || len(v.Failures()) != 1 || v.Failures()[0].Implementation != "a" {
		t.Errorf("--max-slowdown 1.1: %v", v.Failures())
	}
	if v := Compare(a, b, Options{MaxSlowdown: 1.25}); !v.Pass {
		t.Errorf("--max-slowdown 1.25: %v", v.Failures())
	}
	// A loaded machine: its CPU rows are not comparable, a GPU row still is.
	b.Env.LoadAverage = "9.50 8.00 7.00"
	b.Timings[0].Kind, a.Timings[0].Kind = KindGPU, KindGPU
	v = Compare(a, b, Options{})
	if v.Timing[0].Class != ClassSlower || v.Timing[1].Class != ClassNotComparable || !strings.Contains(v.Paragraph, "3 not comparable (loaded machine b: load average 9.50 on 2 logical cores)") {
		t.Errorf("loaded: classes %q %q: %s", v.Timing[0].Class, v.Timing[1].Class, v.Paragraph)
	}
	b.Env.LoadAverage = ""
	// Another CPU: timing not comparable, still shown, not gated.
	b.Env.CPUModel = "other"
	v = Compare(a, b, Options{MaxSlowdown: 1.1})
	if !v.Pass || v.Timing[0].Class != ClassNotComparable || !strings.Contains(v.Paragraph, "4 not comparable (CPU: cpu → other)") {
		t.Errorf("other CPU: pass %v class %q: %s", v.Pass, v.Timing[0].Class, v.Paragraph)
	}
}

func TestCompareGates(t *testing.T) {
	a := evidence("a")
	b := evidence("b")
	if v := Compare(a, b, Options{Mode: "verify"}); !v.Pass || !strings.HasPrefix(v.Paragraph, "Re-verified a on cpu (2 logical cores, no GPU) on 2026-12-01. Every correctness gate reproduced") {
		t.Errorf("identical: %v %s", v.Failures(), v.Paragraph)
	}
	// float32 count within ±1 holds; ±2 fails naming the row and both values.
	b.Convergence[0].Iterations = 50
	if v := Compare(a, b, Options{}); !v.Pass {
		t.Errorf("float32 +1: %v", v.Failures())
	}
	b.Convergence[0].Iterations = 51
	v := Compare(a, b, Options{})
	if f := v.Failures(); len(f) != 1 || f[0].String() != "convergence iterations convergence aan/x: report 49, rerun 51 (float32: within ±1)" {
		t.Errorf("float32 +2: %v", f)
	}
	b = evidence("b")
	b.Rows[0].Spearman = 0.99
	if f := Compare(a, b, Options{}).Failures(); len(f) != 1 || f[0].Gate != GateSpearman || f[0].Rerun != "0.990000" {
		t.Errorf("ρ below the gate: %v", f)
	}
	b = evidence("b")
	b.Data[0].Identity = strings.Repeat("b", 64)
	v = Compare(a, b, Options{})
	if v.SameData || v.Pass || !strings.Contains(v.Paragraph, "Not the same data, nothing compared: acl.txt: SHA-256 aaaaaaaaaaaa… in a, SHA-256 bbbbbbbbbbbb… in b") {
		t.Errorf("other data: %s", v.Paragraph)
	}
	if _, err := SameData(a, b); !errors.Is(err, ErrNotSameData) {
		t.Errorf("SameData: %v", err)
	}
	// An input only one side recorded is a note, unless it is the graph.
	b = evidence("b")
	b.Data = append(b.Data, DataFact{Key: "papers.tsv", Identity: strings.Repeat("c", 64)})
	if notes, err := SameData(a, b); err != nil || len(notes) != 1 {
		t.Errorf("extra input: %v %v", notes, err)
	}
	b.Data = b.Data[1:]
	if _, err := SameData(a, b); err == nil || !strings.Contains(err.Error(), "acl.txt (the graph, SHA-256 aaaaaaaaaaaa…) was not read by b") {
		t.Errorf("graph missing: %v", err)
	}
}

// TestCompareCommittedReports reads the committed reports of both formats:
// each compared with itself holds every gate, and the two H200 runs have the
// same data and statuses.
func TestCompareCommittedReports(t *testing.T) {
	root := filepath.Join("..", "..", "reports")
	for _, dir := range []string{"cpu-2core", "h200-2026-11-30-run2", "h200-scale-2026-11-30"} {
		e, err := ReadEvidence(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name != dir || len(e.Rows) == 0 || len(e.Timings) == 0 || len(e.Data) == 0 {
			t.Errorf("%s: name %q, %d rows, %d timings, %d inputs", dir, e.Name, len(e.Rows), len(e.Timings), len(e.Data))
		}
		v := Compare(e, e, Options{})
		if !v.Pass || !strings.Contains(v.Paragraph, " 0 faster, 0 slower") {
			t.Errorf("%s against itself: %v %s", dir, v.Failures(), v.Paragraph)
		}
		js, cs, page, err := EncodeVerification(v)
		if err != nil || len(js) == 0 || len(cs) == 0 || !strings.Contains(string(page), v.Paragraph[:40]) {
			t.Errorf("%s: encode: %v", dir, err)
		}
	}
	a, _ := ReadEvidence(filepath.Join(root, "h200-2026-11-30"))
	b, _ := ReadEvidence(filepath.Join(root, "h200-2026-11-30-run2"))
	if v := Compare(a, b, Options{}); !v.Pass || len(v.Comparable) != 0 || len(v.Timing) != 14 {
		t.Errorf("run 1 vs run 2: %v, env differences %v, %d timed rows", v.Failures(), v.Comparable, len(v.Timing))
	}
	if _, err := ReadEvidence(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no report found (looked for results.json, scale.json, incremental.json, verify.json)") {
		t.Errorf("empty dir: %v", err)
	}
}
