//go:build unix

package report

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

var (
	errLocked          = errors.New("locked by another process")
	errSyncUnsupported = syscall.EINVAL
)

// lockExclusive opens (creating) path and takes a non-blocking exclusive
// flock on it, then writes this process's pid into it. errLocked when
// another open file holds the lock. Because the holder removes the file
// before unlocking, a lock taken on an inode that is no longer at path is
// dropped and taken again on the new file.
func lockExclusive(path string) (*os.File, error) {
	for range 100 {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, err
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, errLocked
			}
			return nil, err
		}
		var fdSt, pathSt unix.Stat_t
		if unix.Fstat(int(f.Fd()), &fdSt) == nil && unix.Stat(path, &pathSt) == nil &&
			fdSt.Ino == pathSt.Ino && fdSt.Dev == pathSt.Dev {
			if err := f.Truncate(0); err == nil {
				f.WriteAt([]byte(fmt.Sprintf("pid %d\n", os.Getpid())), 0)
			}
			return f, nil
		}
		f.Close() // the holder removed the file meanwhile: lock the new one
	}
	return nil, fmt.Errorf("%s: the lock file keeps being replaced", path)
}

// lockBusy reports whether another open file holds the flock on the lock
// file at path, and the holder's pid. It takes and drops the lock to find
// out, so a writer starting in that instant may see this process as busy.
func lockBusy(path string) (pid int, busy bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return readPID(path), errors.Is(err, unix.EWOULDBLOCK)
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return 0, false
}

// readPID reads the holder's pid from a lock file ("pid 1234"); 0 if unknown.
func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(string(b), "pid ")))
	if err != nil {
		return 0
	}
	return n
}
