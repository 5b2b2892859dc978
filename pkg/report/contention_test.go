package report

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// The other processes' share is (Δbusy − Δself) / Δtotal, clamped to [0, 1].
func TestOtherCPUShare(t *testing.T) {
	start := CPUTicks{Busy: 1000, Total: 5000, Self: 100, OK: true}
	end := CPUTicks{Busy: 1900, Total: 7000, Self: 800, OK: true}
	if got := OtherCPUShare(start, end); got == nil || math.Abs(*got-0.1) > 1e-12 { // (900 − 700) / 2000
		t.Errorf("share %v, want 0.1", got)
	}
	// This process's ticks can outrun the machine's between readings (the two files are read apart): 0, not negative.
	if got := OtherCPUShare(start, CPUTicks{Busy: 1100, Total: 6000, Self: 300, OK: true}); got == nil || *got != 0 {
		t.Errorf("share %v, want 0", got)
	}
	if OtherCPUShare(CPUTicks{}, end) != nil || OtherCPUShare(start, start) != nil {
		t.Error("a failed reading or no elapsed tick must give nil")
	}
}

// On Linux both files are read, and this process's own work shows in Self
// and in the machine's busy ticks. /proc/stat may advance in coarser steps
// than this process's own ticks, and a tick of the total may land in idle or
// steal first (both seen on a VM here: total +1, busy +0), so the spin goes on
// until the machine's busy ticks have moved too (at most 5 s).
func TestReadCPUTicks(t *testing.T) {
	a := ReadCPUTicks()
	if !a.OK {
		t.Skip("no /proc/stat or /proc/self/stat here (not Linux)")
	}
	x := 0.0
	b := ReadCPUTicks()
	for deadline := time.Now().Add(5 * time.Second); (b.Self < a.Self+2 || b.Total == a.Total || b.Busy <= a.Busy) && time.Now().Before(deadline); b = ReadCPUTicks() {
		for i := range 100000 {
			x += math.Sqrt(float64(i))
		}
	}
	if b.Self < a.Self+2 || b.Total == a.Total {
		t.Fatalf("ticks %+v then %+v after 5 s of spinning: this process's or the machine's ticks did not move", a, b)
	}
	if b.Busy <= a.Busy || b.Total < b.Busy || x == 0 {
		t.Errorf("ticks %+v then %+v after up to 5 s of spinning: busy must grow with this process's own work", a, b)
	}
}

// A run timed while other processes took more than OtherCPULimit of the
// cores makes its CPU rows not comparable; a GPU row is still compared.
func TestCompareBusyMachine(t *testing.T) {
	r := []float64{10, 10.1, 9.9, 10.2, 10, 9.8, 10.1, 10, 10.3, 9.9}
	slow := make([]float64, len(r))
	for i, x := range r {
		slow[i] = 1.3 * x
	}
	a, b := evidence("a", r, r), evidence("b", slow, slow)
	a.Timings[1].Kind, b.Timings[1].Kind = KindGPU, KindGPU
	busy, quiet := 0.31, 0.02
	b.Env.OtherCPU = &quiet
	if v := Compare(a, b, Options{}); v.Timing[0].Class != ClassSlower {
		t.Fatalf("quiet machine: class %q, want slower", v.Timing[0].Class)
	}
	b.Env.OtherCPU = &busy
	v := Compare(a, b, Options{})
	if v.Timing[0].Class != ClassNotComparable || v.Timing[1].Class != ClassSlower ||
		!strings.Contains(v.Paragraph, "loaded machine b: other processes used 31 % of the cores while it timed") {
		t.Errorf("busy machine: classes %q %q: %s", v.Timing[0].Class, v.Timing[1].Class, v.Paragraph)
	}
}

// False-alarm control of the timing classes alone: two reports whose 17 rows
// draw their 10 runs from the same distributions (log-normal, CV 2–20 %, a
// slow outlier now and then, as measured rows look) must report no faster or
// slower row in at least 95 % of 400 seeded repetitions (Holm holds the
// family-wise rate at α = 0.05; the 5 % band makes it lower still).
func TestTimingFalseAlarmRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func(median, cv float64) []float64 {
		runs := make([]float64, 10)
		for i := range runs {
			runs[i] = median * math.Exp(cv*rng.NormFloat64())
			if rng.Float64() < 0.05 {
				runs[i] *= 1.5
			}
		}
		return runs
	}
	const reps, rows = 400, 17
	alarms := 0
	for range reps {
		var ra, rb [][]float64
		for i := range rows {
			median, cv := 0.2+float64(i), 0.02+0.18*float64(i)/rows
			ra, rb = append(ra, draw(median, cv)), append(rb, draw(median, cv))
		}
		v := Compare(evidence("a", ra...), evidence("b", rb...), Options{})
		for _, tc := range v.Timing {
			if tc.Class == ClassFaster || tc.Class == ClassSlower {
				alarms++
				break
			}
		}
	}
	if alarms > reps*5/100 {
		t.Errorf("%d of %d repetitions raised a timing alarm, want at most 5 %%", alarms, reps)
	}
	t.Logf("%d of %d repetitions raised a timing alarm", alarms, reps)
}
