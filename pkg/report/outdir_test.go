package report

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The helper process (re-executed test binary): holds a lock, or writes a
// unit and dies hard (os.Exit, no deferred cleanup: as kill -9) at a step.
func TestMain(m *testing.M) {
	switch {
	case os.Getenv("PRLAB_TEST_HOLD_LOCK") != "":
		o, err := LockOut(os.Getenv("PRLAB_TEST_HOLD_LOCK"))
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin
		o.Close()
		os.Exit(0)
	case os.Getenv("PRLAB_TEST_CRASH_AT") != "":
		at := os.Getenv("PRLAB_TEST_CRASH_AT")
		noExchange = os.Getenv("PRLAB_TEST_NO_EXCHANGE") == "1"
		swapHook = func(s string) error {
			if s == at {
				os.Exit(3)
			}
			return nil
		}
		err := WriteDir(os.Getenv("PRLAB_TEST_DIR"), unitB)
		fmt.Println("wrote:", err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const (
	jsonA = `{"schema": "prlab/results/v1", "name": "A"}`
	jsonB = `{"schema": "prlab/results/v1", "name": "B"}`
)

var (
	unitA = map[string][]byte{HTMLFile: []byte("page A"), TimingCSVFile: []byte("csv A"), JSONFile: []byte(jsonA)}
	unitB = map[string][]byte{HTMLFile: []byte("page B"), TimingCSVFile: []byte("csv B"), JSONFile: []byte(jsonB)}
)

// which reports "A" or "B" when dir holds exactly that unit, else describes the mix.
func which(t *testing.T, dir string) string {
	t.Helper()
	got := map[string]string{}
	for name := range unitA {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			got[name] = err.Error()
			continue
		}
		got[name] = string(b)
	}
	for _, u := range []struct {
		name  string
		files map[string][]byte
	}{{"A", unitA}, {"B", unitB}} {
		same := true
		for name, b := range u.files {
			same = same && got[name] == string(b)
		}
		if same {
			return u.name
		}
	}
	return fmt.Sprint(got)
}

// leftovers lists the writer's siblings of dir and the temporary files in it.
func leftovers(dir string) []string {
	var out []string
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "."+filepath.Base(dir)+".prlab-") && !strings.HasSuffix(e.Name(), "-lock") {
			out = append(out, e.Name())
		}
	}
	inside, _ := os.ReadDir(dir)
	for _, e := range inside {
		if isStaleTemp(e.Name()) {
			out = append(out, filepath.Join(filepath.Base(dir), e.Name()))
		}
	}
	return out
}

// holdLock starts a helper process that holds LockOut(dir) until release.
func holdLock(t *testing.T, dir string) (pid int, release func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PRLAB_TEST_HOLD_LOCK="+dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
		cmd.Process.Kill()
		t.Fatalf("helper: %q", line)
	}
	return cmd.Process.Pid, func() { stdin.Close(); cmd.Wait() }
}

func mustWrite(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	if err := WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
}

func TestWriteDirKeepsWhatTheWriteDoesNotName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	mustWrite(t, dir, unitA)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("notes"), 0o644)
	os.MkdirAll(filepath.Join(dir, "verify-h200", "deep"), 0o755)
	os.WriteFile(filepath.Join(dir, "verify-h200", "deep", "log.txt"), []byte("log"), 0o600)
	os.Symlink("README.md", filepath.Join(dir, "link"))
	os.WriteFile(filepath.Join(dir, ".index.html.tmp-123"), []byte("stale"), 0o644) // the old writer's leftover

	// Render-like write: one file. Everything else stays.
	mustWrite(t, dir, map[string][]byte{HTMLFile: []byte("page 2")})
	for name, want := range map[string]string{HTMLFile: "page 2", TimingCSVFile: "csv A", JSONFile: jsonA,
		"README.md": "notes", "verify-h200/deep/log.txt": "log", "link": "notes"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "verify-h200", "deep", "log.txt")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("carried file mode: %v %v, want 0600", st, err)
	}
	if l := leftovers(dir); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
	// A write with files under a folder replaces that folder whole.
	mustWrite(t, dir, map[string][]byte{"verify-h200/verify.json": []byte("{}")})
	if _, err := os.Stat(filepath.Join(dir, "verify-h200", "deep")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("verify-h200/deep survived a write of verify-h200/: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "README.md")); string(b) != "notes" {
		t.Errorf("README.md lost")
	}
}

// TestWriteDirDirectoryWhereAFileGoes: results.json replaced by a directory;
// the next write fails before it changes anything, with a clear message.
func TestWriteDirDirectoryWhereAFileGoes(t *testing.T) {
	for _, exchange := range []bool{true, false} {
		dir := filepath.Join(t.TempDir(), "r")
		mustWrite(t, dir, unitA)
		os.Remove(filepath.Join(dir, JSONFile))
		os.Mkdir(filepath.Join(dir, JSONFile), 0o755)
		noExchange = !exchange
		err := WriteDir(dir, unitB)
		noExchange = false
		want := dir + "/results.json is a directory, but this write puts a file there; move it away and run again (nothing was changed)"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v, want one containing %q", err, want)
		}
		for name, b := range unitA {
			if name == JSONFile {
				continue
			}
			if got, _ := os.ReadFile(filepath.Join(dir, name)); !bytes.Equal(got, b) {
				t.Errorf("%s = %q after the failed write, want %q", name, got, b)
			}
		}
		if st, err := os.Stat(filepath.Join(dir, JSONFile)); err != nil || !st.IsDir() {
			t.Errorf("the user's directory results.json was touched: %v", err)
		}
		if l := leftovers(dir); len(l) != 0 {
			t.Errorf("left behind: %v", l)
		}
	}
}

func TestWriteDirRefusesForeignDirectories(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("mine"), 0o644)
	err := WriteDir(dir, unitA)
	if err == nil || !strings.Contains(err.Error(), "is not empty and holds no prlab output") {
		t.Fatalf("error %v, want a refusal", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory changed: %v", entries)
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	if err := WriteDir(file, unitA); err == nil || !strings.Contains(err.Error(), "it is a file, want a directory") {
		t.Errorf("error %v for a file", err)
	}
	empty := t.TempDir()
	mustWrite(t, empty, unitA) // an empty directory is fine
	if got := which(t, empty); got != "A" {
		t.Errorf("empty dir: %s", got)
	}
	for _, bad := range []string{"", "/abs", "../up", "a/../b", "a//b", `a\b`, ".x.tmp-1"} {
		if err := WriteDir(filepath.Join(t.TempDir(), "r"), map[string][]byte{bad: nil}); err == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
	if err := WriteDir(filepath.Join(t.TempDir(), "r"), map[string][]byte{"a": nil, "a/b": nil}); err == nil {
		t.Errorf("a as file and folder accepted")
	}
}

// TestLockOutNamesTheOtherWriter: a second process holds the lock; LockOut
// fails at once naming its pid, and works again once it is released.
// TestWriteDirRefusesAUsersOwnSite: a folder with the user's own
// index.html (a name prlab writes) and no prlab JSON document is refused and
// left byte-identical; so are folders whose results.json is not prlab's
// (no schema, another schema, not JSON, a schema past the read limit).
func TestWriteDirRefusesAUsersOwnSite(t *testing.T) {
	site := map[string]string{HTMLFile: "<h1>my own site</h1>\n", "other.txt": "notes", "sub/page.html": "<p>x</p>"}
	for _, results := range []string{"", `{"name": "mine"}`, `{"schema": "other/v1"}`, `not json`, `["prlab/results/v1"]`,
		`{"schema": 1}`, `{"pad": "` + strings.Repeat("x", markerReadLimit) + `", "schema": "prlab/results/v1"}`} {
		dir := t.TempDir()
		files := maps.Clone(site)
		if results != "" {
			files[JSONFile] = results
		}
		for name, b := range files {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
			os.WriteFile(filepath.Join(dir, name), []byte(b), 0o644)
		}
		err := WriteDir(dir, unitA)
		if err == nil || !strings.Contains(err.Error(), "is not empty and holds no prlab output") {
			t.Fatalf("results.json %.40q: error %v, want a refusal", results, err)
		}
		for name, b := range files {
			if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != b {
				t.Errorf("results.json %.40q: %s = %q, %v after the refusal, want %q", results, name, got, err, b)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != len(files) { // sub/ is one entry, holding one file
			t.Errorf("results.json %.40q: the directory changed: %v", results, entries)
		}
		if l := leftovers(dir); len(l) != 0 {
			t.Errorf("left behind: %v", l)
		}
	}
	// Each prlab document, schema first or not, makes the folder a report.
	for name, doc := range map[string]string{JSONFile: `{"name": "x", "schema": "prlab/results/v1"}`,
		ScaleJSONFile: `{"schema": "prlab/scale/v1"}`, IncrementalJSONFile: `{"schema": "prlab/incremental/v1"}`,
		VerifyJSONFile: `{"schema": "prlab/verify/v1"}`} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o644)
		os.WriteFile(filepath.Join(dir, "README.md"), []byte("notes"), 0o644)
		mustWrite(t, dir, map[string][]byte{HTMLFile: []byte("page")})
		if b, _ := os.ReadFile(filepath.Join(dir, "README.md")); string(b) != "notes" {
			t.Errorf("%s: README.md lost", name)
		}
	}
}

func TestLockOutNamesTheOtherWriter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "latest")
	pid, release := holdLock(t, dir)
	_, err := LockOut(dir)
	want := fmt.Sprintf("%s is being written by prlab pid %d; wait or choose another --out", dir, pid)
	var busy *BusyError
	if !errors.As(err, &busy) || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if err := WriteDir(dir, unitA); !errors.As(err, &busy) {
		t.Errorf("WriteDir while locked: %v", err)
	}
	release()
	o, err := LockOut(dir)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	// The same process cannot lock twice; WriteDir uses the held lock.
	if _, err := LockOut(dir); !errors.As(err, &busy) {
		t.Errorf("second LockOut in one process: %v", err)
	}
	if err := WriteDir(dir, unitA); err != nil {
		t.Errorf("WriteDir under this process's lock: %v", err)
	}
	o.Close()
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), ".latest.prlab-lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left after Close: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("the lock or a temporary is inside the report: %v", entries)
	}
}

// TestConcurrentWritersNeverMix: goroutines write A and B at once; each
// write either lands whole or is refused as busy; the result is A or B.
func TestConcurrentWritersNeverMix(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u := unitA
			if i%2 == 1 {
				u = unitB
			}
			errs <- WriteDir(dir, u)
		}()
	}
	wg.Wait()
	close(errs)
	wrote := 0
	for err := range errs {
		var busy *BusyError
		switch {
		case err == nil:
			wrote++
		case !errors.As(err, &busy):
			t.Errorf("unexpected error %v", err)
		}
	}
	if wrote == 0 {
		t.Error("no write succeeded")
	}
	if got := which(t, dir); got != "A" && got != "B" {
		t.Errorf("mixed report: %s", got)
	}
	if l := leftovers(dir); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
}

// TestCrashAtEveryStep kills a writer (os.Exit in a child process, no
// cleanup) at every step of the swap, for both swaps. Afterwards the
// directory holds the old report or the new one, never a mix; the next
// LockOut removes or restores what the dead writer left.
func TestCrashAtEveryStep(t *testing.T) {
	steps := []string{"created", "written", "carried", "synced", "aside", "swapped", "removed"}
	for _, fallback := range []bool{false, true} {
		for _, at := range steps {
			if at == "aside" && !fallback {
				continue
			}
			name := fmt.Sprintf("%s/fallback=%v", at, fallback)
			dir := filepath.Join(t.TempDir(), "r")
			mustWrite(t, dir, unitA)
			os.WriteFile(filepath.Join(dir, "README.md"), []byte("kept"), 0o644)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "PRLAB_TEST_CRASH_AT="+at, "PRLAB_TEST_DIR="+dir)
			if fallback {
				cmd.Env = append(cmd.Env, "PRLAB_TEST_NO_EXCHANGE=1")
			}
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 3 {
				t.Fatalf("%s: child did not crash: %v %s", name, err, out)
			}
			want := "A"
			if slices.Index(steps, at) >= slices.Index(steps, "swapped") {
				want = "B"
			}
			got := which(t, dir)
			if at == "aside" {
				// Between the two renames: the directory is missing until
				// the next writer restores the old one.
				if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s: %s exists between the renames", name, dir)
				}
			} else if got != want {
				t.Errorf("%s: after the crash the directory holds %s, want %s", name, got, want)
			}
			o, err := LockOut(dir)
			if err != nil {
				t.Fatalf("%s: recovery: %v", name, err)
			}
			if got := which(t, dir); got != want {
				t.Errorf("%s: after recovery %s, want %s", name, got, want)
			}
			if l := leftovers(dir); len(l) != 0 {
				t.Errorf("%s: recovery left %v", name, l)
			}
			if at != "removed" && len(o.Recovered()) == 0 {
				t.Errorf("%s: Recovered() is empty", name)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "README.md")); string(b) != "kept" {
				t.Errorf("%s: README.md lost", name)
			}
			if err := o.Write(unitA); err != nil || which(t, dir) != "A" {
				t.Errorf("%s: write after recovery: %v", name, err)
			}
			o.Close()
			if _, err := os.Stat(filepath.Join(filepath.Dir(dir), ".r.prlab-lock")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: lock file left after Close: %v", name, err)
			}
		}
	}
}

// TestFailAtEveryStep: a step that fails (instead of a crash) leaves the old
// report before the swap and the new one after it, and nothing behind.
func TestFailAtEveryStep(t *testing.T) {
	defer func() { swapHook, noExchange = nil, false }()
	steps := []string{"created", "written", "carried", "synced", "aside", "swapped", "removed"}
	for _, fallback := range []bool{false, true} {
		for _, at := range steps {
			dir := filepath.Join(t.TempDir(), "r")
			mustWrite(t, dir, unitA)
			swapHook = func(s string) error {
				if s == at {
					return errors.New("injected failure at " + s)
				}
				return nil
			}
			noExchange = fallback
			err := WriteDir(dir, unitB)
			swapHook, noExchange = nil, false
			if at == "aside" && !fallback {
				if err != nil {
					t.Errorf("exchange swap has no aside step, but failed: %v", err)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), "injected failure at "+at) {
				t.Errorf("%s: error %v", at, err)
			}
			want := "A"
			if slices.Index(steps, at) >= slices.Index(steps, "swapped") {
				want = "B"
			}
			if got := which(t, dir); got != want {
				t.Errorf("%s/fallback=%v: holds %s, want %s", at, fallback, got, want)
			}
			if l := leftovers(dir); len(l) != 0 {
				t.Errorf("%s/fallback=%v: left %v", at, fallback, l)
			}
		}
	}
}

// TestWriteDirWithANestedWriter: while another process writes a folder
// inside the directory (prlab verify into R/verify-x), a write of R is
// refused naming that folder and its pid; a dead nested writer's unfinished
// directory is not carried over, its set-aside old folder is.
func TestWriteDirWithANestedWriter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	mustWrite(t, dir, unitA)
	inner := filepath.Join(dir, "verify-x")
	pid, release := holdLock(t, inner)
	err := WriteDir(dir, map[string][]byte{HTMLFile: []byte("page 2")})
	want := fmt.Sprintf("%s is being written by prlab pid %d; wait or choose another --out", inner, pid)
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	release()
	os.Mkdir(filepath.Join(dir, ".verify-x.prlab-new-123"), 0o755)
	os.Mkdir(filepath.Join(dir, ".verify-x.prlab-old-123"), 0o755)
	mustWrite(t, dir, map[string][]byte{HTMLFile: []byte("page 2")})
	if _, err := os.Stat(filepath.Join(dir, ".verify-x.prlab-new-123")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the nested writer's unfinished directory was carried over: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".verify-x.prlab-old-123")); err != nil {
		t.Errorf("the nested writer's set-aside folder was dropped: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, HTMLFile)); string(b) != "page 2" {
		t.Errorf("index.html = %q", b)
	}
}
