package kernels

import (
	"fmt"
	"sync"
)

// Block-quantized weights (onnxruntime's MatMulNBits layout) and their
// product with a float32 matrix.
//
// The weight is the K×N matrix B stored column by column: column n is cut
// along K into KBlocks = ⌈K/BlockSize⌉ blocks, and block b holds BlockSize
// codes of Bits bits packed from the low bits of each byte up (for 4 bits,
// element 2i in the low nibble of byte i). B(k, n) = (code − zp)·scale with
// one scale and one zero point per (n, block). The last block of a column
// is padded past K; its padding codes are never read.
//
// The product never builds the float32 form of B: a few rows of A (one
// token of a decoder) take a dot-product loop straight over the packed
// codes, and larger ones run the float32 GEMM with B dequantized one
// kc×NR panel at a time as the GEMM packs it (sgemmNBits).
type NBits struct {
	K, N, Bits, BlockSize int
	KBlocks, BlobSize     int
	Data                  []uint8   // N·KBlocks·BlobSize bytes
	Scales                []float32 // N·KBlocks
	// ZeroPacked holds the zero points packed like Data, a row of
	// ⌈KBlocks·Bits/8⌉ bytes per column; ZeroFloat holds them as floats
	// (N·KBlocks). With neither, every zero point is 2^(Bits−1).
	ZeroPacked []uint8
	ZeroFloat  []float32
	// GIdx, when not nil, gives the block of each k (K entries): the
	// scale and zero point of B(k, n) are those of block GIdx[k].
	GIdx []int32

	// szp holds scale·zp per (n, block) for rowTimes4, built on its
	// first use (the weight is constant once wrapped).
	szpOnce sync.Once
	szp     []float32
}

// NewNBits checks the sizes of a quantized weight and returns it.
func NewNBits(k, n, bits, blockSize int, data []uint8, scales []float32, zeroPacked []uint8, zeroFloat []float32, gIdx []int32) (*NBits, error) {
	if bits != 2 && bits != 4 && bits != 8 {
		return nil, fmt.Errorf("bits must be 2, 4 or 8, got %d", bits)
	}
	if blockSize < 16 || blockSize&(blockSize-1) != 0 {
		return nil, fmt.Errorf("block_size must be a power of 2 ≥ 16, got %d", blockSize)
	}
	if k < 0 || n < 0 {
		return nil, fmt.Errorf("K and N must be ≥ 0, got %d and %d", k, n)
	}
	q := &NBits{K: k, N: n, Bits: bits, BlockSize: blockSize, KBlocks: (k + blockSize - 1) / blockSize, BlobSize: blockSize * bits / 8,
		Data: data, Scales: scales, ZeroPacked: zeroPacked, ZeroFloat: zeroFloat, GIdx: gIdx}
	if len(data) != n*q.KBlocks*q.BlobSize {
		return nil, fmt.Errorf("B has %d bytes, want N·k_blocks·blob_size = %d", len(data), n*q.KBlocks*q.BlobSize)
	}
	if len(scales) != n*q.KBlocks {
		return nil, fmt.Errorf("scales has %d elements, want N·k_blocks = %d", len(scales), n*q.KBlocks)
	}
	if zeroPacked != nil && len(zeroPacked) != n*q.zpRow() {
		return nil, fmt.Errorf("zero_points has %d bytes, want N·⌈k_blocks·bits/8⌉ = %d", len(zeroPacked), n*q.zpRow())
	}
	if zeroFloat != nil && len(zeroFloat) != n*q.KBlocks {
		return nil, fmt.Errorf("zero_points has %d elements, want N·k_blocks = %d", len(zeroFloat), n*q.KBlocks)
	}
	if gIdx != nil {
		if len(gIdx) != k {
			return nil, fmt.Errorf("g_idx has %d elements, want K = %d", len(gIdx), k)
		}
		for _, g := range gIdx {
			if g < 0 || int(g) >= q.KBlocks {
				return nil, fmt.Errorf("g_idx value %d outside [0, %d)", g, q.KBlocks)
			}
		}
	}
	return q, nil
}

func (q *NBits) zpRow() int { return (q.KBlocks*q.Bits + 7) / 8 }

// zero is the zero point of column n's block b.
func (q *NBits) zero(n, b int) float32 {
	switch {
	case q.ZeroFloat != nil:
		return q.ZeroFloat[n*q.KBlocks+b]
	case q.ZeroPacked != nil:
		bit := b * q.Bits
		v := q.ZeroPacked[n*q.zpRow()+bit/8] >> (bit % 8)
		return float32(v & (1<<q.Bits - 1))
	}
	return float32(int(1) << (q.Bits - 1))
}

// code is the quantized value of B(k, n).
func (q *NBits) code(k, n int) uint8 {
	b, e := k/q.BlockSize, k%q.BlockSize
	bit := e * q.Bits
	v := q.Data[(n*q.KBlocks+b)*q.BlobSize+bit/8] >> (bit % 8)
	return v & (1<<q.Bits - 1)
}

// At is the dequantized B(k, n) (for tests and references).
func (q *NBits) At(k, n int) float32 {
	b := k / q.BlockSize
	if q.GIdx != nil {
		b = int(q.GIdx[k])
	}
	return (float32(q.code(k, n)) - q.zero(n, b)) * q.Scales[n*q.KBlocks+b]
}

// nbitsRowsMax is the most rows of A the dot-product path takes: beyond
// it, dequantizing each panel once for the GEMM costs less than decoding
// the codes once per row.
const nbitsRowsMax = 2

// MatMulNBits computes C = A·B (+ bias, a vector of N, when not nil) for A
// m×K (leading dimension lda) and C m×N (leading dimension ldc).
func MatMulNBits(m int, a []float32, lda int, q *NBits, bias []float32, c []float32, ldc int) {
	if m <= 0 || q.N == 0 {
		return
	}
	if m > nbitsRowsMax || q.GIdx != nil {
		var ep *Epilogue
		if bias != nil {
			ep = &Epilogue{ColBias: bias}
		}
		sgemmNBits(m, a, lda, q, 0, c, ldc, ep)
		return
	}
	for i := 0; i < m; i++ {
		if q.Bits == 4 && q.BlockSize >= nbits4Min {
			q.rowTimes4(a[i*lda:i*lda+q.K], bias, c[i*ldc:i*ldc+q.N])
			continue
		}
		q.rowTimes(a[i*lda:i*lda+q.K], bias, c[i*ldc:i*ldc+q.N])
	}
}

// rowTimes writes y = x·B (+ bias) for one row x of K floats: per column
// and block, Σ (code − zp)·x over the block's codes, times the scale.
// (code − zp) comes from a table of the 2^Bits values built per block for
// 2 and 4 bits (a lookup per element instead of a conversion and a
// subtraction), from the conversion for 8 bits.
func (q *NBits) rowTimes(x, bias, y []float32) {
	var lut [256]float32
	levels := 1 << q.Bits
	// With integer zero points (packed or the default) the table of a
	// block is one of 16 (4 bits) or 4 (2 bits): built once here.
	var tables [16][16]float32
	intZero := q.ZeroFloat == nil && q.Bits <= 4
	if intZero {
		for z := range levels {
			for v := range levels {
				tables[z][v] = float32(v - z)
			}
		}
	}
	for n := range y {
		var acc float32
		for b := 0; b < q.KBlocks; b++ {
			k0 := b * q.BlockSize
			xb := x[k0:min(k0+q.BlockSize, q.K)]
			blob := q.Data[(n*q.KBlocks+b)*q.BlobSize:][:q.BlobSize]
			zp := q.zero(n, b)
			var s float32
			switch q.Bits {
			case 4:
				t := &tables[int(zp)&15]
				if !intZero {
					t = (*[16]float32)(lut[:16])
					for v := range levels {
						t[v] = float32(v) - zp
					}
				}
				s = dotCodes4(blob, xb, t)
			case 2:
				t := (*[4]float32)(tables[int(zp)&3][:4])
				if !intZero {
					t = (*[4]float32)(lut[:4])
					for v := range levels {
						t[v] = float32(v) - zp
					}
				}
				s = dotCodes2(blob, xb, t)
			default:
				s = dotCodes8(blob, xb, zp)
			}
			acc += s * q.Scales[n*q.KBlocks+b]
		}
		if bias != nil {
			acc += bias[n]
		}
		y[n] = acc
	}
}

// dotCodes4 is Σ t[code_i]·x_i over the 4-bit codes of blob (len(x) of
// them). Four accumulators over two bytes a step keep the adds' latency
// off the critical path.
func dotCodes4(blob []uint8, x []float32, t *[16]float32) float32 {
	var s0, s1, s2, s3 float32
	pairs := len(x) / 4
	xx := x[:4*pairs]
	bb := blob[:2*pairs]
	for len(bb) >= 2 && len(xx) >= 4 {
		v0, v1 := bb[0], bb[1]
		s0 += t[v0&15] * xx[0]
		s1 += t[v0>>4] * xx[1]
		s2 += t[v1&15] * xx[2]
		s3 += t[v1>>4] * xx[3]
		bb, xx = bb[2:], xx[4:]
	}
	for j := 4 * pairs; j < len(x); j++ {
		s0 += t[blob[j/2]>>(4*(j%2))&15] * x[j]
	}
	return (s0 + s1) + (s2 + s3)
}

// dotCodes2 is dotCodes4 for 2-bit codes, four to a byte.
func dotCodes2(blob []uint8, x []float32, t *[4]float32) float32 {
	var s0, s1 float32
	full := len(x) / 4
	xx := x[:4*full]
	for i, v := range blob[:full] {
		xi := xx[4*i : 4*i+4 : 4*i+4]
		s0 += t[v&3]*xi[0] + t[v>>2&3]*xi[1]
		s1 += t[v>>4&3]*xi[2] + t[v>>6]*xi[3]
	}
	for j := 4 * full; j < len(x); j++ {
		s0 += t[blob[j/4]>>(2*(j%4))&3] * x[j]
	}
	return s0 + s1
}

// dotCodes8 is Σ (code_i − zp)·x_i over 8-bit codes.
func dotCodes8(blob []uint8, x []float32, zp float32) float32 {
	var s0, s1 float32
	blob = blob[:len(x)]
	i := 0
	for ; i+1 < len(x); i += 2 {
		s0 += (float32(blob[i]) - zp) * x[i]
		s1 += (float32(blob[i+1]) - zp) * x[i+1]
	}
	if i < len(x) {
		s0 += (float32(blob[i]) - zp) * x[i]
	}
	return s0 + s1
}

// PackBPanel dequantizes rows [p0, p0+kb) of columns [j0, j0+cols) into a
// k-major panel of NR columns (sgemmNBits).
func (q *NBits) PackBPanel(p0, kb, j0, cols int, dst []float32) {
	dst = dst[:kb*NR]
	var col [256]float32 // one block of one column, dequantized
	for c := 0; c < NR; c++ {
		if c >= cols {
			for p := 0; p < kb; p++ {
				dst[p*NR+c] = 0
			}
			continue
		}
		n := j0 + c
		if q.GIdx != nil {
			for p := 0; p < kb; p++ {
				dst[p*NR+c] = q.At(p0+p, n)
			}
			continue
		}
		for k := p0; k < p0+kb; {
			b := k / q.BlockSize
			lo, hi := k, min((b+1)*q.BlockSize, p0+kb, q.K)
			vals := col[:hi-lo]
			if q.BlockSize > len(col) {
				vals = make([]float32, hi-lo)
			}
			q.dequantRange(n, b, lo-b*q.BlockSize, vals)
			for i, v := range vals {
				dst[(lo-p0+i)*NR+c] = v
			}
			k = hi
		}
	}
}

// dequantRange writes the dequantized elements [e0, e0+len(dst)) of column
// n's block b.
func (q *NBits) dequantRange(n, b, e0 int, dst []float32) {
	blob := q.Data[(n*q.KBlocks+b)*q.BlobSize:][:q.BlobSize]
	zp, sc := q.zero(n, b), q.Scales[n*q.KBlocks+b]
	mask := uint8(1<<q.Bits - 1)
	per := 8 / q.Bits
	for i := range dst {
		e := e0 + i
		v := blob[e/per] >> (q.Bits * (e % per)) & mask
		dst[i] = (float32(v) - zp) * sc
	}
}
