package op

import (
	"reflect"
	"testing"
)

func TestRegistryDomainsAndList(t *testing.T) {
	r := NewRegistry()
	if got := r.Domains(); len(got) != 0 {
		t.Fatalf("empty registry: Domains() = %v", got)
	}
	b := func(n *Node) (any, error) { return nil, nil }
	r.Register("ai.onnx.preview", "FlexAttention", []int{1}, b)
	r.Register("ai.onnx", "Add", []int{7, 13}, b) // "ai.onnx" is the default domain
	r.Register("", "Abs", []int{6}, b)
	r.Register("ai.onnx.ml", "Binarizer", []int{1}, b)
	if got, want := r.Domains(), []string{"", "ai.onnx.ml", "ai.onnx.preview"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Domains() = %q, want %q", got, want)
	}
	want := []string{"Abs-[6]", "Add-[7 13]", "ai.onnx.ml.Binarizer-[1]", "ai.onnx.preview.FlexAttention-[1]"}
	if got := r.List(); !reflect.DeepEqual(got, want) {
		t.Errorf("List() = %q, want %q", got, want)
	}
}
