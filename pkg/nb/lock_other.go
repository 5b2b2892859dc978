//go:build !unix

package nb

// lockFile is a no-op where flock is not available: concurrent notebooks may
// then compute the same cached result twice, which is only slower.
func lockFile(path string) (func(), error) { return func() {}, nil }
