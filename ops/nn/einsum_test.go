package nn

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// refEinsum evaluates a letters-only explicit equation by brute force over
// every assignment of every letter: out[o] += Π in_k[...]. A size-1 operand
// dimension broadcasts (index 0) against a larger letter size.
func refEinsum(eq string, shapes [][]int, data [][]float64) ([]int, []float64) {
	lhs, rhs, _ := strings.Cut(eq, "->")
	terms := strings.Split(lhs, ",")
	size := map[byte]int{}
	var letters []byte
	for k, term := range terms {
		for d := 0; d < len(term); d++ {
			c := term[d]
			if _, ok := size[c]; !ok {
				letters = append(letters, c)
			}
			if shapes[k][d] > size[c] {
				size[c] = shapes[k][d]
			}
		}
	}
	var outShape []int
	for i := 0; i < len(rhs); i++ {
		outShape = append(outShape, size[rhs[i]])
	}
	out := make([]float64, tensor.MustSize(outShape))
	val := map[byte]int{}
	var rec func(int)
	rec = func(li int) {
		if li < len(letters) {
			for v := 0; v < size[letters[li]]; v++ {
				val[letters[li]] = v
				rec(li + 1)
			}
			return
		}
		prod := 1.0
		for k, term := range terms {
			off := 0
			for d := 0; d < len(term); d++ {
				i := val[term[d]]
				if shapes[k][d] == 1 {
					i = 0
				}
				off = off*shapes[k][d] + i
			}
			prod *= data[k][off]
		}
		off := 0
		for i := 0; i < len(rhs); i++ {
			off = off*outShape[i] + val[rhs[i]]
		}
		out[off] += prod
	}
	rec(0)
	return outShape, out
}

func runEinsum(eq string, in ...*tensor.Tensor) (*tensor.Tensor, error) {
	res := op.Default.Resolve("", "Einsum", 12)
	if res.Builder == nil {
		return nil, fmt.Errorf("%s", res.Problem)
	}
	n := &op.Node{Name: "Einsum", OpType: "Einsum", Version: res.Version, Opset: 12, Outputs: []string{"y"},
		Attrs: map[string]*pb.AttributeProto{"equation": {Name: "equation", Type: pb.AttributeProto_STRING, S: []byte(eq)}}}
	for i := range in {
		n.Inputs = append(n.Inputs, fmt.Sprint("in", i))
	}
	k, err := res.Builder(n)
	if err != nil {
		return nil, err
	}
	out, err := k.(op.Kernel).Run(&op.Context{}, in)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func TestEinsum(t *testing.T) {
	cases := []struct {
		eq, ref string // ref: the same contraction in explicit letters only
		shapes  [][]int
	}{
		{"ij,jk->ik", "ij,jk->ik", [][]int{{2, 3}, {3, 4}}},
		{"ij,jk", "ij,jk->ik", [][]int{{2, 3}, {3, 4}}},
		{"bij,bjk->bik", "bij,bjk->bik", [][]int{{3, 2, 4}, {3, 4, 5}}},
		{"ij->ji", "ij->ji", [][]int{{2, 3}}},
		{"ji", "ji->ij", [][]int{{2, 3}}}, // implicit output is sorted
		{"ii->i", "ii->i", [][]int{{3, 3}}},
		{"ii", "ii->", [][]int{{3, 3}}},
		{"iij->j", "iij->j", [][]int{{2, 2, 3}}},
		{"ij->", "ij->", [][]int{{2, 3}}},
		{"i,i", "i,i->", [][]int{{4}, {4}}},
		{"i,j->ij", "i,j->ij", [][]int{{2}, {3}}},
		{"ij,ij->ij", "ij,ij->ij", [][]int{{2, 3}, {2, 3}}},
		{"ij,jk,kl->il", "ij,jk,kl->il", [][]int{{2, 3}, {3, 4}, {4, 2}}},
		{"ab,cd,bc", "ab,cd,bc->ad", [][]int{{2, 3}, {4, 2}, {3, 4}}},
		{"Ab,bA", "Ab,bA->", [][]int{{2, 3}, {3, 2}}},
		{"aB,Bc->Bca", "aB,Bc->Bca", [][]int{{2, 3}, {3, 4}}},
		{"ijk,ikj->i", "ijk,ikj->i", [][]int{{2, 3, 4}, {2, 4, 3}}},
		{"bn,anm,bm->ba", "bn,anm,bm->ba", [][]int{{2, 3}, {4, 3, 5}, {2, 5}}},
		{"...ii->...i", "xyii->xyi", [][]int{{2, 3, 4, 4}}},
		{"...ij,...jk->...ik", "xyij,yjk->xyik", [][]int{{2, 1, 3, 4}, {5, 4, 2}}},
		{"...ij,...jk", "xyij,yjk->xyik", [][]int{{2, 1, 3, 4}, {5, 4, 2}}},
		{"i...->...", "ixy->xy", [][]int{{3, 2, 2}}},
		{"...i->i", "xyi->i", [][]int{{2, 3, 4}}}, // ellipsis left out of the output is summed
		{"a...b,b...->a...", "axyb,bxy->axy", [][]int{{2, 3, 1, 4}, {4, 3, 5}}},
		{"->", "->", [][]int{{}}},
		{",->", ",->", [][]int{{}, {}}},
		{"i,->i", "i,->i", [][]int{{3}, {}}},
		{"ij, jk -> ik", "ij,jk->ik", [][]int{{2, 0}, {0, 4}}}, // spaces; empty contraction gives zeros
	}
	r := rand.New(rand.NewSource(1))
	for _, c := range cases {
		t.Run(c.eq, func(t *testing.T) {
			var ins32, ins64, insInt []*tensor.Tensor
			var data [][]float64
			for _, s := range c.shapes {
				n := tensor.MustSize(s)
				d64 := make([]float64, n)
				d32 := make([]float32, n)
				di := make([]int64, n)
				for i := range d64 {
					v := r.Intn(9) - 4
					d64[i], d32[i], di[i] = float64(v), float32(v), int64(v)
				}
				data = append(data, d64)
				ins32 = append(ins32, tensor.Of(s, d32))
				ins64 = append(ins64, tensor.Of(s, d64))
				insInt = append(insInt, tensor.Of(s, di))
			}
			wantShape, want := refEinsum(c.ref, c.shapes, data)
			for _, in := range [][]*tensor.Tensor{ins32, ins64, insInt} {
				y, err := runEinsum(c.eq, in...)
				if err != nil {
					t.Fatalf("%s: %v", in[0].DType(), err)
				}
				if y.DType() != in[0].DType() || fmt.Sprint(y.Shape()) != fmt.Sprint(wantShape) {
					t.Fatalf("%s: got %s %v, want shape %v", in[0].DType(), y.DType(), y.Shape(), wantShape)
				}
				got, _ := y.Float64s()
				if fmt.Sprint(got) != fmt.Sprint(want) { // small integers: exact
					t.Fatalf("%s: got %v, want %v", in[0].DType(), got, want)
				}
			}
		})
	}
}

func TestEinsumErrors(t *testing.T) {
	m := tensor.Of([]int{2, 3}, make([]float32, 6))
	sq := tensor.Of([]int{2, 2}, make([]float32, 4))
	cases := []struct {
		eq string
		in []*tensor.Tensor
	}{
		{"ij,jk->ik", []*tensor.Tensor{m}},    // term count
		{"ij,jk->ik", []*tensor.Tensor{m, m}}, // j is 3 and 2
		{"ijk->i", []*tensor.Tensor{m}},       // rank
		{"ij->iq", []*tensor.Tensor{m}},       // unknown output label
		{"ij->ii", []*tensor.Tensor{sq}},      // repeated output label
		{"i1->i", []*tensor.Tensor{m}},        // bad character
		{"......->", []*tensor.Tensor{m}},     // two ellipses
		{"...i,...i->...", []*tensor.Tensor{tensor.Of([]int{2, 3}, make([]float32, 6)), tensor.Of([]int{4, 3}, make([]float32, 12))}}, // ellipsis 2 vs 4
	}
	for _, c := range cases {
		if _, err := runEinsum(c.eq, c.in...); err == nil {
			t.Errorf("%s: no error", c.eq)
		}
	}
}
