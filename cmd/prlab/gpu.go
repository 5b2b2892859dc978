package main

import "github.com/prlab/prlab/pkg/study"

// gpu returns the GPU half of the study. GPU support comes from pkg/cudabind
// (the cgo binding that opens libprlab_cuda.so at run time); this binary does
// not link it yet, so the study reports every GPU row as skipped with
// study.NoGPUReason and runs everything else.
func gpu() study.GPU { return nil }
