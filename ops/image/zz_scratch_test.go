package image

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

func TestScratchCases(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/onnx-node/node/test_image_decoder_*")
	for _, d := range dirs {
		ib, _ := os.ReadFile(d + "/test_data_set_0/input_0.pb")
		ob, _ := os.ReadFile(d + "/test_data_set_0/output_0.pb")
		iv, _ := protoconv.DecodeValue(ib, protoconv.ValueKind(0), 0)
		ov, _ := protoconv.DecodeValue(ob, protoconv.ValueKind(0), 0)
		in := iv.(*tensor.Tensor)
		want := ov.(*tensor.Tensor)
		data := tensor.Data[uint8](in)
		if len(os.Args) > 0 && os.Getenv("DUMP") != "" {
			os.WriteFile("/tmp/"+filepath.Base(d)+".bin", data, 0o644)
		}
		r, err := decode(&op.Context{MaxBytes: 1 << 30}, data)
		if err != nil {
			fmt.Println(filepath.Base(d), "ERR", err, want.Shape())
			continue
		}
		pf := formatRGB
		switch {
		case filepath.Base(d) == "test_image_decoder_decode_jpeg_bgr":
			pf = formatBGR
		case filepath.Base(d) == "test_image_decoder_decode_jpeg_grayscale":
			pf = formatGray
		}
		got, _ := r.as(&op.Context{}, pf)
		g, w := tensor.Data[uint8](got), tensor.Data[uint8](want)
		maxd, nd := 0, 0
		for i := range w {
			dd := int(g[i]) - int(w[i])
			if dd < 0 {
				dd = -dd
			}
			if dd > 0 {
				nd++
			}
			maxd = max(maxd, dd)
		}
		fmt.Println(filepath.Base(d), got.Shape(), want.Shape(), "maxdiff", maxd, "ndiff", nd, "of", len(w))
	}
}
