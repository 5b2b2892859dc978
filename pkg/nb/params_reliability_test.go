package nb

// Notebook parameters out of range (issue 7): a notebook's "parameters" cell
// goes through Study, which must reject bad values with the valid range and
// write nothing to the cache.

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/internal/fixture"
)

func TestNotebookParamsOutOfRange(t *testing.T) {
	data := fixture.WriteDataset(t, t.TempDir(), map[string]string{
		EdgeFile:   "A , B\nB , C\nC , A\nD , C\n",
		PapersFile: "id\tyear\ttitle\nA\t2001\tPaper A\n",
	})
	cache := t.TempDir()
	t.Setenv(EnvCache, cache)

	cases := []struct {
		p    Params
		want string
	}{
		{Params{GraphDir: data, Iterations: -5}, "iterations -5 out of range: must be in [1, 10000]"},
		{Params{GraphDir: data, Iterations: 20000}, "iterations 20000 out of range: must be in [1, 10000]"},
		{Params{GraphDir: data, Runs: -1}, "runs -1 out of range: must be in [1, 1000]"},
		{Params{GraphDir: data, Impls: "t0-oracle, t9-warp"}, `unknown implementation "t9-warp": valid names are t0-oracle`},
	}
	for _, c := range cases {
		run, err := Study(c.p)
		if run != nil || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want an error containing %q", c.p, err, c.want)
		}
	}
	// Lock files may stay (flock); no cached study may.
	if runs, _ := filepath.Glob(filepath.Join(cache, "*", "results.json")); len(runs) != 0 {
		t.Errorf("rejected parameters left cached runs: %v", runs)
	}
	// A graph directory that does not hold the data: an error naming it.
	empty := t.TempDir()
	if _, err := Study(Params{GraphDir: empty}); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty graph directory: %v", err)
	}
}
