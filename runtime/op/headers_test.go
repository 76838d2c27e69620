package op

import (
	"slices"
	"testing"

	"github.com/gort-dev/gort/runtime/tensor"
)

// TestHeaders: New hands out the header it made over a buffer again only
// for the same dtype, length and shape; a view, or the output of a kernel
// writing over its input, is kept only over a buffer New made a header for
// (the pool's), the latter never the input's own header; and Forget drops a
// buffer's headers.
func TestHeaders(t *testing.T) {
	var h Headers
	buf := make([]float32, 24)
	a := h.wrap(tensor.Float, []int{4, 6}, buf)
	if b := h.wrap(tensor.Float, []int{4, 6}, buf); b != a {
		t.Error("the same buffer, dtype and shape got a new header")
	}
	if b := h.wrap(tensor.Float, []int{6, 4}, buf); b == a || !slices.Equal(b.Shape(), []int{6, 4}) {
		t.Errorf("another shape got %v", b.Shape())
	}
	if b := h.wrap(tensor.Float16, []int{4, 6}, buf); b == a || b.DType() != tensor.Float16 {
		t.Errorf("another dtype got %s", b.DType())
	}
	if b := h.wrap(tensor.Float, []int{4, 5}, buf[:20]); b == a || b.Len() != 20 {
		t.Errorf("a shorter length got %d elements", b.Len())
	}
	v := h.view(a, []int{24})
	if v == nil || !slices.Equal(v.Shape(), []int{24}) || &v.F32()[0] != &buf[0] {
		t.Fatal("no view of the pool's buffer")
	}
	if w := h.view(a, []int{24}); w != v {
		t.Error("the same view got a new header")
	}
	if h.view(tensor.New(tensor.Float, 4, 6), []int{24}) != nil {
		t.Error("a view over a buffer that is not the pool's was kept")
	}
	o := h.over(a, tensor.Float)
	if o == nil || o == a || !slices.Equal(o.Shape(), a.Shape()) || &o.F32()[0] != &buf[0] {
		t.Fatal("over did not give another header over the same buffer")
	}
	if h.over(a, tensor.Float) != o {
		t.Error("writing over the same input again got a new header")
	}
	if h.over(tensor.New(tensor.Float, 4, 6), tensor.Float) != nil {
		t.Error("a header over a buffer that is not the pool's was kept")
	}
	h.Forget(buf)
	if len(h.m) != 0 {
		t.Errorf("%d buffers kept after Forget", len(h.m))
	}
	if b := h.wrap(tensor.Float, []int{4, 6}, buf); b == a {
		t.Error("a forgotten header was handed out")
	}
	// Beyond maxHeaders shapes per buffer the oldest make way.
	shape := []int{24}
	for range maxHeaders + 1 {
		h.wrap(tensor.Float, shape, buf)
		shape = append(shape, 1) // another shape of 24 elements
	}
	if n := len(h.m[&buf[0]].ts); n != maxHeaders {
		t.Errorf("%d headers kept for one buffer, want %d", n, maxHeaders)
	}
}
