package numeric

import (
	"math"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("BitCast", []int{26}, buildBitCast)
}

// bitWidth is the wire width of an element type, which BitCast must preserve.
func bitWidth(dt tensor.DType) int {
	switch dt {
	case tensor.Bool, tensor.Int8, tensor.Uint8, tensor.Float8E4M3FN, tensor.Float8E4M3FNUZ,
		tensor.Float8E5M2, tensor.Float8E5M2FNUZ, tensor.Float8E8M0:
		return 8
	case tensor.Int16, tensor.Uint16, tensor.Float16, tensor.BFloat16:
		return 16
	case tensor.Int32, tensor.Uint32, tensor.Float:
		return 32
	case tensor.Int64, tensor.Uint64, tensor.Double, tensor.Complex64:
		return 64
	case tensor.Complex128:
		return 128
	case tensor.Int4, tensor.Uint4, tensor.Float4E2M1:
		return 4
	case tensor.Int2, tensor.Uint2:
		return 2
	}
	return 0
}

// buildBitCast reinterprets each element's bits as another type of the same
// width. gort stores some types widened (float16 as float32, int4 as int8),
// so the bits go through each type's wire encoding rather than raw memory.
// Complex128 is 128 bits wide and has no partner type, so it only casts to itself.
func buildBitCast(n *op.Node) (any, error) {
	to, err := n.Int("to", 0)
	if err != nil {
		return nil, err
	}
	dt := tensor.DType(to)
	if !n.Has("to") || !dt.Valid() || dt == tensor.String {
		return nil, n.Errorf("BitCast needs a non-string 'to' type, got %d", to)
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("BitCast needs an input")
		}
		x := in[0]
		if x.DType() == tensor.String || bitWidth(x.DType()) != bitWidth(dt) {
			return nil, op.Errorf("BitCast from %s to %s: widths differ", x.DType(), dt)
		}
		if x.DType() == dt {
			return ctx.One(x), nil
		}
		out := ctx.New(dt, x.Shape()...)
		for i := 0; i < x.Len(); i++ {
			putBits(out, i, getBits(x, i))
		}
		return ctx.One(out), nil
	}), nil
}

// getBits returns element i's wire bits (little end of a uint64; sub-byte
// types in their low bits).
func getBits(t *tensor.Tensor, i int) uint64 {
	switch d := t.Data().(type) {
	case []float32:
		switch t.DType() {
		case tensor.Float16:
			return uint64(tensor.F32ToF16(d[i]))
		case tensor.BFloat16:
			return uint64(tensor.F32ToBF16(d[i]))
		}
		return uint64(math.Float32bits(d[i]))
	case []float64:
		return math.Float64bits(d[i])
	case []complex64:
		return uint64(math.Float32bits(real(d[i]))) | uint64(math.Float32bits(imag(d[i])))<<32
	case []int8:
		return uint64(uint8(d[i])) & mask(bitWidth(t.DType()))
	case []int16:
		return uint64(uint16(d[i]))
	case []int32:
		return uint64(uint32(d[i]))
	case []int64:
		return uint64(d[i])
	case []uint8:
		return uint64(d[i]) & mask(bitWidth(t.DType()))
	case []uint16:
		return uint64(d[i])
	case []uint32:
		return uint64(d[i])
	case []uint64:
		return d[i]
	case []bool:
		if d[i] {
			return 1
		}
		return 0
	}
	return 0
}

func mask(bits int) uint64 {
	if bits >= 64 {
		return math.MaxUint64
	}
	return 1<<bits - 1
}

// putBits stores wire bits b as element i of t.
func putBits(t *tensor.Tensor, i int, b uint64) {
	switch d := t.Data().(type) {
	case []float32:
		switch t.DType() {
		case tensor.Float16:
			d[i] = tensor.F16ToF32(uint16(b))
		case tensor.BFloat16:
			d[i] = tensor.BF16ToF32(uint16(b))
		default:
			d[i] = math.Float32frombits(uint32(b))
		}
	case []float64:
		d[i] = math.Float64frombits(b)
	case []complex64:
		d[i] = complex(math.Float32frombits(uint32(b)), math.Float32frombits(uint32(b>>32)))
	case []int8:
		w := bitWidth(t.DType())
		// Sign-extend the low w bits (int4, int2 are stored unpacked in int8).
		d[i] = int8(int64(b<<(64-w)) >> (64 - w))
	case []int16:
		d[i] = int16(b)
	case []int32:
		d[i] = int32(b)
	case []int64:
		d[i] = int64(b)
	case []uint8:
		d[i] = uint8(b)
	case []uint16:
		d[i] = uint16(b)
	case []uint32:
		d[i] = uint32(b)
	case []uint64:
		d[i] = b
	case []bool:
		// A bool byte other than 0 or 1 has no ONNX meaning; any set bit is true.
		d[i] = b != 0
	}
}
