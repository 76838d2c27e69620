package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/gort-dev/gort/runtime/tensor"
)

// Stats is the full comparison of one tensor with its reference, for the
// compare and diverge reports: where Compare stops at the first difference,
// Stats measures them all.
type Stats struct {
	DTypeMatch bool   `json:"dtypeMatch"`
	ShapeMatch bool   `json:"shapeMatch"`
	GotDType   string `json:"gotDtype"`
	WantDType  string `json:"wantDtype"`
	GotShape   []int  `json:"gotShape"`
	WantShape  []int  `json:"wantShape"`
	Elements   int    `json:"elements"`
	// MaxAbs and MaxRel are the largest |got-want| and |got-want|/|want|
	// (over elements with want ≠ 0); NaN against a number counts as +Inf.
	MaxAbs Float `json:"maxAbs"`
	MaxRel Float `json:"maxRel"`
	// Mismatches counts elements outside atol + rtol·|want|.
	Mismatches int `json:"mismatches"`
	// Cosine is the cosine similarity of the two tensors as vectors (NaN
	// when one is all zeros or not numeric).
	Cosine Float `json:"cosine"`
	// WorstIndex is the multi-index of the element with the largest
	// tolerance excess (nil when all match), with both values there.
	WorstIndex []int  `json:"worstIndex"`
	WorstGot   Float  `json:"worstGot"`
	WorstWant  Float  `json:"worstWant"`
	Pass       bool   `json:"pass"`
	Note       string `json:"note,omitempty"`
}

// Float is a float64 that JSON-encodes NaN and infinities as the strings
// "NaN", "+Inf" and "-Inf" (JSON numbers cannot hold them). It does not use
// encoding/json, which would cost megabytes of gort.wasm.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// TensorStats compares got with want under tol.
func TensorStats(got, want *tensor.Tensor, tol Tolerance) Stats {
	s := Stats{GotDType: got.DType().String(), WantDType: want.DType().String(), GotShape: got.Shape(), WantShape: want.Shape(), Cosine: Float(math.NaN())}
	s.DTypeMatch = got.DType() == want.DType()
	s.ShapeMatch = slices.Equal(got.Shape(), want.Shape())
	if !s.ShapeMatch {
		s.Note = fmt.Sprintf("shape %v, want %v", got.Shape(), want.Shape())
		return s
	}
	s.Elements = want.Len()
	if gs, ok := got.Data().([]string); ok {
		ws, ok := want.Data().([]string)
		if !ok {
			s.Note = "string against non-string"
			return s
		}
		for i := range ws {
			if gs[i] != ws[i] {
				s.Mismatches++
				if s.WorstIndex == nil {
					s.WorstIndex = unravel(i, want.Shape())
				}
			}
		}
		s.Pass = s.DTypeMatch && s.Mismatches == 0
		return s
	}
	g, err1 := numbers(got)
	w, err2 := numbers(want)
	if err1 != nil || err2 != nil {
		s.Note = "not numeric"
		return s
	}
	worst, worstExcess := -1, 0.0
	var dot, ng, nw, maxAbs, maxRel float64
	for i := range w {
		a, b := g[i], w[i]
		dot += a * b
		ng += a * a
		nw += b * b
		ok := closeTo(a, b, tol)
		if tol.StructureOnly {
			ok = true
		}
		var diff float64
		switch {
		case math.IsNaN(a) && math.IsNaN(b), a == b:
			diff = 0
		case math.IsNaN(a) || math.IsNaN(b):
			diff = math.Inf(1)
		default:
			diff = math.Abs(a - b)
		}
		maxAbs = max(maxAbs, diff)
		if b != 0 && !math.IsNaN(b) && !math.IsInf(b, 0) {
			maxRel = max(maxRel, diff/math.Abs(b))
		}
		if !ok {
			s.Mismatches++
			excess := diff - (tol.Atol + tol.Rtol*math.Abs(b))
			if math.IsNaN(excess) {
				excess = math.Inf(1)
			}
			if worst < 0 || excess > worstExcess {
				worst, worstExcess = i, excess
			}
		}
	}
	s.MaxAbs, s.MaxRel = Float(maxAbs), Float(maxRel)
	if ng > 0 && nw > 0 {
		s.Cosine = Float(dot / (math.Sqrt(ng) * math.Sqrt(nw)))
	} else if ng == 0 && nw == 0 {
		s.Cosine = 1
	}
	if worst >= 0 {
		s.WorstIndex = unravel(worst, want.Shape())
		s.WorstGot, s.WorstWant = Float(g[worst]), Float(w[worst])
	}
	s.Pass = s.DTypeMatch && s.Mismatches == 0
	if !s.DTypeMatch {
		s.Note = fmt.Sprintf("dtype %s, want %s", got.DType(), want.DType())
	}
	return s
}

// numbers widens a tensor's values to float64 (bool as 0/1; complex as |z|).
func numbers(t *tensor.Tensor) ([]float64, error) {
	switch d := t.Data().(type) {
	case []bool:
		out := make([]float64, len(d))
		for i, v := range d {
			if v {
				out[i] = 1
			}
		}
		return out, nil
	case []complex64:
		out := make([]float64, len(d))
		for i, v := range d {
			out[i] = math.Hypot(float64(real(v)), float64(imag(v)))
		}
		return out, nil
	case []complex128:
		out := make([]float64, len(d))
		for i, v := range d {
			out[i] = math.Hypot(real(v), imag(v))
		}
		return out, nil
	}
	return t.Float64s()
}

func unravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] > 0 {
			idx[k] = i % shape[k]
			i /= shape[k]
		}
	}
	return idx
}
