//go:build !cgo

package cudabind

import (
	"unsafe"

	"github.com/prlab/prlab/pkg/pagerank"
)

// Without cgo there is no dlopen: every GPU implementation reports itself
// unavailable with errNoCgo as the reason, and everything else in prlab still runs.
const cgoEnabled = false

type library struct{ path string }

func openLibrary(path string) (*library, error) { return nil, errNoCgo }

func (l *library) close()                    {}
func (l *library) abiVersion() int           { return 0 }
func (l *library) deviceCount() (int, error) { return 0, errNoCgo }
func (l *library) deviceInfo(int) (Device, error) {
	return Device{}, errNoCgo
}
func (l *library) graphCreate(int, *pagerank.Graph, int) (unsafe.Pointer, error) {
	return nil, errNoCgo
}
func (l *library) graphFree(unsafe.Pointer) error { return errNoCgo }
func (l *library) runImpl(unsafe.Pointer, int, float32, int, float32, int) (runOut, error) {
	return runOut{}, errNoCgo
}
func (l *library) benchmark(unsafe.Pointer, int, float32, int, int, int, int) ([]float32, []float32, error) {
	return nil, nil, errNoCgo
}
func (l *library) timeStage(unsafe.Pointer, int, float32, int, int) (float64, error) {
	return 0, errNoCgo
}
func (l *library) timeCopy(unsafe.Pointer, int64, int, int) (float64, error) { return 0, errNoCgo }
func (l *library) checkReduction(unsafe.Pointer, int, int, []float32, []float32, []uint8, int) (float64, int, int, error) {
	return 0, 0, 0, errNoCgo
}
func (l *library) layoutInfo(unsafe.Pointer) (Layout, error)     { return Layout{}, errNoCgo }
func (l *library) setKnob(unsafe.Pointer, int, int) error        { return errNoCgo }
func (l *library) hotHeadCodes(unsafe.Pointer, ColumnCode) error { return errNoCgo }
func (l *library) hotHeadInfo(unsafe.Pointer, int, float32) (HotHeadSetup, error) {
	return HotHeadSetup{}, errNoCgo
}
func (l *library) propBlockInfo(unsafe.Pointer, float32) (PropBlockSetup, error) {
	return PropBlockSetup{}, errNoCgo
}
func (l *library) timePrimitive(unsafe.Pointer, int, int, int, int) (float64, error) {
	return 0, errNoCgo
}

func (l *library) hasSessions() error { return errNoCgo }
func (l *library) sessionOpen(int, int, *pagerank.Graph, []int32, int) (unsafe.Pointer, error) {
	return nil, errNoCgo
}
func (l *library) sessionApply(unsafe.Pointer, int, []pagerank.Edge, []pagerank.Edge) (deviceStats, error) {
	return deviceStats{}, errNoCgo
}
func (l *library) sessionRun(unsafe.Pointer, float32, int, float32, []float32, int) (runOut, float64, error) {
	return runOut{}, 0, errNoCgo
}
func (l *library) sessionGraph(unsafe.Pointer) (*residentGraph, error) { return nil, errNoCgo }
func (l *library) sessionClose(unsafe.Pointer) error                   { return errNoCgo }

// Without cgo the C table of designs is not compiled in: no stage lists.
func designStages(int) []int { return nil }
func designFamily(int) int   { return -1 }
