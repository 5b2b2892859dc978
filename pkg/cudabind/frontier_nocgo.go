//go:build !cgo

package cudabind

import "unsafe"

func (l *library) frontierInfo(unsafe.Pointer) (FrontierInfo, error) { return FrontierInfo{}, errNoCgo }
func (l *library) frontierSet(unsafe.Pointer, int, int) error        { return errNoCgo }
func (l *library) frontierPrimitive(unsafe.Pointer, int, int, int, int) (float64, error) {
	return 0, errNoCgo
}
func (l *library) frontierTimeStage(unsafe.Pointer, int, float32, int, int) (float64, error) {
	return 0, errNoCgo
}
