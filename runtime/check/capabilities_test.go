package check_test

import (
	"testing"

	"github.com/gort-dev/gort/runtime/check"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	"github.com/gort-dev/gort/runtime/tensor"
)

func TestCapabilities(t *testing.T) {
	m := base()
	m.Opset("com.example", 1)
	m.Node("Custom", []string{"y"}, []string{"c"}).Domain = "com.example"
	m.Init("sc", tensor.Of([]int{2}, []float32{1, 2}))
	m.Node("Resize", []string{"y", "", "sc"}, []string{"r"}, tm.String("mode", "sinc"))
	m.Node("Resize", []string{"y", "", "sc"}, []string{"r2"}, tm.String("mode", "cubic"))
	cap := check.CapabilitiesOf(m.Proto, nil)
	if cap.Nodes != 5 || cap.Supported != 3 || len(cap.Unsupported) != 2 {
		t.Fatalf("got %+v", cap)
	}
	if cap.ByOp["com.example.Custom"] != 1 || cap.ByOp["Resize"] != 1 {
		t.Errorf("by op: %v", cap.ByOp)
	}
	for _, u := range cap.Unsupported {
		if u.Reason == "" || u.Node == "" || u.NodeIndex < 2 {
			t.Errorf("unsupported entry %+v", u)
		}
	}
}
