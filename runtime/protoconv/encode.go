package protoconv

import (
	"encoding/binary"
	"math"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Proto encodes t as a TensorProto with raw_data (typed string_data for strings).
func Proto(name string, t *tensor.Tensor) *pb.TensorProto {
	dims := make([]int64, t.Rank())
	for i, d := range t.Shape() {
		dims[i] = int64(d)
	}
	tp := &pb.TensorProto{Name: name, Dims: dims, DataType: int32(t.DType())}
	if t.DType() == tensor.String {
		for _, s := range t.Strings() {
			tp.StringData = append(tp.StringData, []byte(s))
		}
		return tp
	}
	tp.RawData = RawBytes(t)
	return tp
}

// RawBytes returns t's elements in the ONNX little-endian wire layout
// (sub-byte types packed, float16/bfloat16 as 16-bit codes).
func RawBytes(t *tensor.Tensor) []byte {
	dt := t.DType()
	n := t.Len()
	if bits := packedBits(dt); bits != 0 {
		per := 8 / bits
		out := make([]byte, (n+per-1)/per)
		mask := byte(1<<bits - 1)
		for i := 0; i < n; i++ {
			var c byte
			switch d := t.Data().(type) {
			case []int8:
				c = byte(d[i])
			case []uint8:
				c = d[i]
			}
			out[i/per] |= (c & mask) << (uint(i%per) * uint(bits))
		}
		return out
	}
	le := binary.LittleEndian
	out := make([]byte, n*wireBytes(dt))
	switch d := t.Data().(type) {
	case []float32:
		for i, v := range d {
			switch dt {
			case tensor.Float16:
				le.PutUint16(out[2*i:], tensor.F32ToF16(v))
			case tensor.BFloat16:
				le.PutUint16(out[2*i:], tensor.F32ToBF16(v))
			default:
				le.PutUint32(out[4*i:], math.Float32bits(v))
			}
		}
	case []float64:
		for i, v := range d {
			le.PutUint64(out[8*i:], math.Float64bits(v))
		}
	case []int8:
		for i, v := range d {
			out[i] = byte(v)
		}
	case []uint8:
		copy(out, d)
	case []int16:
		for i, v := range d {
			le.PutUint16(out[2*i:], uint16(v))
		}
	case []uint16:
		for i, v := range d {
			le.PutUint16(out[2*i:], v)
		}
	case []int32:
		for i, v := range d {
			le.PutUint32(out[4*i:], uint32(v))
		}
	case []uint32:
		for i, v := range d {
			le.PutUint32(out[4*i:], v)
		}
	case []int64:
		for i, v := range d {
			le.PutUint64(out[8*i:], uint64(v))
		}
	case []uint64:
		for i, v := range d {
			le.PutUint64(out[8*i:], v)
		}
	case []bool:
		for i, v := range d {
			if v {
				out[i] = 1
			}
		}
	case []complex64:
		for i, v := range d {
			le.PutUint32(out[8*i:], math.Float32bits(real(v)))
			le.PutUint32(out[8*i+4:], math.Float32bits(imag(v)))
		}
	case []complex128:
		for i, v := range d {
			le.PutUint64(out[16*i:], math.Float64bits(real(v)))
			le.PutUint64(out[16*i+8:], math.Float64bits(imag(v)))
		}
	}
	return out
}
