package main

import "github.com/prlab/prlab/pkg/study"

// gpu returns the GPU half of the study: pkg/cudabind through study.CUDA. On
// a machine without libprlab_cuda.so, a driver or a device, its Available
// says why and the report shows every GPU row as skipped with that reason.
func gpu() study.GPU { return study.CUDA{} }
