// Command gendemo writes the demo page's bundled model and its sample input,
// deterministically, so the committed files can be regenerated and checked:
//
//	go run ./tools/gendemo                      # rewrites demo/model/
//	go run ./tools/gendemo -chain 1200 -o x.onnx  # a 1200-node model for the graph view test
//	go run ./tools/gendemo -external dir          # the toon model with external weights
//
// The bundled model ("toon") turns a photo into an outlined cartoon at twice
// the size, so the page shows visible behaviour the moment it opens:
//
//	image [1,3,height,width] (RGB, 0–1)
//	  → grey (1×1 Conv) → blur (3×3 Conv) → Sobel x/y (3×3 Conv, 2 channels)
//	  → magnitude (Mul, ReduceSum, Sqrt) → edges = Clip(3·magnitude − 0.05, 0, 1)  output "edges" [1,1,h,w]
//	  → image · (1 − edges) → Resize ×2 (linear, half_pixel)                 output "toon"  [1,3,2h,2w]
//
// height and width are symbolic, so any image size runs. The expected outputs
// in test_data_set_0 are computed here by naive float64 loops that share no
// code with gort's kernels (see reference.go), so the demo's own data checks
// gort.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/proto"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Sample image size: H ≠ W so that a transposed axis shows.
const (
	sampleH = 48
	sampleW = 64
)

func main() {
	dir := flag.String("dir", "demo/model", "output directory of the bundled model")
	chain := flag.Int("chain", 0, "instead: write a model of this many nodes to -o (graph view tests)")
	out := flag.String("o", "", "output file for -chain")
	external := flag.String("external", "", "instead: write toon_external.onnx and toon_external.weights (external data) into this directory")
	flag.Parse()
	if *external != "" {
		m, w := ExternalModel("toon_external.weights")
		for name, b := range map[string][]byte{"toon_external.onnx": m, "toon_external.weights": w} {
			if err := os.WriteFile(filepath.Join(*external, name), b, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "gendemo:", err)
				os.Exit(1)
			}
		}
		return
	}
	if *chain > 0 {
		if *out == "" {
			fmt.Fprintln(os.Stderr, "gendemo: -chain needs -o")
			os.Exit(2)
		}
		if err := os.WriteFile(*out, ChainModel(*chain), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gendemo:", err)
			os.Exit(1)
		}
		return
	}
	if err := writeAll(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gendemo:", err)
		os.Exit(1)
	}
}

// Files returns every bundled file by its path relative to the model directory.
func Files() (map[string][]byte, error) {
	img := SampleImage()
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, img); err != nil {
		return nil, err
	}
	x := ImageTensor(img)
	edges, toon := Reference(x, sampleH, sampleW)
	files := map[string][]byte{
		"toon.onnx":  ToonModel(),
		"sample.png": pngBuf.Bytes(),
	}
	for name, t := range map[string]struct {
		name  string
		shape []int
		data  []float32
	}{
		"test_data_set_0/input_0.pb":  {"image", []int{1, 3, sampleH, sampleW}, x},
		"test_data_set_0/output_0.pb": {"edges", []int{1, 1, sampleH, sampleW}, edges},
		"test_data_set_0/output_1.pb": {"toon", []int{1, 3, 2 * sampleH, 2 * sampleW}, toon},
	} {
		b, err := proto.Marshal(protoconv.Proto(t.name, tensor.Of(t.shape, t.data)))
		if err != nil {
			return nil, err
		}
		files[name] = b
	}
	return files, nil
}

func writeAll(dir string) error {
	files, err := Files()
	if err != nil {
		return err
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------- model

func valueInfo(name string, dims ...any) *pb.ValueInfoProto {
	shape := &pb.TensorShapeProto{}
	for _, d := range dims {
		dim := &pb.TensorShapeProto_Dimension{}
		switch v := d.(type) {
		case int:
			dim.Value = &pb.TensorShapeProto_Dimension_DimValue{DimValue: int64(v)}
		case string:
			dim.Value = &pb.TensorShapeProto_Dimension_DimParam{DimParam: v}
		}
		shape.Dim = append(shape.Dim, dim)
	}
	return &pb.ValueInfoProto{Name: name, Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{
		TensorType: &pb.TypeProto_Tensor{ElemType: int32(tensor.Float), Shape: shape}}}}
}

func node(op, name string, in, out []string, attrs ...*pb.AttributeProto) *pb.NodeProto {
	return &pb.NodeProto{OpType: op, Name: name, Input: in, Output: out, Attribute: attrs}
}

func ints(name string, v ...int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INTS, Ints: v}
}

func str(name, v string) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_STRING, S: []byte(v)}
}

func marshal(m *pb.ModelProto) []byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		panic(err) // only on a programming error in this file
	}
	return b
}

// Weights of the toon model, shared with the reference.
var (
	greyW  = []float32{0.299, 0.587, 0.114}
	blurW  = []float32{1.0 / 16, 2.0 / 16, 1.0 / 16, 2.0 / 16, 4.0 / 16, 2.0 / 16, 1.0 / 16, 2.0 / 16, 1.0 / 16}
	sobelW = []float32{
		-1, 0, 1, -2, 0, 2, -1, 0, 1, // d/dx
		-1, -2, -1, 0, 0, 0, 1, 2, 1, // d/dy
	}
	edgeGain float32 = 3
	// edgeFloor is subtracted before clipping: flat regions (gradient only
	// float32 rounding noise, where sqrt turns 1e-14 into 1e-7) give exactly 0,
	// so every correct float32 implementation is within the ONNX tolerance of
	// the float64 reference, and the picture loses its speckle.
	edgeFloor float32 = 0.05
)

// ToonModel returns the bundled image → image model (opset 13).
func ToonModel() []byte { return marshal(toonProto()) }

// ExternalModel returns the toon model with its Conv weights stored outside
// it, in the file named weights (at 64-byte aligned offsets), and that file's
// bytes: the demo's test loads it by dropping both files.
func ExternalModel(weights string) (model, data []byte) {
	m := toonProto()
	for _, t := range m.Graph.Initializer {
		if !strings.HasSuffix(t.Name, ".weight") {
			continue
		}
		for len(data)%64 != 0 {
			data = append(data, 0)
		}
		off := len(data)
		data = append(data, t.RawData...)
		t.ExternalData = []*pb.StringStringEntryProto{
			{Key: "location", Value: weights},
			{Key: "offset", Value: fmt.Sprint(off)},
			{Key: "length", Value: fmt.Sprint(len(t.RawData))},
		}
		t.DataLocation = pb.TensorProto_EXTERNAL
		t.RawData = nil
	}
	return marshal(m), data
}

func toonProto() *pb.ModelProto {
	init := func(name string, shape []int, data any) *pb.TensorProto {
		return protoconv.Proto(name, tensor.Must(tensor.FromSlice(tensor.DTypeOf[float32](), shape, data)))
	}
	i64 := func(name string, data ...int64) *pb.TensorProto {
		return protoconv.Proto(name, tensor.Of([]int{len(data)}, data))
	}
	g := &pb.GraphProto{
		Name:      "toon",
		DocString: "Outlined cartoon at twice the size: grey, blur, Sobel edges, darken the edges, Resize x2 (linear).",
		Input:     []*pb.ValueInfoProto{valueInfo("image", 1, 3, "height", "width")},
		Output: []*pb.ValueInfoProto{
			valueInfo("edges", 1, 1, "height", "width"),
			valueInfo("toon", 1, 3, "height2", "width2"),
		},
		Initializer: []*pb.TensorProto{
			init("grey.weight", []int{1, 3, 1, 1}, greyW),
			init("blur.weight", []int{1, 1, 3, 3}, blurW),
			init("sobel.weight", []int{2, 1, 3, 3}, sobelW),
			i64("channel_axis", 1),
			protoconv.Proto("gain", tensor.Scalar(edgeGain)),
			protoconv.Proto("floor", tensor.Scalar(edgeFloor)),
			protoconv.Proto("zero", tensor.Scalar(float32(0))),
			protoconv.Proto("one", tensor.Scalar(float32(1))),
			init("scales", []int{4}, []float32{1, 1, 2, 2}),
		},
		Node: []*pb.NodeProto{
			node("Conv", "grey", []string{"image", "grey.weight"}, []string{"grey_out"}),
			node("Conv", "blur", []string{"grey_out", "blur.weight"}, []string{"blur_out"}, ints("pads", 1, 1, 1, 1)),
			node("Conv", "sobel", []string{"blur_out", "sobel.weight"}, []string{"gradient"}, ints("pads", 1, 1, 1, 1)),
			node("Mul", "square", []string{"gradient", "gradient"}, []string{"gradient_sq"}),
			node("ReduceSum", "sum_xy", []string{"gradient_sq", "channel_axis"}, []string{"magnitude_sq"}, &pb.AttributeProto{Name: "keepdims", Type: pb.AttributeProto_INT, I: 1}),
			node("Sqrt", "magnitude", []string{"magnitude_sq"}, []string{"magnitude_out"}),
			node("Mul", "gain_mul", []string{"magnitude_out", "gain"}, []string{"strength"}),
			node("Sub", "threshold", []string{"strength", "floor"}, []string{"above"}),
			node("Clip", "clip", []string{"above", "zero", "one"}, []string{"edges"}),
			node("Sub", "invert", []string{"one", "edges"}, []string{"keep"}),
			node("Mul", "darken", []string{"image", "keep"}, []string{"outlined"}),
			node("Resize", "upscale", []string{"outlined", "", "scales"}, []string{"toon"}, str("mode", "linear")),
		},
	}
	return &pb.ModelProto{
		IrVersion:       8,
		ProducerName:    "gort tools/gendemo",
		ProducerVersion: "1",
		DocString:       "The demo page's bundled model. Generated by tools/gendemo; do not edit.",
		OpsetImport:     []*pb.OperatorSetIdProto{{Domain: "", Version: 13}},
		Graph:           g,
	}
}

// ChainModel returns a model of n nodes (n ≥ 2) for the graph view: a chain
// of Add/Mul/Relu/Sigmoid blocks on x [1,16] with a side branch every 50
// nodes, so the layout has both length and some width. Node i is named
// "node_<i>".
func ChainModel(n int) []byte {
	if n < 2 {
		n = 2
	}
	g := &pb.GraphProto{Name: fmt.Sprintf("chain%d", n), Input: []*pb.ValueInfoProto{valueInfo("x", 1, 16)}}
	g.Initializer = append(g.Initializer, protoconv.Proto("c", tensor.Of([]int{16}, make([]float32, 16))))
	ops := []string{"Add", "Relu", "Mul", "Sigmoid"}
	prev := "x"
	for i := 0; i < n-1; i++ {
		op := ops[i%len(ops)]
		out := fmt.Sprintf("v%d", i)
		in := []string{prev}
		if op == "Add" || op == "Mul" {
			in = append(in, "c")
		}
		if i%50 == 49 && i > 50 {
			// Join with a value from 37 nodes back: a long edge across the layout.
			in = []string{prev, fmt.Sprintf("v%d", i-37)}
			op = "Add"
		}
		g.Node = append(g.Node, node(op, fmt.Sprintf("node_%d", i), in, []string{out}))
		prev = out
	}
	g.Node = append(g.Node, node("Identity", fmt.Sprintf("node_%d", n-1), []string{prev}, []string{"y"}))
	g.Output = []*pb.ValueInfoProto{valueInfo("y", 1, 16)}
	return marshal(&pb.ModelProto{
		IrVersion: 8, ProducerName: "gort tools/gendemo",
		OpsetImport: []*pb.OperatorSetIdProto{{Domain: "", Version: 13}},
		Graph:       g,
	})
}

// ---------------------------------------------------------------- sample input

// SampleImage draws the bundled sample: a house under a sun on a hill, with a
// sky gradient, so edges and colours both show in the outputs.
func SampleImage() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, sampleW, sampleH))
	for y := 0; y < sampleH; y++ {
		for x := 0; x < sampleW; x++ {
			fx, fy := float64(x), float64(y)
			// sky: light blue to white
			t := fy / sampleH
			c := color.NRGBA{uint8(110 + 120*t), uint8(170 + 70*t), 250, 255}
			if (fx-50)*(fx-50)+(fy-10)*(fy-10) < 49 { // sun
				c = color.NRGBA{255, 210, 40, 255}
			}
			if fy > 36-6*math.Sin(fx/14) { // hill
				c = color.NRGBA{60, uint8(140 + 2*(int(fx)%7)), 60, 255}
			}
			if fx >= 12 && fx < 34 && fy >= 22 && fy < 38 { // wall
				c = color.NRGBA{220, 200, 160, 255}
				if fx >= 20 && fx < 26 && fy >= 29 { // door
					c = color.NRGBA{120, 70, 30, 255}
				}
				if fx >= 14 && fx < 18 && fy >= 25 && fy < 29 { // window
					c = color.NRGBA{80, 160, 220, 255}
				}
			}
			if fy >= 12 && fy < 22 && math.Abs(fx-23) < (fy-12)*1.3 { // roof
				c = color.NRGBA{180, 40, 40, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

// ImageTensor returns img as float32 NCHW RGB in [0, 1].
func ImageTensor(img *image.NRGBA) []float32 {
	b := img.Bounds()
	h, w := b.Dy(), b.Dx()
	out := make([]float32, 3*h*w)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := img.NRGBAAt(b.Min.X+x, b.Min.Y+y)
			out[0*h*w+y*w+x] = float32(c.R) / 255
			out[1*h*w+y*w+x] = float32(c.G) / 255
			out[2*h*w+y*w+x] = float32(c.B) / 255
		}
	}
	return out
}
