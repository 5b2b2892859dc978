package report

import (
	"os/exec"
	"path/filepath"
	"strings"
)

// GitTracked lists the files git tracks (committed or staged) under the
// pathspecs (relative to dir; none: everything) in the work tree holding
// dir, as paths relative to dir with forward slashes. It runs
// `git -C dir ls-files -z -- pathspecs...`. ok is false when git is not
// installed, dir does not exist, or dir is not inside a git work tree:
// callers then treat nothing as committed (see [CommittedDocument]).
func GitTracked(dir string, pathspecs ...string) (tracked map[string]bool, ok bool) {
	out, err := exec.Command("git", append([]string{"-C", dir, "ls-files", "-z", "--"}, pathspecs...)...).Output()
	if err != nil {
		return nil, false
	}
	tracked = map[string]bool{}
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			tracked[filepath.ToSlash(f)] = true
		}
	}
	return tracked, true
}

// CommittedDocument returns the name of the first prlab document at the
// top of dir (results.json, scale.json, incremental.json, verify.json) that
// git tracks in the checkout holding dir, or "" when none is tracked, dir
// does not exist, or git or a work tree is missing. A measuring command
// refuses such a --out (a committed report) unless told to replace it:
// its measured data would be gone until `git checkout`.
func CommittedDocument(dir string) string {
	tracked, ok := GitTracked(dir, reportMarkers...)
	if !ok {
		return ""
	}
	for _, m := range reportMarkers {
		if tracked[m] {
			return m
		}
	}
	return ""
}
