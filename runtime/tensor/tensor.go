// Package tensor holds gort's dense tensor type and the element types it can hold.
//
// Layout: row-major (C order), no strides, no views; a Tensor owns its data.
// Kernels never modify their inputs, so a Tensor can be shared between values
// (Identity returns its input) without copying.
//
// Storage by dtype (see storage.go): float32/float16/bfloat16 → []float32
// (the compute type), float64 → []float64, intN/uintN → the Go type of the same
// width, bool → []bool, string → []string, complex64/128 → []complex64/128,
// 8-bit floats and float4 → []uint8 raw codes, int4/int2 → []int8 unpacked,
// uint4/uint2 → []uint8 unpacked.
package tensor

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Value is anything a graph value can hold: *Tensor, *Sequence, *Optional or *Map.
type Value interface{ isValue() }

// Tensor is a dense row-major tensor.
type Tensor struct {
	dtype DType
	shape []int
	data  any
}

func (*Tensor) isValue() {}

// Sequence is an ONNX sequence value: an ordered list of tensors of one dtype.
type Sequence struct {
	Elem  DType
	Items []*Tensor
}

func (*Sequence) isValue() {}

// Optional is an ONNX optional value; Value nil means "none".
type Optional struct {
	Value Value
}

func (*Optional) isValue() {}

// Size returns the product of dims, and false if any dim is negative or the
// product overflows an int.
func Size(shape []int) (int, bool) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, false
		}
		if d != 0 && n > math.MaxInt/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}

// MustSize is Size for shapes already known to be valid; it panics otherwise.
func MustSize(shape []int) int {
	n, ok := Size(shape)
	if !ok {
		panic(fmt.Sprintf("tensor: invalid shape %v", slices.Clone(shape)))
	}
	return n
}

// New allocates a zero tensor. It panics on an invalid shape; budgeted
// allocation for kernels goes through op.Context.New.
func New(dt DType, shape ...int) *Tensor {
	n := MustSize(shape)
	return &Tensor{dtype: dt, shape: append([]int(nil), shape...), data: makeStorage(dt, n)}
}

// FromSlice wraps data (not copied) as a tensor of the given dtype and shape.
// The slice type must be the storage type of dt, and its length the shape's size.
func FromSlice(dt DType, shape []int, data any) (*Tensor, error) {
	n, ok := Size(shape)
	if !ok {
		return nil, fmt.Errorf("invalid shape %v", shape)
	}
	want := storageKind(dt)
	if got := fmt.Sprintf("%T", data); got != want {
		return nil, fmt.Errorf("%s tensor needs %s data, got %s", dt, want, got)
	}
	if l := sliceLen(data); l != n {
		return nil, fmt.Errorf("shape %v needs %d elements, data has %d", shape, n, l)
	}
	return &Tensor{dtype: dt, shape: append([]int(nil), shape...), data: data}, nil
}

// Must panics on error; for tests and for kernels whose arguments are known valid.
func Must(t *Tensor, err error) *Tensor {
	if err != nil {
		panic(err)
	}
	return t
}

// Of builds a tensor from a typed slice, choosing the dtype from the Go type
// (float32 → Float, int64 → Int64, ...). Data is not copied.
func Of[T Elem](shape []int, data []T) *Tensor {
	return Must(FromSlice(DTypeOf[T](), shape, data))
}

// Scalar returns a rank-0 tensor.
func Scalar[T Elem](v T) *Tensor { return Of([]int{}, []T{v}) }

func (t *Tensor) DType() DType { return t.dtype }

// Shape returns the dims. The caller must not modify the returned slice.
func (t *Tensor) Shape() []int { return t.shape }
func (t *Tensor) Rank() int    { return len(t.shape) }

// Len is the number of elements.
func (t *Tensor) Len() int { return sliceLen(t.data) }

// Data returns the storage slice (see the package comment for its type).
func (t *Tensor) Data() any { return t.data }

// Reshaped returns a tensor sharing t's data with another shape of the same size.
func (t *Tensor) Reshaped(shape []int) *Tensor {
	if n, ok := Size(shape); !ok || n != t.Len() {
		panic(fmt.Sprintf("tensor: cannot reshape %v to %v", t.shape, slices.Clone(shape)))
	}
	return &Tensor{dtype: t.dtype, shape: append([]int(nil), shape...), data: t.data}
}

// WithDType returns a tensor sharing t's data under another dtype with the same
// storage (e.g. Float ↔ Float16 after rounding).
func (t *Tensor) WithDType(dt DType) *Tensor {
	if storageKind(dt) != storageKind(t.dtype) {
		panic(fmt.Sprintf("tensor: %s and %s do not share storage", dt, t.dtype))
	}
	return &Tensor{dtype: dt, shape: t.shape, data: t.data}
}

// Clone returns a deep copy.
func (t *Tensor) Clone() *Tensor {
	c := New(t.dtype, t.shape...)
	copyStorage(c.data, t.data)
	return c
}

// String renders a short description (dtype, shape and the first elements).
func (t *Tensor) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%v", t.dtype, t.shape)
	s := fmt.Sprint(t.data)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	b.WriteString(" ")
	b.WriteString(s)
	return b.String()
}

// F32 returns the []float32 storage of a float32/float16/bfloat16 tensor.
func (t *Tensor) F32() []float32 { return t.data.([]float32) }

// F64 returns the []float64 storage of a float64 tensor.
func (t *Tensor) F64() []float64 { return t.data.([]float64) }

// I64 returns the []int64 storage of an int64 tensor.
func (t *Tensor) I64() []int64 { return t.data.([]int64) }

// I32 returns the []int32 storage of an int32 tensor.
func (t *Tensor) I32() []int32 { return t.data.([]int32) }

// Bools returns the []bool storage of a bool tensor.
func (t *Tensor) Bools() []bool { return t.data.([]bool) }

// Strings returns the []string storage of a string tensor.
func (t *Tensor) Strings() []string { return t.data.([]string) }

// Data returns the storage slice as []T; it panics if T is not t's storage type.
func Data[T any](t *Tensor) []T { return t.data.([]T) }

// Remote is a tensor held by an accelerator (a WebGPU buffer): the executor
// passes it between steps on that device and downloads it for CPU steps and
// graph outputs. Implementations embed RemoteValue.
type Remote interface {
	Value
	DType() DType
	Shape() []int
	// Download copies the data to a CPU tensor.
	Download() (*Tensor, error)
	// Release gives the device memory back; the value is dead after it.
	Release()
}

// RemoteValue makes a type outside this package a Value (embed it in a
// Remote implementation).
type RemoteValue struct{}

func (RemoteValue) isValue() {}
