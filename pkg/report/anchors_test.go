package report

import (
	"regexp"
	"testing"
)

// TestPageLinksLandOnAnchors: every in-page link (href="#x") of a report page
// points at an element of that page (id="x"), with and without a GPU: the
// summary's "tier" column links to the Tiers section, which a run without a
// GPU replaces by the paragraph saying why GPU rows were skipped.
func TestPageLinksLandOnAnchors(t *testing.T) {
	links := regexp.MustCompile(`href="#([^"]+)"`)
	ids := regexp.MustCompile(`id="([^"]+)"`)
	for _, gpu := range []bool{false, true} {
		page := runPage(t, fixtureRun(gpu))
		have := map[string]bool{}
		for _, m := range ids.FindAllStringSubmatch(page, -1) {
			have[m[1]] = true
		}
		n := 0
		for _, m := range links.FindAllStringSubmatch(page, -1) {
			n++
			if !have[m[1]] {
				t.Errorf("gpu=%v: link to #%s, but the page has no element with that id", gpu, m[1])
			}
		}
		if n == 0 {
			t.Errorf("gpu=%v: no in-page link found (the page's summary links to its sections)", gpu)
		}
	}
}
