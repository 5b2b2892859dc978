package report

import (
	"math"
	"strings"
	"testing"
)

// TestUserGraphIsNamedByItsName: a report of a user's own graph (prlab
// report --graph my-cites.txt) names it "my-cites" on the page (heading,
// the link to its section, the cases table, the load table) and in the
// validation block; only the real graph, the AAN read from a data folder,
// is "the real graph" and case "real", as every committed report shows it.
func TestUserGraphIsNamedByItsName(t *testing.T) {
	user := fixtureRun(false)
	user.Graph.Name, user.Graph.Path, user.Graph.MetadataPath = "my-cites", "/home/u/my-cites.txt", ""
	user.Cases[len(user.Cases)-1].Name = "my-cites"
	page := runPage(t, user)
	for _, want := range []string{`<h2 id="real">Case my-cites: 16589 nodes, 94931 edges</h2>`, `<a href="#real">my-cites</a>`, `<tr><td>my-cites</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page of a user's graph lacks %q", want)
		}
	}
	for _, bad := range []string{"Case real", "real graph</a>", "(real)"} {
		if strings.Contains(page, bad) {
			t.Errorf("page of a user's graph says %q", bad)
		}
	}
	if got := ValidationLines(user); !strings.Contains(got, "case my-cites   16589 nodes") || strings.Contains(got, "case real") {
		t.Errorf("validation block of a user's graph: %.60q, want it headed \"case my-cites\"", got)
	}
	if got := LoadSummary(user); !strings.Contains(got, "The graph my-cites") || strings.Contains(got, "real graph") {
		t.Errorf("load table of a user's graph not captioned by its name: %.300q", got)
	}
	if got := CasesTable(user); strings.Contains(got, "real graph") {
		t.Errorf("cases table of a user's graph heads a column \"real graph\": %.300q", got)
	}
	if got := user.Graph.Called(); got != "the graph my-cites" {
		t.Errorf("Called() = %q, want \"the graph my-cites\"", got)
	}

	// The real graph, from data/aan or a folder laid out like it (--data),
	// plain or gzipped, keeps its wording.
	for _, path := range []string{"data/aan/acl.txt", "data/aan/acl.txt.gz", "/data/aan/acl.txt.gz"} {
		real := fixtureRun(false)
		real.Graph.Path = path
		page := runPage(t, real)
		for _, want := range []string{`<h2 id="real">Case real: aan, 16589 nodes`, `<a href="#real">real graph</a>`, `<tr><td>aan (real)</td>`} {
			if !strings.Contains(page, want) {
				t.Errorf("page of the real graph (%s) lacks %q", path, want)
			}
		}
		if got := ValidationLines(real); !strings.Contains(got, "case real   16589 nodes") {
			t.Errorf("validation block of the real graph (%s): %.60q", path, got)
		}
		if got := LoadSummary(real); !strings.Contains(got, "The real graph") {
			t.Errorf("load table of the real graph (%s) not captioned \"The real graph\"", path)
		}
		if real.Graph.UserGraph() || real.Graph.Called() != "the real graph" {
			t.Errorf("%s: UserGraph() = %v, Called() = %q, want false, \"the real graph\"", path, real.Graph.UserGraph(), real.Graph.Called())
		}
	}
}

func runPage(t *testing.T, run *Run) string {
	t.Helper()
	b, err := RenderHTML(run)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMsShowsTinyTimes: known answers of the milliseconds formatter of the
// tables and the CLI: four decimals as before where they show two
// significant digits, three significant digits below that (a tiny graph's
// time per iteration printed "0.0000").
func TestMsShowsTinyTimes(t *testing.T) {
	for _, c := range []struct {
		decimals int
		ms       float64
		want     string
	}{
		{4, 0.3307, "0.3307"}, {4, 16.53512, "16.5351"}, {4, 0.0021, "0.0021"}, {4, 0.001, "0.0010"},
		{4, 0.000117, "0.000117"}, {4, 4.2e-5, "0.000042"}, {4, 4.2345e-5, "0.0000423"}, {4, 9.9996e-4, "0.001"},
		{3, 0.0021, "0.0021"}, {3, 0.0123, "0.012"}, {3, 1.5, "1.500"},
		{4, 0, "0.0000"}, {4, math.NaN(), "—"}, {4, math.Inf(1), "—"},
	} {
		if got := Ms(c.decimals, c.ms); got != c.want {
			t.Errorf("Ms(%d, %v) = %q, want %q", c.decimals, c.ms, got, c.want)
		}
	}

	// The timing table of a graph of a few nodes shows its times.
	run := fixtureRun(false)
	for i := range run.Timings {
		run.Timings[i].Timing.MedianMs, run.Timings[i].Timing.MeanMs = 0.0021, 0.0023 // 50 iterations: 42 ns each
	}
	page := runPage(t, run)
	if strings.Contains(page, ">0.0000<") || !strings.Contains(page, `<td class="num">0.000042</td>`) {
		t.Errorf("timing table of a tiny graph: \"0.0000\" shown, or 0.000042 ms per iteration missing")
	}
}

// Implementations skipped on the same graphs for the same reason (every GPU
// design of a run without the CUDA library) are one finding naming them
// all, not one line each; another reason keeps its own line.
func TestScaleFindingsGroupEqualSkips(t *testing.T) {
	s := scaleFixture2()
	var extra []ScaleRow
	for _, r := range s.Rows {
		if r.Implementation == "gpu-cluster" {
			for _, im := range []string{"gpu-x", "gpu-y"} {
				c := r
				c.Implementation = im
				extra = append(extra, c)
			}
			c := r
			c.Implementation, c.Reason = "gpu-z", "another reason"
			extra = append(extra, c)
		}
	}
	s.Rows = append(s.Rows, extra...)
	lines := strings.Join(ScaleFindings(s), "\n")
	for _, want := range []string{
		"**3 implementations are skipped** (`gpu-cluster`, `gpu-x`, `gpu-y`) on 3 of 3 graphs (rmat10, rmat11, rmat12): graph needs too much shared memory.",
		"**`gpu-z` is skipped** on 3 of 3 graphs (rmat10, rmat11, rmat12): another reason.",
	} {
		if !strings.Contains(lines, want) {
			t.Errorf("findings lack %q:\n%s", want, lines)
		}
	}
	if n := strings.Count(lines, "graph needs too much shared memory"); n != 1 {
		t.Errorf("the shared skip reason is in %d findings, want 1:\n%s", n, lines)
	}
}
