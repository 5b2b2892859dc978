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
	g := residentGraphOf(t, 8)
	checkResidentSessions(t, g, 1e-7, true)

	// The library's event times reach LastMs (the fake: 0.5 ms + 1 us per batch edge, 0.25 ms per iteration).
	im, _ := DesignByName(NameCusparse)
	ps, err := im.(pagerank.Resident).Open(g)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	s := ps.(*DeviceSession)
	b, _ := pagerank.RandomBatch(g, pagerank.BatchMixed, 0.01, 3)
	if _, err := s.Apply(b); err != nil {
		t.Fatal(err)
	}
	res, err := s.RunFrom(pagerank.Fixed(8), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantUpdate := float64(float32(0.5) + float32(0.001)*float32(len(b.Inserts)+len(b.Deletes)))
	if u, r := s.LastMs(); u != wantUpdate || r != 2 || res.Iterations != 8 {
		t.Errorf("LastMs() = %v, %v after a batch of %d edges and 8 iterations; want %v, 2", u, r, len(b.Inserts)+len(b.Deletes), wantUpdate)
	}
	if ph := s.LastPhases(); ph[0] != float64(float32(wantUpdate)/5) || ph[4] != ph[0] {
		t.Errorf("LastPhases() = %v, want 5 x %v", ph, float32(wantUpdate)/5)
	}
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
