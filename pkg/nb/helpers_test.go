package nb

import (
	"os"
	"testing"
)

// The browser tests' gates: each names what the test needs installed.
const (
	// EnvBrowserTest gates TestNotebookInBrowser and TestExportedNotebookHTML:
	// they need the Jupyter stack from Debian (jupyter-notebook,
	// python3-ipykernel), Debian's chromium and the GoNB kernel spec (`make
	// kernel`). `make notebooks-test` sets it.
	EnvBrowserTest = "PRLAB_NOTEBOOK_TEST"
	// EnvLabTest gates TestNotebooksInJupyterLab: it needs Debian's
	// python3-jupyterlab-server and chromium, the front end built by `make
	// jlab` (build/jlab) and the GoNB binaries of `make kernel`. `make
	// notebooks-lab-test` sets it.
	EnvLabTest = "PRLAB_LAB_TEST"
)

// browserTestRoot skips t unless the environment variable env is set (what
// to set it for says how), and returns the checkout root.
func browserTestRoot(t *testing.T, env, what string) string {
	t.Helper()
	if os.Getenv(env) == "" {
		t.Skipf("set %s=1 %s", env, what)
	}
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// browserTestTools are the browser and the Python that runs Jupyter:
// $PRLAB_CHROMIUM or the first Chromium on PATH, and $PRLAB_PYTHON or
// Debian's /usr/bin/python3.
func browserTestTools(t *testing.T) (chromium, python string) {
	t.Helper()
	chromium = findExe(t, "PRLAB_CHROMIUM", "chromium", "chromium-browser", "google-chrome")
	python = "/usr/bin/python3"
	if p := os.Getenv("PRLAB_PYTHON"); p != "" {
		python = p
	}
	return chromium, python
}

// committedOne returns the last of runs (a Committed* listing and its
// error) that match picks, failing t when the listing failed or none
// matches; what names the run looked for.
func committedOne[T any](t *testing.T, runs []T, err error, what string, match func(*T) bool) *T {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var found *T
	for i := range runs {
		if match(&runs[i]) {
			found = &runs[i]
		}
	}
	if found == nil {
		t.Fatalf("%s not among %d committed runs", what, len(runs))
	}
	return found
}
