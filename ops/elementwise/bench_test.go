package elementwise

import (
	"testing"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func benchBinary(b *testing.B, name string, as, bs []int) {
	x := f32(as, seq(tensor.MustSize(as), 1, 0.001)...)
	y := f32(bs, seq(tensor.MustSize(bs), 2, 0.001)...)
	res := op.Default.Resolve("", name, 14)
	k, _ := res.Builder(&op.Node{OpType: name, Version: res.Version})
	ctx := &op.Context{}
	in := []*tensor.Tensor{x, y}
	b.SetBytes(int64(4 * tensor.MustSize(as)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := k.(op.Kernel).Run(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAddSame(b *testing.B)   { benchBinary(b, "Add", []int{64, 64, 64}, []int{64, 64, 64}) }
func BenchmarkMulScalar(b *testing.B) { benchBinary(b, "Mul", []int{64, 64, 64}, []int{}) }
func BenchmarkAddBias(b *testing.B)   { benchBinary(b, "Add", []int{1, 64, 64, 64}, []int{64, 1, 1}) }
func BenchmarkAddRow(b *testing.B)    { benchBinary(b, "Add", []int{4096, 64}, []int{64}) }
