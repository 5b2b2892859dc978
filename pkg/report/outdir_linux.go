package report

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

var errNoExchange = errors.New("atomic exchange of directories not supported")

// exchange swaps the directories a and b with one renameat2(RENAME_EXCHANGE):
// after it, each name holds the other's tree; there is no moment at which
// either name is missing. errNoExchange where the kernel or file system does
// not support it.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return errNoExchange
	}
	if err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}
