package tensor

import (
	"fmt"
	"slices"
)

// Elem is the set of Go element types a tensor can be built from with Of.
type Elem interface {
	~float32 | ~float64 | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint8 | ~uint16 | ~uint32 | ~uint64 | ~bool | ~string | ~complex64 | ~complex128
}

// Number is the set of element types with arithmetic.
type Number interface {
	~float32 | ~float64 | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// DTypeOf maps a Go element type to its natural dtype (uint8 → Uint8, not a code type).
func DTypeOf[T Elem]() DType {
	var z T
	switch any(z).(type) {
	case float32:
		return Float
	case float64:
		return Double
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64:
		return Int64
	case uint8:
		return Uint8
	case uint16:
		return Uint16
	case uint32:
		return Uint32
	case uint64:
		return Uint64
	case bool:
		return Bool
	case string:
		return String
	case complex64:
		return Complex64
	case complex128:
		return Complex128
	}
	panic(fmt.Sprintf("tensor: no dtype for %T", z))
}

// storageKind names the Go slice type that stores dt ("[]float32", ...).
func storageKind(dt DType) string {
	switch dt {
	case Float, Float16, BFloat16:
		return "[]float32"
	case Double:
		return "[]float64"
	case Int8, Int4, Int2:
		return "[]int8"
	case Int16:
		return "[]int16"
	case Int32:
		return "[]int32"
	case Int64:
		return "[]int64"
	case Uint8, Uint4, Uint2, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float4E2M1, Float8E8M0:
		return "[]uint8"
	case Uint16:
		return "[]uint16"
	case Uint32:
		return "[]uint32"
	case Uint64:
		return "[]uint64"
	case Bool:
		return "[]bool"
	case String:
		return "[]string"
	case Complex64:
		return "[]complex64"
	case Complex128:
		return "[]complex128"
	}
	return "invalid"
}

func makeStorage(dt DType, n int) any {
	switch storageKind(dt) {
	case "[]float32":
		return make([]float32, n)
	case "[]float64":
		return make([]float64, n)
	case "[]int8":
		return make([]int8, n)
	case "[]int16":
		return make([]int16, n)
	case "[]int32":
		return make([]int32, n)
	case "[]int64":
		return make([]int64, n)
	case "[]uint8":
		return make([]uint8, n)
	case "[]uint16":
		return make([]uint16, n)
	case "[]uint32":
		return make([]uint32, n)
	case "[]uint64":
		return make([]uint64, n)
	case "[]bool":
		return make([]bool, n)
	case "[]string":
		return make([]string, n)
	case "[]complex64":
		return make([]complex64, n)
	case "[]complex128":
		return make([]complex128, n)
	}
	panic(fmt.Sprintf("tensor: no storage for %s", dt))
}

func sliceLen(data any) int {
	switch d := data.(type) {
	case []float32:
		return len(d)
	case []float64:
		return len(d)
	case []int8:
		return len(d)
	case []int16:
		return len(d)
	case []int32:
		return len(d)
	case []int64:
		return len(d)
	case []uint8:
		return len(d)
	case []uint16:
		return len(d)
	case []uint32:
		return len(d)
	case []uint64:
		return len(d)
	case []bool:
		return len(d)
	case []string:
		return len(d)
	case []complex64:
		return len(d)
	case []complex128:
		return len(d)
	}
	panic(fmt.Sprintf("tensor: unknown storage %T", data))
}

func copyStorage(dst, src any) {
	switch d := dst.(type) {
	case []float32:
		copy(d, src.([]float32))
	case []float64:
		copy(d, src.([]float64))
	case []int8:
		copy(d, src.([]int8))
	case []int16:
		copy(d, src.([]int16))
	case []int32:
		copy(d, src.([]int32))
	case []int64:
		copy(d, src.([]int64))
	case []uint8:
		copy(d, src.([]uint8))
	case []uint16:
		copy(d, src.([]uint16))
	case []uint32:
		copy(d, src.([]uint32))
	case []uint64:
		copy(d, src.([]uint64))
	case []bool:
		copy(d, src.([]bool))
	case []string:
		copy(d, src.([]string))
	case []complex64:
		copy(d, src.([]complex64))
	case []complex128:
		copy(d, src.([]complex128))
	default:
		panic(fmt.Sprintf("tensor: unknown storage %T", dst))
	}
}

// Int64s returns the elements of an integer tensor widened to int64 (a copy,
// except for int64 tensors whose storage is returned as is). Used for shape,
// axes and index inputs, which the spec allows as int32 or int64.
func (t *Tensor) Int64s() ([]int64, error) {
	switch d := t.data.(type) {
	case []int64:
		return d, nil
	case []int32:
		return widen(d), nil
	case []int16:
		return widen(d), nil
	case []int8:
		return widen(d), nil
	case []uint8:
		if t.dtype.IsCodeType() {
			break
		}
		return widen(d), nil
	case []uint16:
		return widen(d), nil
	case []uint32:
		return widen(d), nil
	case []uint64:
		return widen(d), nil
	}
	return nil, fmt.Errorf("expected an integer tensor, got %s", t.dtype)
}

// Float64s returns the elements of a real numeric tensor as float64 (a copy).
func (t *Tensor) Float64s() ([]float64, error) {
	switch d := t.data.(type) {
	case []float32:
		out := make([]float64, len(d))
		for i, v := range d {
			out[i] = float64(v)
		}
		return out, nil
	case []float64:
		return append([]float64(nil), d...), nil
	}
	ints, err := t.Int64s()
	if err != nil {
		return nil, fmt.Errorf("expected a numeric tensor, got %s", t.dtype)
	}
	out := make([]float64, len(ints))
	for i, v := range ints {
		out[i] = float64(v)
	}
	return out, nil
}

func widen[T Number](s []T) []int64 {
	out := make([]int64, len(s))
	for i, v := range s {
		out[i] = int64(v)
	}
	return out
}

// SetFrom copies element j of src into element i of dst (same storage type).
func SetFrom(dst *Tensor, i int, src *Tensor, j int) {
	switch d := dst.data.(type) {
	case []float32:
		d[i] = src.data.([]float32)[j]
	case []float64:
		d[i] = src.data.([]float64)[j]
	case []int8:
		d[i] = src.data.([]int8)[j]
	case []int16:
		d[i] = src.data.([]int16)[j]
	case []int32:
		d[i] = src.data.([]int32)[j]
	case []int64:
		d[i] = src.data.([]int64)[j]
	case []uint8:
		d[i] = src.data.([]uint8)[j]
	case []uint16:
		d[i] = src.data.([]uint16)[j]
	case []uint32:
		d[i] = src.data.([]uint32)[j]
	case []uint64:
		d[i] = src.data.([]uint64)[j]
	case []bool:
		d[i] = src.data.([]bool)[j]
	case []string:
		d[i] = src.data.([]string)[j]
	case []complex64:
		d[i] = src.data.([]complex64)[j]
	case []complex128:
		d[i] = src.data.([]complex128)[j]
	}
}

// StoredAsF32 reports whether dt's elements are stored as []float32
// (Float, Float16 and BFloat16, the latter two at their own precision).
func StoredAsF32(dt DType) bool { return dt == Float || dt == Float16 || dt == BFloat16 }

// WrapF32 wraps data (not copied) as a tensor of a dtype stored as
// []float32; len(data) must be the shape's size. It is the allocation-free
// constructor for buffers recycled by the executor.
func WrapF32(dt DType, shape []int, data []float32) *Tensor {
	if !StoredAsF32(dt) || len(data) != MustSize(shape) {
		panic(fmt.Sprintf("tensor: WrapF32(%s, %v) with %d elements", dt, slices.Clone(shape), len(data)))
	}
	return &Tensor{dtype: dt, shape: append([]int(nil), shape...), data: data}
}
