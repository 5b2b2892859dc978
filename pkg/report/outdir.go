package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// An output directory (a command's --out) is written as one unit: a write
// either replaces the directory with a complete new one or leaves the old one
// as it was, whatever fails or kills the process on the way.
//
// The protocol, for --out D with parent P and base name B:
//
//  1. Lock: P/.B.prlab-lock is flocked (LOCK_EX|LOCK_NB) and holds the pid.
//     A second writer fails at once with "D is being written by prlab pid N;
//     wait or choose another --out" ([BusyError]). The lock file is beside D,
//     never inside it, and is removed when the lock is released.
//  2. Recover: leftovers of a killed earlier writer are cleaned:
//     P/.B.prlab-new-* (an unfinished new directory, or the old one after a
//     completed exchange) are removed; P/.B.prlab-old-* (the old directory
//     set aside by the two-rename swap) is renamed back to D when D is
//     missing (the swap was cut between its renames) and removed otherwise;
//     files D/.*.tmp-* of an earlier per-file writer are removed.
//  3. Build: the files of the write go into a fresh sibling P/.B.prlab-new-*,
//     each fsynced. Every top-level entry of D the write does not name
//     (READMEs, logs, verify-*/ folders a user or another command put there)
//     is carried over by hard link (copy where links fail), so re-rendering
//     index.html keeps them. A name the write uses replaces that entry whole:
//     a file, or a whole subfolder when the write has files under it.
//  4. Swap: the new directory and D are exchanged with one
//     renameat2(RENAME_EXCHANGE) (Linux); where the file system lacks it, D
//     is renamed aside to P/.B.prlab-old-* and the new directory renamed to
//     D. P is fsynced, then the old directory is removed.
//
// D must be missing, empty, or hold a prlab output: a top-level
// results.json, scale.json, incremental.json or verify.json whose "schema"
// field (read from its first [markerReadLimit] bytes) starts with "prlab/".
// File names alone do not count: a user's own index.html is not prlab's to
// replace, so any other non-empty directory is refused before anything is
// written. A name the write uses that exists in D with another type
// (results.json made a directory) is refused the same way.
//
// Use: [WriteDir] for one write, or [LockOut] at the start of a long command
// (a second run then fails before it computes anything) and [OutDir.Write]
// for each write (a checkpoint, then the final report).

// swapHook, when set (tests), is called at each step of a write; an error
// it returns fails the write there, exactly as a failing system call would.
// Steps: "created", "written", "carried", "synced", "aside" (two-rename swap
// only, after D was renamed aside), "swapped", "removed".
var swapHook func(step string) error

// noExchange, when set (tests), makes the swap use the two-rename fallback.
var noExchange bool

func step(name string) error {
	if swapHook != nil {
		return swapHook(name)
	}
	return nil
}

// reportMarkers are the top-level JSON documents that make a directory a
// prlab output a write may replace, when their "schema" is a prlab schema
// (see [isPrlabDocument]).
var reportMarkers = []string{JSONFile, ScaleJSONFile, IncrementalJSONFile, VerifyJSONFile}

// markerReadLimit bounds what isPrlabDocument reads of a marker (bytes):
// prlab writes "schema" as the first key, so a few bytes suffice.
const markerReadLimit = 64 << 10

// isPrlabDocument reports whether the regular file p is a JSON object whose
// "schema" key, found among its top-level keys within the first
// markerReadLimit bytes, is a string starting with "prlab/" (Schema,
// ScaleSchema, IncrementalSchema, VerifySchema and their other versions).
func isPrlabDocument(p string) bool {
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, markerReadLimit))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return false
		}
		if key == "schema" {
			var v any
			if dec.Decode(&v) != nil {
				return false
			}
			s, ok := v.(string)
			return ok && strings.HasPrefix(s, "prlab/")
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

// OutDir is an output directory locked for writing by this process.
type OutDir struct {
	path      string // as given, cleaned (for messages)
	abs       string
	parent    string
	base      string
	lock      *os.File
	lockPath  string
	recovered []string
	mu        sync.Mutex
}

// BusyError is returned by LockOut when another process holds the lock.
type BusyError struct {
	Dir string
	PID int // 0 when the holder's pid could not be read
}

func (e *BusyError) Error() string {
	who := "another prlab process"
	if e.PID > 0 {
		who = fmt.Sprintf("prlab pid %d", e.PID)
	}
	return fmt.Sprintf("%s is being written by %s; wait or choose another --out", e.Dir, who)
}

var (
	heldMu sync.Mutex
	held   = map[string]*OutDir{} // abs path -> lock held by this process
)

// LockOut locks dir for writing (creating its parent if needed, not dir
// itself) and cleans up what a killed earlier writer left (see the protocol
// above; Recovered says what). It fails at once with a *BusyError when
// another process holds the lock, and when this process already holds it.
// Release it with Close.
func LockOut(dir string) (*OutDir, error) {
	if dir == "" {
		return nil, errors.New("output directory: empty path")
	}
	clean := filepath.Clean(dir)
	abs, err := filepath.Abs(clean)
	if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", clean, err)
	}
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	if parent == abs {
		return nil, fmt.Errorf("output directory %s: cannot replace the root directory", clean)
	}
	heldMu.Lock()
	defer heldMu.Unlock()
	if held[abs] != nil {
		return nil, &BusyError{Dir: clean, PID: os.Getpid()}
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("output directory %s: %w", clean, err)
	}
	o := &OutDir{path: clean, abs: abs, parent: parent, base: base,
		lockPath: filepath.Join(parent, "."+base+".prlab-lock")}
	if o.lock, err = lockExclusive(o.lockPath); err != nil {
		if errors.Is(err, errLocked) {
			return nil, &BusyError{Dir: clean, PID: readPID(o.lockPath)}
		}
		return nil, fmt.Errorf("lock output directory %s: %w", clean, err)
	}
	if err := o.recover(); err != nil {
		o.release()
		return nil, err
	}
	held[abs] = o
	return o, nil
}

// Path is the directory as given to LockOut, cleaned.
func (o *OutDir) Path() string { return o.path }

// Recovered lists what LockOut cleaned up from a killed earlier writer, one
// sentence each (empty when there was nothing).
func (o *OutDir) Recovered() []string { return o.recovered }

// Close releases the lock and removes the lock file.
func (o *OutDir) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	heldMu.Lock()
	defer heldMu.Unlock()
	if held[o.abs] == o {
		delete(held, o.abs)
	}
	return o.release()
}

func (o *OutDir) release() error {
	if o.lock == nil {
		return nil
	}
	// Unlink first, then unlock: a process that opened the file meanwhile
	// sees its inode gone (lockExclusive checks) and retries on a new one.
	os.Remove(o.lockPath)
	err := o.lock.Close()
	o.lock = nil
	return err
}

// Check runs the checks Write makes before it writes anything (the directory
// is not a file, not a foreign non-empty directory, and holds no entry of
// another type under one of names, the top-level names the command will
// write), so a long command can fail before it computes.
func (o *OutDir) Check(names ...string) error {
	files := map[string][]byte{}
	for _, n := range names {
		files[n] = nil
	}
	top, err := topLevel(files)
	if err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	_, err = o.inspect(top)
	return err
}

// WriteDir writes files into dir as one unit (see the protocol above):
// files maps slash-separated paths relative to dir ("index.html",
// "verify-h200/report.json") to their contents. It uses this process's lock
// when LockOut holds dir, else takes and releases the lock itself.
func WriteDir(dir string, files map[string][]byte) error {
	abs, err := filepath.Abs(filepath.Clean(dir))
	if err != nil {
		return err
	}
	for {
		heldMu.Lock()
		o := held[abs]
		heldMu.Unlock()
		if o == nil {
			break
		}
		if err := o.Write(files); !errors.Is(err, errClosed) {
			return err
		}
		// released between the look-up and the write: take it ourselves
	}
	o, err := LockOut(dir)
	if err != nil {
		return err
	}
	defer o.Close()
	return o.Write(files)
}

var errClosed = errors.New("the output directory is not locked (closed)")

// Write replaces the directory with one holding files (relative,
// slash-separated paths to contents) and every top-level entry of the old
// directory that files does not name. On error the old directory is intact
// (or, for a failure after the swap, the new one is complete) and no
// temporary directory is left, except after a crash, which the next LockOut
// cleans up. Errors name the path and the problem.
func (o *OutDir) Write(files map[string][]byte) (err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.lock == nil {
		return fmt.Errorf("write %s: %w", o.path, errClosed)
	}
	top, err := topLevel(files)
	if err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	old, err := o.inspect(top)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(o.parent, "."+o.base+".prlab-new-")
	if err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	defer func() {
		if err != nil && tmp != "" {
			os.RemoveAll(tmp)
		}
	}()
	if err = os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	if err = step("created"); err != nil {
		return err
	}
	dirs := []string{tmp}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if d := filepath.Dir(p); d != tmp {
			if err = os.MkdirAll(d, 0o755); err != nil {
				return fmt.Errorf("write %s: %w", filepath.Join(o.path, name), err)
			}
			for ; d != tmp && !slices.Contains(dirs, d); d = filepath.Dir(d) {
				dirs = append(dirs, d)
			}
		}
		if err = writeSynced(p, files[name]); err != nil {
			return fmt.Errorf("write %s: %w", filepath.Join(o.path, name), err)
		}
	}
	if err = step("written"); err != nil {
		return err
	}
	for _, e := range old {
		if _, ours := top[e.Name()]; ours || isStaleTemp(e.Name()) || isNestedWriterFile(e.Name()) {
			continue
		}
		src := filepath.Join(o.abs, e.Name())
		if err = carry(src, filepath.Join(tmp, e.Name()), &dirs); err != nil {
			return fmt.Errorf("write %s: keep %s: %w", o.path, filepath.Join(o.path, e.Name()), err)
		}
	}
	if err = step("carried"); err != nil {
		return err
	}
	for _, d := range dirs {
		if err = syncDir(d); err != nil {
			return fmt.Errorf("write %s: sync %s: %w", o.path, d, err)
		}
	}
	if err = step("synced"); err != nil {
		return err
	}
	if err = o.swap(tmp, old != nil); err != nil {
		return err
	}
	tmp = "" // swapped in (or its removal is the next run's job)
	return nil
}

// swap puts the complete directory tmp in place of o.abs (see the protocol).
func (o *OutDir) swap(tmp string, exists bool) error {
	if !exists {
		if err := os.Rename(tmp, o.abs); err != nil {
			return fmt.Errorf("write %s: %w", o.path, err)
		}
		syncDir(o.parent)
		return step("swapped")
	}
	exchanged := false
	if !noExchange {
		err := exchange(tmp, o.abs)
		if err == nil {
			exchanged = true
		} else if !errors.Is(err, errNoExchange) {
			return fmt.Errorf("write %s: %w", o.path, err)
		}
	}
	aside := tmp // after an exchange tmp holds the old directory
	if !exchanged {
		aside = strings.Replace(tmp, ".prlab-new-", ".prlab-old-", 1)
		if err := os.Rename(o.abs, aside); err != nil {
			return fmt.Errorf("write %s: set the old directory aside: %w", o.path, err)
		}
		if err := step("aside"); err != nil {
			os.Rename(aside, o.abs) // put the old one back
			return err
		}
		if err := os.Rename(tmp, o.abs); err != nil {
			os.Rename(aside, o.abs)
			return fmt.Errorf("write %s: %w", o.path, err)
		}
	}
	if err := syncDir(o.parent); err != nil {
		return fmt.Errorf("write %s: sync %s: %w", o.path, o.parent, err)
	}
	if err := step("swapped"); err != nil {
		os.RemoveAll(aside)
		return err
	}
	if err := os.RemoveAll(aside); err != nil {
		return fmt.Errorf("write %s: remove the previous version %s: %w", o.path, aside, err)
	}
	return step("removed")
}

// topLevel checks the names of a write and returns its top-level names,
// each mapped to true when it is a folder (the write has files under it).
func topLevel(files map[string][]byte) (map[string]bool, error) {
	if len(files) == 0 {
		return nil, errors.New("no files to write")
	}
	top := map[string]bool{}
	for name := range files {
		if name == "" || path.IsAbs(name) || path.Clean(name) != name || name == "." ||
			strings.HasPrefix(name, "../") || name == ".." || strings.Contains(name, `\`) {
			return nil, fmt.Errorf("file name %q: want a clean relative slash-separated path", name)
		}
		first, _, nested := strings.Cut(name, "/")
		if isStaleTemp(first) {
			return nil, fmt.Errorf("file name %q: names starting with '.' and holding \".tmp-\" are reserved", name)
		}
		if dir, seen := top[first]; seen && dir != nested {
			return nil, fmt.Errorf("file name %q: %s is both a file and a folder of this write", name, first)
		}
		top[first] = nested
	}
	for name := range files {
		for p := path.Dir(name); p != "."; p = path.Dir(p) {
			if _, clash := files[p]; clash {
				return nil, fmt.Errorf("file name %q: %s is both a file and a folder of this write", name, p)
			}
		}
	}
	return top, nil
}

// inspect checks the current directory before anything is written: nil
// entries when it is missing; an error when it is a file, a foreign
// non-empty directory, or holds a name of the write with the wrong type.
func (o *OutDir) inspect(top map[string]bool) ([]fs.DirEntry, error) {
	st, err := os.Lstat(o.abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", o.path, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("write %s: it is a %s, want a directory", o.path, kindOf(st.Mode()))
	}
	entries, err := os.ReadDir(o.abs)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", o.path, err)
	}
	for _, e := range entries {
		// A folder inside this one being written right now (prlab verify
		// writes reports/NAME/verify-DATE/): replacing this directory under
		// it would lose that write.
		if strings.HasPrefix(e.Name(), ".") && strings.HasSuffix(e.Name(), ".prlab-lock") {
			if pid, busy := lockBusy(filepath.Join(o.abs, e.Name())); busy {
				inner := strings.TrimSuffix(strings.TrimPrefix(e.Name(), "."), ".prlab-lock")
				return nil, &BusyError{Dir: filepath.Join(o.path, inner), PID: pid}
			}
		}
	}
	for _, e := range entries {
		dir, named := top[e.Name()]
		if !named {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", o.path, err)
		}
		want, ok := fs.FileMode(0), info.Mode().IsRegular()
		if dir {
			want, ok = fs.ModeDir, info.IsDir()
		}
		if !ok {
			return nil, fmt.Errorf("write %s: %s is a %s, but this write puts a %s there; move it away and run again (nothing was changed)",
				o.path, filepath.Join(o.path, e.Name()), kindOf(info.Mode()), kindOf(want))
		}
	}
	ours := false
	for _, e := range entries {
		if slices.Contains(reportMarkers, e.Name()) && isPrlabDocument(filepath.Join(o.abs, e.Name())) {
			ours = true
			break
		}
	}
	if !ours && len(entries) > 0 && !allStaleTemps(entries) {
		return nil, fmt.Errorf("write %s: the directory is not empty and holds no prlab output (no %s with a prlab \"schema\"); "+
			"prlab replaces its output directory as a whole, so choose a new or empty --out (nothing was changed)",
			o.path, strings.Join(reportMarkers, ", "))
	}
	return entries, nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "file"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

// isNestedWriterFile matches what a writer of a folder inside this
// directory keeps beside that folder while it writes (its lock file and its
// unfinished new directory): never carried over. A set-aside old folder
// (".prlab-old-") is carried, so that writer's recovery can still restore it.
func isNestedWriterFile(name string) bool {
	return strings.HasPrefix(name, ".") && (strings.HasSuffix(name, ".prlab-lock") || strings.Contains(name, ".prlab-new-"))
}

// isStaleTemp matches the temporary files of the per-file writer that came
// before this one (".index.html.tmp-123"): never carried over, removed by
// recovery.
func isStaleTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}

func allStaleTemps(entries []fs.DirEntry) bool {
	for _, e := range entries {
		if !isStaleTemp(e.Name()) {
			return false
		}
	}
	return true
}

// recover cleans up after a killed earlier writer (step 2 of the protocol).
func (o *OutDir) recover() error {
	entries, err := os.ReadDir(o.parent)
	if err != nil {
		return fmt.Errorf("output directory %s: %w", o.path, err)
	}
	_, statErr := os.Lstat(o.abs)
	exists := statErr == nil
	for _, e := range entries {
		p := filepath.Join(o.parent, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), "."+o.base+".prlab-new-"):
			if err := os.RemoveAll(p); err != nil {
				return fmt.Errorf("output directory %s: remove the unfinished %s: %w", o.path, p, err)
			}
			o.recovered = append(o.recovered, fmt.Sprintf("removed %s, left by an interrupted write", p))
		case strings.HasPrefix(e.Name(), "."+o.base+".prlab-old-"):
			if !exists {
				if err := os.Rename(p, o.abs); err != nil {
					return fmt.Errorf("output directory %s: restore %s: %w", o.path, p, err)
				}
				exists = true
				o.recovered = append(o.recovered, fmt.Sprintf("restored %s from %s: a write was interrupted during its swap", o.path, p))
				continue
			}
			if err := os.RemoveAll(p); err != nil {
				return fmt.Errorf("output directory %s: remove %s: %w", o.path, p, err)
			}
			o.recovered = append(o.recovered, fmt.Sprintf("removed %s, the previous version left by an interrupted write", p))
		}
	}
	if exists {
		inside, _ := os.ReadDir(o.abs)
		for _, e := range inside {
			if isStaleTemp(e.Name()) && e.Type().IsRegular() {
				p := filepath.Join(o.abs, e.Name())
				if os.Remove(p) == nil {
					o.recovered = append(o.recovered, fmt.Sprintf("removed the temporary file %s", p))
				}
			}
		}
	}
	if len(o.recovered) > 0 {
		syncDir(o.parent)
	}
	return nil
}

// carry puts the entry src (file, symbolic link or folder tree) at dst by
// hard links, copying a file where a link fails; created folders are added
// to dirs (to be fsynced).
func carry(src, dst string, dirs *[]string) error {
	st, err := os.Lstat(src)
	if err != nil {
		return err
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	case st.Mode().IsRegular():
		if os.Link(src, dst) == nil {
			return nil
		}
		return copyFile(src, dst, st.Mode().Perm())
	case st.IsDir():
		if err := os.Mkdir(dst, st.Mode().Perm()|0o700); err != nil {
			return err
		}
		*dirs = append(*dirs, dst)
		entries, err := os.ReadDir(src)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := carry(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()), dirs); err != nil {
				return err
			}
		}
		return os.Chmod(dst, st.Mode().Perm())
	}
	return fmt.Errorf("%s is a %s; only files, folders and symbolic links can be kept", src, kindOf(st.Mode()))
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return createSynced(dst, perm, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// writeSynced creates path (which must not exist) with data, mode 0644, fsynced.
func writeSynced(path string, data []byte) error {
	return createSynced(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// createSynced creates path (which must not exist) with mode perm, lets
// fill write it, then fsyncs and closes it; the first error wins.
func createSynced(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	err = fill(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteFileAtomic writes one file that is not part of an output directory
// (a notebook cache entry, `prlab render --out FILE`): to a temporary file
// in the same directory, fsynced, renamed over path. On error path is
// unchanged and the temporary file is removed.
func WriteFileAtomic(path string, data []byte) error {
	return WriteFileAtomicFunc(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFileAtomicFunc is WriteFileAtomic for content too large to hold in
// memory (`prlab export`'s graph files): write streams it into the
// temporary file (buffered), which is then fsynced and renamed over path
// (mode 0644). A path that is a directory is an error naming it.
func WriteFileAtomicFunc(path string, write func(io.Writer) error) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("write %s: is a directory, want a file", path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := f.Name()
	bw := bufio.NewWriterSize(f, 1<<16)
	werr := write(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	if werr == nil {
		werr = f.Chmod(0o644)
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(name, path)
	}
	if werr != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, werr)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// syncDir fsyncs a directory so the entries created or renamed in it are
// durable. EINVAL (a file system without directory fsync) is not an error.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errSyncUnsupported) {
		return err
	}
	return nil
}
