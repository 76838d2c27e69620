package tensorops

import (
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

func benchTranspose(b *testing.B, perm []int64, shape ...int) {
	x := iota32(shape...)
	c := optest.Call{Op: "Transpose", Opset: 13, Attrs: optest.A{"perm": perm}, In: []*tensor.Tensor{x}}
	b.SetBytes(int64(4 * x.Len()))
	for b.Loop() {
		if _, err := optest.Run(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTransposeNCHWtoNHWC(b *testing.B) {
	benchTranspose(b, []int64{0, 2, 3, 1}, 8, 64, 56, 56)
}
func BenchmarkTransposeNHWCtoNCHW(b *testing.B) {
	benchTranspose(b, []int64{0, 3, 1, 2}, 8, 56, 56, 64)
}
func BenchmarkTranspose2D(b *testing.B) { benchTranspose(b, []int64{1, 0}, 2048, 1024) }
