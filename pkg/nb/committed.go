package nb

import (
	"path/filepath"
	"slices"
	"strings"
)

// committedReport is one committed report file read as a study.
type committedReport[T any] struct {
	study *T
	path  string // relative to the checkout, with forward slashes
}

// committedReports reads every committed file matching one of patterns
// (globs relative to the checkout, e.g. "reports/*/scale.json") with read,
// leaving out what does not read and what git does not track
// (committedFilter); orders them, those whose order func says measured a
// GPU first, then newest date first; and wraps each with wrap (the
// notebook's Committed* type).
func committedReports[T, C any](patterns []string, read func(string) (*T, error), order func(*T) (gpu bool, date string), wrap func(study *T, path string) C) ([]C, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, pat := range patterns {
		m, err := filepath.Glob(filepath.Join(root, pat))
		if err != nil {
			return nil, err
		}
		paths = append(paths, m...)
	}
	committed := committedFilter(root)
	var found []committedReport[T]
	for _, p := range paths {
		rel, _ := filepath.Rel(root, p)
		if !committed(rel) {
			continue
		}
		s, err := read(p)
		if err != nil {
			continue
		}
		found = append(found, committedReport[T]{s, filepath.ToSlash(rel)})
	}
	slices.SortStableFunc(found, func(a, b committedReport[T]) int {
		ga, da := order(a.study)
		gb, db := order(b.study)
		if ga != gb {
			if ga {
				return -1
			}
			return 1
		}
		return strings.Compare(db, da)
	})
	out := make([]C, len(found))
	for i, f := range found {
		out[i] = wrap(f.study, f.path)
	}
	return out, nil
}
