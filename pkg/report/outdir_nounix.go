//go:build !unix

package report

import (
	"errors"
	"os"
)

var (
	errLocked          = errors.New("locked by another process")
	errSyncUnsupported = errors.New("sync unsupported")
)

// lockExclusive is a plain open where flock does not exist: no mutual exclusion.
func lockExclusive(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
}

func readPID(string) int { return 0 }

func lockBusy(string) (int, bool) { return 0, false }
