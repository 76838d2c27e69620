package opsutil

import (
	"reflect"
	"unsafe"

	"github.com/gort-dev/gort/runtime/op"
)

// Data-movement kernels (gather, transpose, pad, where, ...) copy elements
// without looking at them, so moving a float32 is moving a uint32. Generic
// over the element width instead of the dtype, such a kernel is compiled
// four times for the plain-bits storages (floats, integers, bools) instead of
// eleven, which is most of its size in gort.wasm.

// As returns the storage slice data as a []T: data itself when it is one,
// otherwise the same memory viewed as []T, which needs data to be a storage of
// plain bits (float32/64, int8-64, uint8-64, bool) whose elements are T's
// size. It fails (op.Fail) on any other storage.
func As[T any](data any) []T {
	if d, ok := data.([]T); ok {
		return d
	}
	p, n := view(data, unsafe.Sizeof(*new(T)))
	return unsafe.Slice((*T)(p), n)
}

// As2 is As for a destination and a source, which must be storages of the
// same Go type (a float32 is not moved into an int32 storage).
func As2[T any](dst, src any) ([]T, []T) {
	sameStorage(dst, src)
	return As[T](dst), As[T](src)
}

// view returns the first element and length of data, a plain-bits storage
// with elements of the given size; the checks out of As keep its many
// instantiations small.
func view(data any, size uintptr) (unsafe.Pointer, int) {
	p, n, s := plain(data)
	if s != size {
		op.Fail("cannot view %T as elements of %d bytes", data, size)
	}
	return p, n
}

func sameStorage(dst, src any) {
	if reflect.TypeOf(dst) != reflect.TypeOf(src) {
		op.Fail("cannot move %T into %T", src, dst)
	}
}

// plain returns the first element, length and element size of a plain-bits
// storage; a size of 0 for any other storage.
func plain(data any) (unsafe.Pointer, int, uintptr) {
	switch d := data.(type) {
	case []float32:
		return unsafe.Pointer(unsafe.SliceData(d)), len(d), 4
	case []float64:
		return unsafe.Pointer(unsafe.SliceData(d)), len(d), 8
	case []int64:
		return unsafe.Pointer(unsafe.SliceData(d)), len(d), 8
	case []int32:
		return unsafe.Pointer(unsafe.SliceData(d)), len(d), 4
	case []bool:
		return unsafe.Pointer(unsafe.SliceData(d)), len(d), 1
	case []int8:
		return unsafe.Pointer(unsafe.SliceData(d)), len(d), 1
	case []uint8:
		return unsafe.Pointer(unsafe.SliceData(d)), len(d), 1
	case []int16:
		return unsafe.Pointer(unsafe.SliceData(d)), len(d), 2
	case []uint16:
		return unsafe.Pointer(unsafe.SliceData(d)), len(d), 2
	case []uint32:
		return unsafe.Pointer(unsafe.SliceData(d)), len(d), 4
	case []uint64:
		return unsafe.Pointer(unsafe.SliceData(d)), len(d), 8
	}
	return nil, 0, 0
}
