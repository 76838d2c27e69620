package tensorops

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The data-movement ops in this package must work for every dtype, whose
// storage is one of fourteen Go slice types. Rather than repeating a type
// switch in every op, moverFor picks, once per call, a mover instantiated
// for the storage's element width (float32 keeps its own, the models' dtype;
// other plain bits move as unsigned integers of their width, see opsutil.As);
// its methods then run typed, tight loops.

// mover moves elements between two storages of the same Go type.
type mover interface {
	// copyRange copies n elements: dst[di:di+n] = src[si:si+n].
	copyRange(dst any, di int, src any, si, n int)
	// take gathers: dst[i] = src[idx[i]].
	take(dst, src any, idx []int)
	// put scatters: dst[idx[i]] = src[i].
	put(dst, src any, idx []int)
	// fill sets every element of dst to src[j].
	fill(dst, src any, j int)
	// strided copies the strided view of src (offset base, element stride
	// strides[k] along output dim k, possibly 0 or negative) into the
	// contiguous dst of the given shape.
	strided(dst, src any, shape []int, base int, strides []int)
	// tiled is strided for a permutation whose input-contiguous dim j is
	// not the last output dim: it copies in square tiles of dims j and
	// last so that both reads and writes stay within a few cache lines.
	tiled(dst, src any, shape []int, strides []int, j int)
}

type moverT[T any] struct{}

func (moverT[T]) copyRange(dst any, di int, src any, si, n int) {
	d, s := opsutil.As2[T](dst, src)
	copy(d[di:di+n], s[si:si+n])
}

func (moverT[T]) take(dst, src any, idx []int) {
	d, s := opsutil.As2[T](dst, src)
	for i, j := range idx {
		d[i] = s[j]
	}
}

func (moverT[T]) put(dst, src any, idx []int) {
	d, s := opsutil.As2[T](dst, src)
	for i, j := range idx {
		d[j] = s[i]
	}
}

func (moverT[T]) fill(dst, src any, j int) {
	d := opsutil.As[T](dst)
	if len(d) == 0 {
		return
	}
	_, s := opsutil.As2[T](dst, src)
	v := s[j]
	// Doubling copies run at memmove speed (weights made by ConstantOfShape
	// are filled at load: 100 MB for ResNet-50).
	d[0] = v
	for k := 1; k < len(d); k *= 2 {
		copy(d[k:], d[:k])
	}
}

func (moverT[T]) strided(dst, src any, shape []int, base int, strides []int) {
	d, s := opsutil.As2[T](dst, src)
	stridedCopy(d, s, shape, base, strides)
}

func (moverT[T]) tiled(dst, src any, shape []int, strides []int, j int) {
	d, s := opsutil.As2[T](dst, src)
	tiledCopy(d, s, shape, strides, j)
}

// tile is the edge of the square blocks tiledCopy moves.
const tile = 32

func tiledCopy[T any](d, s []T, shape, inSt []int, j int) {
	r := len(shape)
	last := r - 1
	var stBuf, dimBuf, idxBuf [8]int
	outSt, odims := tileOdometer(shape, j, &stBuf, &dimBuf)
	nj, nl, sl, oj := shape[j], shape[last], inSt[last], outSt[j]
	idx := scratchInts(&idxBuf, len(odims))
	oOff, iOff := 0, 0
	for {
		for jb := 0; jb < nj; jb += tile {
			je := min(jb+tile, nj)
			for lb := 0; lb < nl; lb += tile {
				le := min(lb+tile, nl)
				for a := jb; a < je; a++ {
					row := d[oOff+a*oj+lb : oOff+a*oj+le]
					p := iOff + a + lb*sl
					for c := range row {
						row[c] = s[p]
						p += sl
					}
				}
			}
		}
		k := len(odims) - 1
		for ; k >= 0; k-- {
			dim := odims[k]
			idx[k]++
			oOff += outSt[dim]
			iOff += inSt[dim]
			if idx[k] < shape[dim] {
				break
			}
			oOff -= outSt[dim] * shape[dim]
			iOff -= inSt[dim] * shape[dim]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// tileOdometer returns tiledCopy's output strides and the dims its
// odometer walks (every dim but j and the last), in stBuf and dimBuf when
// they fit. It is not generic, so each element width's tiledCopy shares it.
func tileOdometer(shape []int, j int, stBuf, dimBuf *[8]int) (outSt, odims []int) {
	outSt = stridesInto(scratchInts(stBuf, len(shape)), shape)
	odims = scratchInts(dimBuf, len(shape))[:0]
	for k := 0; k < len(shape)-1; k++ {
		if k != j {
			odims = append(odims, k)
		}
	}
	return outSt, odims
}

// stridedCopy walks the output in row-major order with an odometer over the
// outer dims; the innermost dim is a tight loop (a plain copy when its stride
// is 1, a fill when it is 0), which keeps Transpose, Slice, Expand and Tile
// close to memcpy speed in their common cases.
func stridedCopy[T any](d, s []T, shape []int, base int, strides []int) {
	n := len(d)
	if n == 0 {
		return
	}
	r := len(shape)
	if r == 0 {
		d[0] = s[base]
		return
	}
	inner, st := shape[r-1], strides[r-1]
	var idxBuf [8]int
	idx := scratchInts(&idxBuf, r)
	off := base
	for o := 0; o < n; o += inner {
		row := d[o : o+inner]
		switch st {
		case 1:
			copy(row, s[off:off+inner])
		case 0:
			v := s[off]
			for k := range row {
				row[k] = v
			}
		default:
			p := off
			for k := range row {
				row[k] = s[p]
				p += st
			}
		}
		for k := r - 2; k >= 0; k-- {
			idx[k]++
			off += strides[k]
			if idx[k] < shape[k] {
				break
			}
			off -= strides[k] * shape[k]
			idx[k] = 0
		}
	}
}

// moverFor returns the mover for a storage slice.
func moverFor(data any) mover {
	switch data.(type) {
	case []float32:
		return moverT[float32]{}
	case []float64, []int64, []uint64:
		return moverT[uint64]{}
	case []int32, []uint32:
		return moverT[uint32]{}
	case []int16, []uint16:
		return moverT[uint16]{}
	case []int8, []uint8, []bool:
		return moverT[uint8]{}
	case []string:
		return moverT[string]{}
	case []complex64:
		return moverT[complex64]{}
	case []complex128:
		return moverT[complex128]{}
	}
	op.Fail("unsupported tensor storage %T", data)
	return nil
}

// strides returns the row-major element strides of shape.
func strides(shape []int) []int { return stridesInto(make([]int, len(shape)), shape) }

// stridesInto is strides writing into st (of len(shape)).
func stridesInto(st, shape []int) []int {
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		s *= shape[i]
	}
	return st
}

// scratchInts returns n zeroed ints, in buf when they fit, so that an
// odometer over up to 8 dims stays on the caller's stack.
func scratchInts(buf *[8]int, n int) []int {
	if n <= len(buf) {
		s := buf[:n]
		clear(s)
		return s
	}
	return make([]int, n)
}

// stridedView allocates a tensor of shape and fills it from a strided view of x.
func stridedView(ctx *op.Context, x *tensor.Tensor, shape []int, base int, st []int) *tensor.Tensor {
	out := ctx.New(x.DType(), shape...)
	moverFor(x.Data()).strided(out.Data(), x.Data(), shape, base, st)
	return out
}

// ints64 reads an integer tensor (shape, axes, indices inputs) as int64s.
func ints64(t *tensor.Tensor, what string) ([]int64, error) {
	v, err := t.Int64s()
	if err != nil {
		return nil, op.Errorf("%s: %v", what, err)
	}
	return v, nil
}

// toInts converts int64 values to ints (64-bit on every gort target,
// wasm included); callers validate ranges.
func toInts(v []int64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// checked allocates after checking the budget, returning the error instead
// of panicking, for kernels that want to report a TooLarge shape cleanly.
func checked(ctx *op.Context, dt tensor.DType, shape []int) (*tensor.Tensor, error) {
	if _, err := ctx.CheckShape(dt, shape); err != nil {
		return nil, err
	}
	return tensor.New(dt, shape...), nil
}
