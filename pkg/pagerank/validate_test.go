package pagerank

import (
	"math"
	"slices"
	"testing"
)

func TestAverageRanksTies(t *testing.T) {
	got := AverageRanks([]float64{10, 20, 20, 5, 20})
	want := []float64{2, 4, 4, 1, 4}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
}

func TestSpearmanKnownValues(t *testing.T) {
	ref := []float64{5, 4, 3, 2, 1}
	if r, k := SpearmanTop(ref, []float64{50, 40, 30, 20, 10}, 100); r != 1 || k != 5 {
		t.Fatalf("identical order: rho %v k %d", r, k)
	}
	if r, _ := SpearmanTop(ref, []float64{1, 2, 3, 4, 5}, 100); math.Abs(r+1) > 1e-12 {
		t.Fatalf("reversed: rho %v", r)
	}
	// One adjacent swap among 5: rho = 1 - 6*sum d^2 / (n(n^2-1)) = 1 - 6*2/120 = 0.9.
	if r, _ := SpearmanTop(ref, []float64{4, 5, 3, 2, 1}, 100); math.Abs(r-0.9) > 1e-12 {
		t.Fatalf("one swap: rho %v want 0.9", r)
	}
	// Restricted to the reference's top 3: the swap of the last two is invisible.
	if r, k := SpearmanTop(ref, []float64{5, 4, 3, 1, 2}, 3); r != 1 || k != 3 {
		t.Fatalf("top-3: rho %v k %d", r, k)
	}
	if r, _ := SpearmanTop([]float64{1, 1, 1}, []float64{2, 2, 2}, 3); r != 1 {
		t.Fatalf("all tied both: %v", r)
	}
	if r, _ := SpearmanTop([]float64{1}, []float64{7}, 100); r != 1 {
		t.Fatalf("n=1: %v", r)
	}
}

func TestTopKDeterministic(t *testing.T) {
	got := TopK([]float64{0.1, 0.3, 0.3, 0.2}, 3)
	if !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("%v", got)
	}
	if len(TopK([]float64{1}, 5)) != 1 || len(TopK(nil, 3)) != 0 {
		t.Fatal("clamp")
	}
}

func TestValidateGates(t *testing.T) {
	g, _ := SyntheticCase("tiny")
	ref := []float64{0.3, 0.2, 0.2, 0.1, 0.1, 0.1}
	oracle := &Result{Implementation: "o", Ranks: ref}
	same := &Result{Implementation: "same", Ranks: slices.Clone(ref)}
	v := Validate(g, same, oracle)
	if !v.Pass || v.MaxRelErr != 0 || v.Spearman != 1 || math.Abs(v.SumMinus1) > 1e-15 {
		t.Fatalf("%+v", v)
	}
	// Scaled by 0.9 (what dropping dangling redistribution does): order kept, sum and error fail.
	scaled := &Result{Implementation: "scaled", Ranks: make([]float64, 6)}
	for i := range ref {
		scaled.Ranks[i] = 0.9 * ref[i]
	}
	v = Validate(g, scaled, oracle)
	if v.Pass || v.SumPass || v.ErrPass || !v.SpearmanPass || math.Abs(v.ErrOverTol-100) > 1e-9 {
		t.Fatalf("scaled: %+v", v)
	}
	if v := Validate(g, &Result{Skipped: "no GPU"}, oracle); v.Pass || v.Problem != "skipped: no GPU" {
		t.Fatalf("skipped: %+v", v)
	}
	if v := Validate(g, &Result{Ranks: []float64{1}}, oracle); v.Pass || v.Problem == "" {
		t.Fatalf("wrong length: %+v", v)
	}
	if got := SumAllowed(28042); math.Abs(got-7.985e-05) > 5e-9 { // the course prints "allowed 7.985e-05" for n=28042
		t.Fatalf("SumAllowed(28042) = %v", got)
	}
}

func TestParamsValidate(t *testing.T) {
	good := []Params{Fixed(100), Converge(1e-6, 1000)}
	for _, p := range good {
		if err := p.Validate(); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
	}
	bad := []Params{
		{Damping: 0, Mode: FixedIterations, Iterations: 10},
		{Damping: 1, Mode: FixedIterations, Iterations: 10},
		{Damping: 0.85, Mode: FixedIterations, Iterations: 0},
		{Damping: 0.85, Mode: Tolerance, Iterations: 10, Tolerance: 0},
		{Damping: 0.85, Mode: "sometimes", Iterations: 10},
	}
	for _, p := range bad {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

func TestNewTiming(t *testing.T) {
	tm := NewTiming(50, 3, []float64{1, 2, 3, 4}, "wall")
	if tm.MeanMs != 2.5 || tm.MedianMs != 2.5 || math.Abs(tm.StdMs-math.Sqrt(5.0/3)) > 1e-12 || math.Abs(tm.CV-tm.StdMs/2.5) > 1e-15 {
		t.Fatalf("%+v", tm)
	}
	if tm.MsPerIteration() != 0.05 {
		t.Fatalf("ms/iter %v", tm.MsPerIteration())
	}
	if NewTiming(50, 3, []float64{3, 1, 2}, "wall").MedianMs != 2 {
		t.Fatal("odd median")
	}
}

func TestSpearmanNearTies(t *testing.T) {
	// Exact ties in the reference, broken differently by rounding: plain rho
	// misses the gate, near-tie rho is 1.
	ref := []float64{0.5, 0.4, 0.4, 0.4, 0.3, 0.2, 0.1}
	got := []float64{0.5, 0.4000001, 0.3999999, 0.4, 0.3, 0.2, 0.1}
	plain, _ := SpearmanTop(ref, got, 7)
	rho, groups := SpearmanNearTies(ref, got, 7, NearTie)
	if rho != 1 || groups != 5 || plain >= 1 {
		t.Errorf("near-tie rho %v over %d groups (want 1 over 5), plain %v", rho, groups, plain)
	}
	// A real swap between groups still counts.
	bad := []float64{0.5, 0.4, 0.4, 0.4, 0.1, 0.2, 0.3}
	if rho, _ := SpearmanNearTies(ref, bad, 7, NearTie); rho > 0.9 {
		t.Errorf("swapped order scores %v", rho)
	}
	// Without near-ties it is SpearmanTop.
	ref2 := []float64{1, 2, 3, 4, 5, 6}
	got2 := []float64{1, 3, 2, 4, 6, 5}
	r1, _ := SpearmanTop(ref2, got2, 6)
	r2, g2 := SpearmanNearTies(ref2, got2, 6, NearTie)
	if math.Abs(r1-r2) > 1e-12 || g2 != 6 {
		t.Errorf("no ties: %v vs SpearmanTop %v (%d groups)", r2, r1, g2)
	}
}
