package elementwise

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

func TestZZDump(t *testing.T) {
	c := os.Getenv("DUMP")
	if c == "" {
		t.Skip()
	}
	files, _ := filepath.Glob("../../testdata/onnx-node/node/" + c + "/test_data_set_0/*.pb")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		v, err := protoconv.DecodeValue(b, protoconv.TensorValue, 0)
		if err != nil {
			fmt.Println(f, err)
			continue
		}
		tt := v.(*tensor.Tensor)
		fmt.Println(filepath.Base(f), tt.DType(), tt.Shape(), tt.Data())
	}
}
