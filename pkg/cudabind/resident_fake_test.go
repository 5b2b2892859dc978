//go:build cgo

package cudabind

import (
	"errors"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Resident sessions through the cgo binding against the fake library,
// which applies batches by the device's rules on the host: counts, the
// resident graph after every batch, warm and cold starts against float64.
func TestResidentWithFakeLibrary(t *testing.T) {
	useFake(t)
	checkResidentSessions(t, residentGraphOf(t, 8), 1e-7)
}

// A library without the session entry points: the resident designs are
// unavailable (skipped rows in a study), and the other designs still run.
func TestResidentWithoutSessionSymbols(t *testing.T) {
	if reason := useLibrary(t, buildFake(t, "-DFAKE_NO_SESSION")); reason != "" {
		t.Fatalf("fake library unavailable: %s", reason)
	}
	im, _ := DesignByName(NameCusparse)
	if r := im.(pagerank.Unavailable).Reason(); !strings.Contains(r, "prlab_session_open") {
		t.Errorf("Reason() = %q, want it to name prlab_session_open", r)
	}
	g, _ := pagerank.SyntheticCase("chain")
	if _, err := im.(pagerank.Resident).Open(g); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Open without sessions: %v, want ErrUnavailable", err)
	}
	if _, err := im.Run(g, pagerank.Fixed(5)); err != nil {
		t.Errorf("Run without sessions: %v", err)
	}
}
