// Command genmodels writes the benchmark models that gort builds itself
// (rather than vendors): a 1024×1024 U²-Net-style segmentation network with
// float16 weights, a MobileNetV3-style classifier, an LSTM voice-activity
// model inside If, and a transformer encoder. Weights and inputs are drawn
// from fixed seeds, so every run writes the same bytes; the files are large
// (tens of MB with their inputs), so `make bench` writes them into a cache
// directory instead of the repository.
//
// Each model goes to OUT/NAME/model.onnx with its inputs in
// OUT/NAME/test_data_set_0/input_N.pb (graph input order), the layout of the
// ONNX test data that tools/bench reads.
//
//	go run ./tools/genmodels [-out .cache/bench] [-small] [-list] [name...]
//
// -tfjs writes instead the model folders of tools/transformersjs: a tiny BERT
// and a tiny GPT-2 with tokenizers, as transformers.js loads them (tfjs.go).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/proto"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// spec is one generated model: the directory name the bench knows it by and
// its builder at benchmark size.
type spec struct {
	name, about string
	build       func() (*pb.ModelProto, map[string]*tensor.Tensor)
}

var specs = []spec{
	{"gen_u2net", "U²-Net-style segmentation, 1024×1024, float16 weights",
		func() (*pb.ModelProto, map[string]*tensor.Tensor) { return u2net(1024, 101) }},
	{"gen_mobilenetv3", "MobileNetV3-Small-style classifier, 224×224",
		func() (*pb.ModelProto, map[string]*tensor.Tensor) { return mobilenetV3(224, 202) }},
	{"gen_vad_lstm", "LSTM voice-activity model inside If, 256 frames",
		func() (*pb.ModelProto, map[string]*tensor.Tensor) { return vad(256, 303) }},
	{"gen_transformer", "transformer encoder, 4 layers, 128 tokens × 256",
		func() (*pb.ModelProto, map[string]*tensor.Tensor) { return transformer(128, 256, 4, 4, 404) }},
}

// smallSpecs are the generated architectures at sizes that run in a second:
// the same graph code as the benchmark sizes, for the cross-check with
// onnxruntime (genmodels_test.go) and the WebGPU model tests (-small).
var smallSpecs = []spec{
	{"u2net_64", "U²-Net-style segmentation, 64×64", func() (*pb.ModelProto, map[string]*tensor.Tensor) { return u2net(64, 1) }},
	{"u2net_odd_50", "U²-Net-style segmentation, 50×50", func() (*pb.ModelProto, map[string]*tensor.Tensor) { return u2net(50, 2) }},
	{"mobilenetv3_64", "MobileNetV3-Small-style classifier, 64×64", func() (*pb.ModelProto, map[string]*tensor.Tensor) { return mobilenetV3(64, 3) }},
	{"vad_24", "LSTM voice-activity model inside If, 24 frames", func() (*pb.ModelProto, map[string]*tensor.Tensor) { return vad(24, 4) }},
	{"transformer_12x32", "transformer encoder, 2 layers, 12 tokens × 32", func() (*pb.ModelProto, map[string]*tensor.Tensor) { return transformer(12, 32, 4, 2, 5) }},
	{"decoder_prefill", "GPT-2-style decoder, 2 layers, 5 tokens after 3 cached, width 32", func() (*pb.ModelProto, map[string]*tensor.Tensor) {
		return decoder(5, 3, 32, 4, 2, 50, 6)
	}},
	{"decoder_step", "GPT-2-style decoder, 2 layers, 1 token after 7 cached, width 32", func() (*pb.ModelProto, map[string]*tensor.Tensor) {
		return decoder(1, 7, 32, 4, 2, 50, 7)
	}},
}

func main() {
	out := flag.String("out", ".cache/bench", "directory to write the model directories into")
	list := flag.Bool("list", false, "print the model names and exit")
	smallSizes := flag.Bool("small", false, "write the small variants (smallSpecs) instead of the benchmark sizes")
	tfjs := flag.Bool("tfjs", false, "write the transformers.js model folders (tiny BERT and GPT-2 with tokenizers; tfjs.go) instead")
	flag.Parse()
	if *tfjs {
		if err := writeTfjs(*out); err != nil {
			fmt.Fprintln(os.Stderr, "genmodels:", err)
			os.Exit(1)
		}
		return
	}
	specs := specs
	if *smallSizes {
		specs = smallSpecs
	}
	if *list {
		for _, s := range specs {
			fmt.Printf("%s\t%s\n", s.name, s.about)
		}
		return
	}
	want := map[string]bool{}
	for _, a := range flag.Args() {
		want[a] = true
	}
	for _, s := range specs {
		if len(want) > 0 && !want[s.name] {
			continue
		}
		delete(want, s.name)
		m, feeds := s.build()
		n, err := write(filepath.Join(*out, s.name), m, feeds)
		if err != nil {
			fmt.Fprintln(os.Stderr, "genmodels:", err)
			os.Exit(1)
		}
		fmt.Printf("%s: %s (%s)\n", s.name, n, s.about)
	}
	for name := range want {
		fmt.Fprintf(os.Stderr, "genmodels: no model %q (see -list)\n", name)
		os.Exit(2)
	}
}

// write stores the model and its inputs under dir, leaving files whose bytes
// are already right untouched (so a rerun does not invalidate caches), and
// returns a summary of what the model holds.
func write(dir string, m *pb.ModelProto, feeds map[string]*tensor.Tensor) (string, error) {
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, "test_data_set_0"), 0o755); err != nil {
		return "", err
	}
	if err := writeIfChanged(filepath.Join(dir, "model.onnx"), data); err != nil {
		return "", err
	}
	for i, in := range m.Graph.Input {
		t, ok := feeds[in.Name]
		if !ok {
			return "", fmt.Errorf("%s: no feed for input %q", dir, in.Name)
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(protoconv.Proto(in.Name, t))
		if err != nil {
			return "", err
		}
		if err := writeIfChanged(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", i)), b); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%d bytes, %s", len(data), opCounts(m.Graph)), nil
}

func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return os.WriteFile(path, data, 0o644)
}

// opCounts summarises the ops of g and its subgraphs, most frequent first
// among those the benchmark cares about.
func opCounts(g *pb.GraphProto) string {
	counts := map[string]int{}
	var walk func(*pb.GraphProto)
	walk = func(g *pb.GraphProto) {
		for _, n := range g.Node {
			counts[n.OpType]++
			for _, a := range n.Attribute {
				if a.G != nil {
					walk(a.G)
				}
			}
		}
	}
	walk(g)
	var parts []string
	for _, op := range []string{"Conv", "Resize", "MaxPool", "Concat", "Cast", "HardSwish", "HardSigmoid", "If", "LSTM", "MatMul", "Softmax", "LayerNormalization"} {
		if counts[op] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[op], op))
		}
	}
	return strings.Join(parts, ", ")
}
