package tensor

import "fmt"

// DType is an element type. Its values are those of onnx.TensorProto.DataType
// so that conversion to and from the model format is the identity.
type DType int32

const (
	Undefined      DType = 0
	Float          DType = 1
	Uint8          DType = 2
	Int8           DType = 3
	Uint16         DType = 4
	Int16          DType = 5
	Int32          DType = 6
	Int64          DType = 7
	String         DType = 8
	Bool           DType = 9
	Float16        DType = 10
	Double         DType = 11
	Uint32         DType = 12
	Uint64         DType = 13
	Complex64      DType = 14
	Complex128     DType = 15
	BFloat16       DType = 16
	Float8E4M3FN   DType = 17
	Float8E4M3FNUZ DType = 18
	Float8E5M2     DType = 19
	Float8E5M2FNUZ DType = 20
	Uint4          DType = 21
	Int4           DType = 22
	Float4E2M1     DType = 23
	Float8E8M0     DType = 24
	Uint2          DType = 25
	Int2           DType = 26
)

var dtypeNames = map[DType]string{
	Float: "float32", Uint8: "uint8", Int8: "int8", Uint16: "uint16", Int16: "int16",
	Int32: "int32", Int64: "int64", String: "string", Bool: "bool", Float16: "float16",
	Double: "float64", Uint32: "uint32", Uint64: "uint64", Complex64: "complex64",
	Complex128: "complex128", BFloat16: "bfloat16", Float8E4M3FN: "float8e4m3fn",
	Float8E4M3FNUZ: "float8e4m3fnuz", Float8E5M2: "float8e5m2", Float8E5M2FNUZ: "float8e5m2fnuz",
	Uint4: "uint4", Int4: "int4", Float4E2M1: "float4e2m1", Float8E8M0: "float8e8m0",
	Uint2: "uint2", Int2: "int2",
}

// String returns the type's name as onnxruntime-web spells it ("float32", "int64", ...).
func (d DType) String() string {
	if s, ok := dtypeNames[d]; ok {
		return s
	}
	return fmt.Sprintf("dtype(%d)", int32(d))
}

// ParseDType is the inverse of DType.String.
func ParseDType(s string) (DType, bool) {
	for d, n := range dtypeNames {
		if n == s {
			return d, true
		}
	}
	return Undefined, false
}

// Valid reports whether d is a known element type.
func (d DType) Valid() bool { _, ok := dtypeNames[d]; return ok }

// IsFloat reports whether d is stored as []float32 (float32, float16, bfloat16).
// float16 and bfloat16 values are kept widened to float32 and rounded to their
// precision after every op, so float kernels serve all three.
func (d DType) IsFloat() bool { return d == Float || d == Float16 || d == BFloat16 }

// IsCodeType reports whether d is a sub-byte or 8-bit float type stored as raw
// codes (one element per byte) rather than as numbers.
func (d DType) IsCodeType() bool {
	switch d {
	case Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float4E2M1, Float8E8M0:
		return true
	}
	return false
}

// ElemBytes is the in-memory size of one element in gort's storage (not the
// wire size), used for memory budgeting. Strings count as 16 bytes (a header).
func (d DType) ElemBytes() int {
	switch d {
	case Double, Int64, Uint64, Complex64:
		return 8
	case Complex128, String:
		return 16
	case Float, Float16, BFloat16, Int32, Uint32:
		return 4
	case Int16, Uint16:
		return 2
	default:
		return 1
	}
}
