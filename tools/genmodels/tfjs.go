package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"google.golang.org/protobuf/proto"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The -tfjs models: a tiny BERT encoder and a tiny GPT-2 decoder with a KV
// cache in the folder layout transformers.js loads from env.localModelPath
// (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx and
// the same weights in the q8 form, onnx/model_quantized.onnx),
// with the input and output names and dynamic dimensions of Optimum's
// exports, so that transformers.js's pipelines run them as they run
// Xenova/bert-base-uncased or Xenova/gpt2 (tools/transformersjs).

// dynType is a tensor type whose dims are ints (fixed) or strings (named,
// dim_param).
func dynType(dt tensor.DType, dims ...any) *pb.TypeProto {
	tt := &pb.TypeProto_Tensor{ElemType: int32(dt), Shape: &pb.TensorShapeProto{}}
	for _, d := range dims {
		dim := &pb.TensorShapeProto_Dimension{}
		switch v := d.(type) {
		case int:
			dim.Value = &pb.TensorShapeProto_Dimension_DimValue{DimValue: int64(v)}
		case string:
			dim.Value = &pb.TensorShapeProto_Dimension_DimParam{DimParam: v}
		}
		tt.Shape.Dim = append(tt.Shape.Dim, dim)
	}
	return &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: tt}}
}

func (b *graph) dynInput(name string, dt tensor.DType, dims ...any) string {
	b.g.Input = append(b.g.Input, &pb.ValueInfoProto{Name: name, Type: dynType(dt, dims...)})
	return name
}

func (b *graph) dynOutput(from, name string, dt tensor.DType, dims ...any) {
	b.rename(from, name)
	b.g.Output = append(b.g.Output, &pb.ValueInfoProto{Name: name, Type: dynType(dt, dims...)})
}

// dimOf is dimension axis of x as an int64 scalar.
func (b *graph) dimOf(x string, axis int64) string {
	return b.node("Gather", []string{b.node("Shape", []string{x}), b.init("axis", tensor.Scalar(axis))}, aInt("axis", 0))
}

// toHeads reshapes [b, s, d] to [b, heads, s, dh].
func (b *graph) toHeads(x string, heads, dh int) string {
	return b.node("Transpose", []string{b.node("Reshape", []string{x, b.ints("heads_shape", 0, 0, int64(heads), int64(dh))})}, aInts("perm", 0, 2, 1, 3))
}

// fromHeads is the inverse of toHeads.
func (b *graph) fromHeads(x string, d int) string {
	return b.node("Reshape", []string{b.node("Transpose", []string{x}, aInts("perm", 0, 2, 1, 3)), b.ints("merge_shape", 0, 0, int64(d))})
}

// tfjsBert is a post-norm BERT encoder: word + position + token-type
// embeddings, LayerNormalization, per layer self-attention with the padding
// mask as an additive -10000 bias, residual and LayerNormalization, an Erf
// GELU MLP, residual and LayerNormalization. Inputs input_ids,
// attention_mask, token_type_ids [batch_size, sequence_length] int64;
// output last_hidden_state.
func tfjsBert(vocab, d, heads, layers, maxPos int, seed uint64, q8 bool) *pb.ModelProto {
	b := newGraph("bert", seed)
	b.q8 = q8
	ids := b.dynInput("input_ids", tensor.Int64, "batch_size", "sequence_length")
	mask := b.dynInput("attention_mask", tensor.Int64, "batch_size", "sequence_length")
	types := b.dynInput("token_type_ids", tensor.Int64, "batch_size", "sequence_length")
	dh := d / heads
	seq := b.dimOf(ids, 1)
	pos := b.node("Range", []string{b.init("zero", tensor.Scalar(int64(0))), seq, b.init("one", tensor.Scalar(int64(1)))})
	x := b.node("Add", []string{b.node("Gather", []string{b.weight("word_embeddings", tensor.Float, 0.5, vocab, d), ids}),
		b.node("Gather", []string{b.weight("position_embeddings", tensor.Float, 0.1, maxPos, d), pos})})
	x = b.layerNorm(b.node("Add", []string{x, b.node("Gather", []string{b.weight("token_type_embeddings", tensor.Float, 0.1, 2, d), types})}), d)
	// (1 - mask) * -10000 as [b, 1, 1, s].
	fmask := b.node("Cast", []string{mask}, aInt("to", int64(tensor.Float)))
	bias := b.node("Mul", []string{b.node("Sub", []string{b.init("onef", tensor.Scalar(float32(1))), fmask}), b.init("neg", tensor.Scalar(float32(-10000)))})
	bias = b.node("Unsqueeze", []string{bias, b.ints("axes", 1, 2)})
	scale := b.init("scale", tensor.Scalar(float32(1/math.Sqrt(float64(dh)))))
	half := b.init("half", tensor.Scalar(float32(0.5)))
	one := b.init("one", tensor.Scalar(float32(1)))
	sqrt2 := b.init("sqrt2", tensor.Scalar(float32(math.Sqrt2)))
	for l := 0; l < layers; l++ {
		q := b.toHeads(b.linear(x, d, d), heads, dh)
		k := b.node("Transpose", []string{b.toHeads(b.linear(x, d, d), heads, dh)}, aInts("perm", 0, 1, 3, 2))
		v := b.toHeads(b.linear(x, d, d), heads, dh)
		s := b.node("Add", []string{b.node("Mul", []string{b.node("MatMul", []string{q, k}), scale}), bias})
		a := b.fromHeads(b.node("MatMul", []string{b.node("Softmax", []string{s}, aInt("axis", -1)), v}), d)
		x = b.layerNorm(b.node("Add", []string{x, b.linear(a, d, d)}), d)
		h := b.linear(x, d, 4*d)
		erf := b.node("Erf", []string{b.node("Div", []string{h, sqrt2})})
		h = b.node("Mul", []string{b.node("Mul", []string{h, half}), b.node("Add", []string{erf, one})})
		x = b.layerNorm(b.node("Add", []string{x, b.linear(h, 4*d, d)}), d)
	}
	b.dynOutput(x, "last_hidden_state", tensor.Float, "batch_size", "sequence_length", d)
	return model(b, "Tiny BERT encoder in the layout transformers.js loads; written by gort's tools/genmodels -tfjs")
}

// tfjsGPT2 is a pre-norm GPT-2 decoder with a KV cache as Optimum exports it
// for transformers.js: inputs input_ids, attention_mask [batch_size,
// past_sequence_length + sequence_length], position_ids and
// past_key_values.N.key/value [batch_size, heads, past_sequence_length, dh]
// (empty on the first call); outputs logits and present.N.key/value. The
// causal mask is built from the shapes (Range, LessOrEqual) and combined
// with the padding mask (And, Where).
func tfjsGPT2(vocab, d, heads, layers, maxPos int, seed uint64, q8 bool) *pb.ModelProto {
	b := newGraph("gpt2", seed)
	b.q8 = q8
	ids := b.dynInput("input_ids", tensor.Int64, "batch_size", "sequence_length")
	mask := b.dynInput("attention_mask", tensor.Int64, "batch_size", "total_sequence_length")
	posIDs := b.dynInput("position_ids", tensor.Int64, "batch_size", "sequence_length")
	dh := d / heads
	wte := b.weight("wte", tensor.Float, 0.5, vocab, d)
	x := b.node("Add", []string{b.node("Gather", []string{wte, ids}), b.node("Gather", []string{b.weight("wpe", tensor.Float, 0.1, maxPos, d), posIDs})})

	seq, total := b.dimOf(ids, 1), b.dimOf(mask, 1)
	one := b.init("one", tensor.Scalar(int64(1)))
	qpos := b.node("Range", []string{b.node("Sub", []string{total, seq}), total, one})
	kpos := b.node("Range", []string{b.init("zero", tensor.Scalar(int64(0))), total, one})
	causal := b.node("LessOrEqual", []string{b.node("Unsqueeze", []string{kpos, b.ints("axes", 0)}), b.node("Unsqueeze", []string{qpos, b.ints("axes", 1)})})
	pad := b.node("Unsqueeze", []string{b.node("Cast", []string{mask}, aInt("to", int64(tensor.Bool))), b.ints("axes", 1, 2)})
	bias := b.node("Where", []string{b.node("And", []string{causal, pad}), b.init("zerof", tensor.Scalar(float32(0))), b.init("neg", tensor.Scalar(float32(-1e9)))})

	scale := b.init("scale", tensor.Scalar(float32(1/math.Sqrt(float64(dh)))))
	half := b.init("half", tensor.Scalar(float32(0.5)))
	onef := b.init("onef", tensor.Scalar(float32(1)))
	cubic := b.init("gelu_cubic", tensor.Scalar(float32(0.044715)))
	root := b.init("gelu_root", tensor.Scalar(float32(math.Sqrt(2/math.Pi))))
	thirds := b.ints("qkv_split", int64(d), int64(d), int64(d))
	for l := 0; l < layers; l++ {
		qkv := b.nodeN("Split", 3, []string{b.linear(b.layerNorm(x, d), d, 3*d), thirds}, aInt("axis", -1))
		q := b.toHeads(qkv[0], heads, dh)
		var kv [2]string
		for i, name := range []string{"key", "value"} {
			past := b.dynInput(fmt.Sprintf("past_key_values.%d.%s", l, name), tensor.Float, "batch_size", heads, "past_sequence_length", dh)
			kv[i] = b.node("Concat", []string{past, b.toHeads(qkv[1+i], heads, dh)}, aInt("axis", 2))
			out := fmt.Sprintf("present.%d.%s", l, name)
			b.dynOutput(kv[i], out, tensor.Float, "batch_size", heads, "total_sequence_length", dh)
			kv[i] = out
		}
		kt := b.node("Transpose", []string{kv[0]}, aInts("perm", 0, 1, 3, 2))
		s := b.node("Add", []string{b.node("Mul", []string{b.node("MatMul", []string{q, kt}), scale}), bias})
		a := b.fromHeads(b.node("MatMul", []string{b.node("Softmax", []string{s}, aInt("axis", -1)), kv[1]}), d)
		x = b.node("Add", []string{x, b.linear(a, d, d)})
		h := b.linear(b.layerNorm(x, d), d, 4*d)
		inner := b.node("Mul", []string{root, b.node("Add", []string{h, b.node("Mul", []string{cubic, b.node("Pow", []string{h, b.init("three", tensor.Scalar(float32(3)))})})})})
		h = b.node("Mul", []string{b.node("Mul", []string{half, h}), b.node("Add", []string{onef, b.node("Tanh", []string{inner})})})
		x = b.node("Add", []string{x, b.linear(h, 4*d, d)})
	}
	// An untied head: with GPT-2's tied one, random weights make each token
	// predict itself and greedy decoding repeats the last prompt token.
	h := b.layerNorm(x, d)
	var logits string
	if q8 {
		logits = b.quantMatMul(h, b.draw(0.5, d, vocab), d, vocab)
	} else {
		logits = b.node("MatMul", []string{h, b.weight("lm_head", tensor.Float, 0.5, d, vocab)})
	}
	// The outputs in Optimum's order: logits first, then the presents.
	b.dynOutput(logits, "logits", tensor.Float, "batch_size", "sequence_length", vocab)
	outs := b.g.Output
	b.g.Output = append([]*pb.ValueInfoProto{outs[len(outs)-1]}, outs[:len(outs)-1]...)
	return model(b, "Tiny GPT-2 decoder with a KV cache in the layout transformers.js loads; written by gort's tools/genmodels -tfjs")
}

// bertVocab is a WordPiece vocabulary: the specials, letters and digits,
// their ## continuations, punctuation and a few whole words.
func bertVocab() []string {
	v := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	chars := "abcdefghijklmnopqrstuvwxyz0123456789"
	for _, c := range chars {
		v = append(v, string(c))
	}
	for _, c := range chars {
		v = append(v, "##"+string(c))
	}
	v = append(v, ".", ",", "!", "?", "'", "-", "the", "a", "is", "of", "and", "to", "in", "model", "models", "run", "##s", "##ing", "##ed",
		"hello", "world", "gort", "onnx", "runtime", "web", "assembly", "text", "token", "##izer", "transformer", "##s")
	// Without duplicates, in first-seen order.
	seen := map[string]bool{}
	out := v[:0]
	for _, t := range v {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func special(id int, s string) map[string]any {
	return map[string]any{"id": id, "content": s, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}
}

func bertTokenizer(vocab []string) map[string]any {
	ids := map[string]int{}
	var added []any
	for i, t := range vocab {
		ids[t] = i
		if i < 5 {
			added = append(added, special(i, t))
		}
	}
	return map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil, "added_tokens": added,
		"normalizer":     map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{"type": "BertProcessing", "sep": []any{"[SEP]", 3}, "cls": []any{"[CLS]", 2}},
		"decoder":        map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model":          map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": ids},
	}
}

// byteLevelChars is GPT-2's bytes_to_unicode: the printable bytes stand for
// themselves, the others for 256+n, in GPT-2's vocabulary order.
func byteLevelChars() []string {
	var bs []int
	for c := '!'; c <= '~'; c++ {
		bs = append(bs, int(c))
	}
	for c := '¡'; c <= '¬'; c++ {
		bs = append(bs, int(c))
	}
	for c := '®'; c <= 'ÿ'; c++ {
		bs = append(bs, int(c))
	}
	in := map[int]bool{}
	for _, c := range bs {
		in[c] = true
	}
	chars := make([]string, 0, 256)
	for _, c := range bs {
		chars = append(chars, string(rune(c)))
	}
	n := 0
	for c := 0; c < 256; c++ {
		if !in[c] {
			chars = append(chars, string(rune(256+n)))
			n++
		}
	}
	return chars
}

// gpt2Merges are a few BPE merges over the byte-level alphabet ("Ġ" is the
// space), each making a token of the vocabulary.
var gpt2Merges = []string{"h e", "Ġ t", "Ġt he", "i n", "Ġ a", "e r", "o n", "Ġ g", "Ġg o", "Ġgo r", "Ġgor t"}

// gpt2Vocab: the 256 byte tokens, the merges' results, then <|endoftext|>.
func gpt2Vocab() []string {
	v := byteLevelChars()
	for _, m := range gpt2Merges {
		var a, c string
		fmt.Sscan(m, &a, &c)
		v = append(v, a+c)
	}
	return append(v, "<|endoftext|>")
}

func gpt2Tokenizer(vocab []string) map[string]any {
	ids := map[string]int{}
	for i, t := range vocab {
		ids[t] = i
	}
	eos := len(vocab) - 1
	bl := func() map[string]any {
		return map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}
	}
	return map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil,
		"added_tokens":   []any{special(eos, "<|endoftext|>")},
		"normalizer":     nil,
		"pre_tokenizer":  bl(),
		"post_processor": bl(),
		"decoder":        bl(),
		"model": map[string]any{"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": "", "end_of_word_suffix": "",
			"fuse_unk": false, "byte_fallback": false, "vocab": ids, "merges": gpt2Merges},
	}
}

// tfjsModel is one model folder: its files by path.
type tfjsModel struct {
	name  string
	files map[string]any // path → JSON value, or *pb.ModelProto
}

func tfjsModels() []tfjsModel {
	const d, heads, layers, maxPos = 32, 4, 2, 128
	bv := bertVocab()
	gv := gpt2Vocab()
	eos := len(gv) - 1
	return []tfjsModel{
		{"gort-tiny-bert", map[string]any{
			"config.json": map[string]any{"model_type": "bert", "architectures": []string{"BertModel"}, "vocab_size": len(bv), "hidden_size": d,
				"num_attention_heads": heads, "num_hidden_layers": layers, "intermediate_size": 4 * d, "max_position_embeddings": maxPos,
				"type_vocab_size": 2, "hidden_act": "gelu", "layer_norm_eps": 1e-5, "pad_token_id": 0},
			"tokenizer.json":            bertTokenizer(bv),
			"tokenizer_config.json":     map[string]any{"tokenizer_class": "BertTokenizer", "do_lower_case": true, "model_max_length": maxPos, "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]", "mask_token": "[MASK]"},
			"onnx/model.onnx":           tfjsBert(len(bv), d, heads, layers, maxPos, 501, false),
			"onnx/model_quantized.onnx": tfjsBert(len(bv), d, heads, layers, maxPos, 501, true),
		}},
		{"gort-tiny-gpt2", map[string]any{
			"config.json": map[string]any{"model_type": "gpt2", "architectures": []string{"GPT2LMHeadModel"}, "vocab_size": len(gv), "n_embd": d,
				"n_head": heads, "n_layer": layers, "n_positions": maxPos, "n_ctx": maxPos, "bos_token_id": eos, "eos_token_id": eos, "use_cache": true},
			"generation_config.json":    map[string]any{"bos_token_id": eos, "eos_token_id": eos},
			"tokenizer.json":            gpt2Tokenizer(gv),
			"tokenizer_config.json":     map[string]any{"tokenizer_class": "GPT2Tokenizer", "bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>", "model_max_length": maxPos, "add_prefix_space": false},
			"onnx/model.onnx":           tfjsGPT2(len(gv), d, heads, layers, maxPos, 502, false),
			"onnx/model_quantized.onnx": tfjsGPT2(len(gv), d, heads, layers, maxPos, 502, true),
		}},
		{"gort-tiny-llama", map[string]any{
			"config.json": map[string]any{"model_type": "llama", "architectures": []string{"LlamaForCausalLM"}, "vocab_size": len(gv), "hidden_size": d,
				"num_attention_heads": heads, "num_key_value_heads": heads / 2, "head_dim": d / heads, "num_hidden_layers": layers, "intermediate_size": 2 * d,
				"max_position_embeddings": maxPos, "rms_norm_eps": 1e-6, "rope_theta": 10000, "bos_token_id": eos, "eos_token_id": eos, "use_cache": true,
				"transformers.js_config": map[string]any{"dtype": "q4"}},
			"generation_config.json": map[string]any{"bos_token_id": eos, "eos_token_id": eos},
			"tokenizer.json":         gpt2Tokenizer(gv),
			"tokenizer_config.json":  map[string]any{"tokenizer_class": "GPT2Tokenizer", "bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>", "model_max_length": maxPos, "add_prefix_space": false},
			"onnx/model_q4.onnx":     tfjsLlama(len(gv), d, heads, heads/2, layers, 2*d, maxPos, 503),
		}},
	}
}

// writeTfjs writes each model folder under out.
func writeTfjs(out string) error {
	for _, m := range tfjsModels() {
		paths := make([]string, 0, len(m.files))
		for p := range m.files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			var data []byte
			var err error
			switch v := m.files[p].(type) {
			case *pb.ModelProto:
				data, err = proto.MarshalOptions{Deterministic: true}.Marshal(v)
			default:
				data, err = json.MarshalIndent(v, "", " ")
			}
			if err != nil {
				return fmt.Errorf("%s/%s: %w", m.name, p, err)
			}
			path := filepath.Join(out, m.name, p)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := writeIfChanged(path, data); err != nil {
				return err
			}
		}
		fmt.Printf("%s: %d files\n", m.name, len(paths))
	}
	return nil
}

// msNode adds a com.microsoft contrib node with nOut fresh outputs.
func (b *graph) msNode(op string, nOut int, inputs []string, attrs ...attr) []string {
	out := b.nodeN(op, nOut, inputs, attrs...)
	b.g.Node[len(b.g.Node)-1].Domain = "com.microsoft"
	return out
}

// matMulNBits is x·w with w (in×out) stored as MatMulNBits keeps it: 4-bit
// codes in blocks of 32 along in, one scale per block and column, zero point
// 8 (the default when none is given), as onnxruntime-genai's builder and
// transformers.js's q4 models write it.
func (b *graph) matMulNBits(x string, in, out int) string {
	const block = 32
	w := b.draw(math.Sqrt(3/float64(in)), in, out)
	kBlocks := (in + block - 1) / block
	packed := make([]uint8, out*kBlocks*block/2)
	scales := make([]float32, out*kBlocks)
	for n := 0; n < out; n++ {
		for kb := 0; kb < kBlocks; kb++ {
			var amax float32
			for k := kb * block; k < min(in, (kb+1)*block); k++ {
				amax = max(amax, float32(math.Abs(float64(w[k*out+n]))))
			}
			s := amax / 7
			if s == 0 {
				s = 1
			}
			scales[n*kBlocks+kb] = s
			for j := 0; j < block; j++ {
				code := uint8(8)
				if k := kb*block + j; k < in {
					code = uint8(8 + max(-8, min(7, math.RoundToEven(float64(w[k*out+n]/s)))))
				}
				i := (n*kBlocks+kb)*block/2 + j/2
				packed[i] |= code << (4 * (j % 2))
			}
		}
	}
	bq := b.init("w_q4", tensor.Of([]int{out, kBlocks, block / 2}, packed))
	sc := b.init("w_scales", tensor.Of([]int{out * kBlocks}, scales))
	return b.msNode("MatMulNBits", 1, []string{x, bq, sc}, aInt("K", int64(in)), aInt("N", int64(out)), aInt("bits", 4), aInt("block_size", block))[0]
}

// tfjsLlama is a Llama-style decoder as today's LLM exports for
// transformers.js write it with onnxruntime's contrib ops: RMS norms as
// SimplifiedLayerNormalization and SkipSimplifiedLayerNormalization (which
// also carries the residual sum), 4-bit MatMulNBits projections,
// RotaryEmbedding on queries and keys from position_ids, GroupQueryAttention
// (kvHeads < heads) over the KV cache with seqlens_k and
// total_sequence_length computed from attention_mask, a SiLU-gated MLP and a
// float lm_head. Inputs and outputs as tfjsGPT2's.
func tfjsLlama(vocab, d, heads, kvHeads, layers, inter, maxPos int, seed uint64) *pb.ModelProto {
	b := newGraph("llama", seed)
	ids := b.dynInput("input_ids", tensor.Int64, "batch_size", "sequence_length")
	mask := b.dynInput("attention_mask", tensor.Int64, "batch_size", "total_sequence_length")
	posIDs := b.dynInput("position_ids", tensor.Int64, "batch_size", "sequence_length")
	dh := d / heads
	x := b.node("Gather", []string{b.weight("embed_tokens", tensor.Float, 0.5, vocab, d), ids})
	// seqlens_k = (sum of the mask) − 1 per row; total_sequence_length as an int32 scalar.
	seqlens := b.node("Cast", []string{b.node("Sub", []string{b.node("ReduceSum", []string{mask, b.ints("axes", 1)}, aInt("keepdims", 0)), b.init("one", tensor.Scalar(int64(1)))})}, aInt("to", int64(tensor.Int32)))
	total := b.node("Cast", []string{b.dimOf(mask, 1)}, aInt("to", int64(tensor.Int32)))
	// RoPE caches (maxPos, dh/2), θ = 10000.
	cos := make([]float32, maxPos*dh/2)
	sin := make([]float32, maxPos*dh/2)
	for p := 0; p < maxPos; p++ {
		for i := 0; i < dh/2; i++ {
			a := float64(p) / math.Pow(10000, float64(2*i)/float64(dh))
			cos[p*dh/2+i], sin[p*dh/2+i] = float32(math.Cos(a)), float32(math.Sin(a))
		}
	}
	cosC := b.init("cos_cache", tensor.Of([]int{maxPos, dh / 2}, cos))
	sinC := b.init("sin_cache", tensor.Of([]int{maxPos, dh / 2}, sin))
	gamma := func() string { // 1 ± 0.1
		v := b.draw(0.1, d)
		for i := range v {
			v[i]++
		}
		return b.init("rms_gamma", tensor.Of([]int{d}, v))
	}
	eps := aFloat("epsilon", 1e-6)
	// SimplifiedLayerNormalization is in onnxruntime's default domain; exporters write it there.
	h := b.node("SimplifiedLayerNormalization", []string{x, gamma()}, eps)
	residual := x
	var down string
	for l := 0; l < layers; l++ {
		if l > 0 {
			o := b.msNode("SkipSimplifiedLayerNormalization", 4, []string{down, residual, gamma()}, eps)
			h, residual = o[0], o[3]
		}
		q := b.msNode("RotaryEmbedding", 1, []string{b.matMulNBits(h, d, d), posIDs, cosC, sinC}, aInt("num_heads", int64(heads)))[0]
		k := b.msNode("RotaryEmbedding", 1, []string{b.matMulNBits(h, d, kvHeads*dh), posIDs, cosC, sinC}, aInt("num_heads", int64(kvHeads)))[0]
		v := b.matMulNBits(h, d, kvHeads*dh)
		var past [2]string
		for i, name := range []string{"key", "value"} {
			past[i] = b.dynInput(fmt.Sprintf("past_key_values.%d.%s", l, name), tensor.Float, "batch_size", kvHeads, "past_sequence_length", dh)
		}
		att := b.msNode("GroupQueryAttention", 3, []string{q, k, v, past[0], past[1], seqlens, total},
			aInt("num_heads", int64(heads)), aInt("kv_num_heads", int64(kvHeads)))
		for i, name := range []string{"key", "value"} {
			b.dynOutput(att[1+i], fmt.Sprintf("present.%d.%s", l, name), tensor.Float, "batch_size", kvHeads, "total_sequence_length", dh)
		}
		o := b.msNode("SkipSimplifiedLayerNormalization", 4, []string{b.matMulNBits(att[0], d, d), residual, gamma()}, eps)
		h, residual = o[0], o[3]
		gate := b.matMulNBits(h, d, inter)
		act := b.node("Mul", []string{b.node("Mul", []string{gate, b.node("Sigmoid", []string{gate})}), b.matMulNBits(h, d, inter)})
		down = b.matMulNBits(act, inter, d)
	}
	h = b.msNode("SkipSimplifiedLayerNormalization", 1, []string{down, residual, gamma()}, eps)[0]
	logits := b.node("MatMul", []string{h, b.weight("lm_head", tensor.Float, 0.5, d, vocab)})
	b.dynOutput(logits, "logits", tensor.Float, "batch_size", "sequence_length", vocab)
	outs := b.g.Output
	b.g.Output = append([]*pb.ValueInfoProto{outs[len(outs)-1]}, outs[:len(outs)-1]...)
	m := model(b, "Tiny Llama-style decoder with onnxruntime contrib ops (GroupQueryAttention, MatMulNBits, RotaryEmbedding, SkipSimplifiedLayerNormalization) in the layout transformers.js loads; written by gort's tools/genmodels -tfjs")
	m.OpsetImport = append(m.OpsetImport, &pb.OperatorSetIdProto{Domain: "com.microsoft", Version: 1})
	return m
}
