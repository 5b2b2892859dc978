//go:build !linux

package report

import "errors"

var errNoExchange = errors.New("atomic exchange of directories not supported")

// exchange is Linux-only (renameat2); elsewhere the swap renames twice.
func exchange(a, b string) error { return errNoExchange }
