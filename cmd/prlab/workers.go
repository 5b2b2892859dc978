package main

import (
	"flag"
	"fmt"
	"runtime"

	"github.com/prlab/prlab/pkg/study"
)

// workersFlag adds --workers to fs: the goroutine count of the multi-core
// CPU rows (T1), default GOMAXPROCS, recorded in the report's protocol.
func workersFlag(fs *flag.FlagSet) *int {
	return fs.Int("workers", runtime.GOMAXPROCS(0), fmt.Sprintf("worker goroutines of the multi-core CPU rows (t1-multicore-*), in [1, %d]; default GOMAXPROCS", study.MaxWorkers))
}

// checkWorkers is the usage error for a --workers value out of range.
func checkWorkers(n int) error {
	if n < 1 || n > study.MaxWorkers {
		return usageError{fmt.Sprintf("--workers %d out of range: must be in [1, %d] (default GOMAXPROCS = %d)", n, study.MaxWorkers, runtime.GOMAXPROCS(0))}
	}
	return nil
}
