package report

import (
	"strings"
	"testing"
)

// checkErrContains reports on t unless err contains want, or, for want
// "", unless err is nil; name says which case of a table failed.
func checkErrContains(t *testing.T, name string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: unexpected error %v", name, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: error %v, want one containing %q", name, err, want)
	}
}

// committedRun reads the committed results.json of reports/<dir>, failing t
// when it does not read (the committed reports are part of the checkout).
func committedRun(t *testing.T, dir string) *Run {
	t.Helper()
	run, err := Read[Run]("../../reports/" + dir + "/" + JSONFile)
	if err != nil {
		t.Fatal(err)
	}
	return run
}
