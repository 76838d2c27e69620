package text

import (
	"encoding/binary"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("TfIdfVectorizer", []int{9}, buildTfIdf)
}

// tfidf is the parsed vocabulary: each pooled n-gram (by its encoded key)
// maps to its output column.
type tfidf struct {
	minN, maxN, maxSkip int
	mode                string
	column              map[string]int
	weights             []float32 // per n-gram ordinal; nil means all 1
	weightOf            map[string]int
	width               int
	strPool             bool
}

// buildTfIdf parses the pool once: ngram_counts[k] is where the (k+1)-grams
// start in the pool, and ngram_indexes[j] the output column of the j-th
// pooled n-gram (counting across all lengths in pool order).
func buildTfIdf(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	t := &tfidf{
		minN:    int(a.Int("min_gram_length", 0)),
		maxN:    int(a.Int("max_gram_length", 0)),
		maxSkip: int(a.Int("max_skip_count", 0)),
		mode:    a.String("mode", ""),
	}
	counts := a.Ints("ngram_counts")
	indexes := a.Ints("ngram_indexes")
	poolI := a.Ints("pool_int64s")
	poolS := a.Strings("pool_strings")
	t.weights = a.Floats("weights")
	if a.Err != nil {
		return nil, a.Err
	}
	switch t.mode {
	case "TF", "IDF", "TFIDF":
	default:
		return nil, n.Errorf("mode must be TF, IDF or TFIDF, got %q", t.mode)
	}
	if t.minN < 1 || t.maxN < t.minN || t.maxSkip < 0 {
		return nil, n.Errorf("invalid gram lengths %d..%d or skip count %d", t.minN, t.maxN, t.maxSkip)
	}
	if (poolI == nil) == (poolS == nil) && (len(poolI) > 0 || len(poolS) > 0) {
		return nil, n.Errorf("exactly one of pool_int64s and pool_strings must be set")
	}
	t.strPool = poolS != nil
	poolLen := len(poolI)
	if t.strPool {
		poolLen = len(poolS)
	}
	t.column = map[string]int{}
	t.weightOf = map[string]int{}
	ord := 0
	for k, start := range counts {
		size := k + 1
		end := int64(poolLen)
		if k+1 < len(counts) {
			end = counts[k+1]
		}
		if start < 0 || end < start || end > int64(poolLen) || (end-start)%int64(size) != 0 {
			return nil, n.Errorf("ngram_counts %v do not partition a pool of %d items", counts, poolLen)
		}
		for p := int(start); p < int(end); p += size {
			var key []byte
			for q := p; q < p+size; q++ {
				if t.strPool {
					key = appendStr(key, poolS[q])
				} else {
					key = binary.LittleEndian.AppendUint64(key, uint64(poolI[q]))
				}
			}
			if ord >= len(indexes) {
				return nil, n.Errorf("ngram_indexes has %d entries, fewer than the pooled n-grams", len(indexes))
			}
			col := int(indexes[ord])
			if col < 0 {
				return nil, n.Errorf("negative ngram index %d", col)
			}
			t.column[string(key)] = col
			t.weightOf[string(key)] = ord
			t.width = max(t.width, col+1)
			ord++
		}
	}
	if t.weights != nil && len(t.weights) < ord {
		return nil, n.Errorf("weights has %d entries for %d n-grams", len(t.weights), ord)
	}
	return op.KernelFunc(t.run), nil
}

func appendStr(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}

func (t *tfidf) run(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if len(in) < 1 || in[0] == nil {
		return nil, op.Errorf("TfIdfVectorizer needs an input")
	}
	x := in[0]
	sh := x.Shape()
	var rows, cols int
	switch len(sh) {
	case 1:
		rows, cols = 1, sh[0]
	case 2:
		rows, cols = sh[0], sh[1]
	default:
		return nil, op.Errorf("TfIdfVectorizer input must be [C] or [N, C], got %v", sh)
	}
	// Encode every token once so n-gram keys are concatenations.
	tok := make([][]byte, x.Len())
	if x.DType() == tensor.String {
		if !t.strPool {
			return nil, op.Errorf("string input needs pool_strings")
		}
		for i, s := range x.Strings() {
			tok[i] = appendStr(nil, s)
		}
	} else {
		if t.strPool {
			return nil, op.Errorf("%s input needs pool_int64s", x.DType())
		}
		v, err := x.Int64s()
		if err != nil {
			return nil, op.Errorf("TfIdfVectorizer input must be strings or integers, got %s", x.DType())
		}
		for i, w := range v {
			tok[i] = binary.LittleEndian.AppendUint64(nil, uint64(w))
		}
	}
	oshape := []int{t.width}
	if len(sh) == 2 {
		oshape = []int{rows, t.width}
	}
	out := ctx.New(tensor.Float, oshape...)
	o := out.F32()
	counts := map[string]int{}
	var key []byte
	for r := 0; r < rows; r++ {
		clear(counts)
		row := tok[r*cols : (r+1)*cols]
		for size := t.minN; size <= t.maxN; size++ {
			// A unigram has no gaps, so skips would only count it again.
			skips := t.maxSkip
			if size == 1 {
				skips = 0
			}
			for s := 0; s <= skips; s++ {
				span := (size-1)*(s+1) + 1
				for i := 0; i+span <= cols; i++ {
					key = key[:0]
					for q := 0; q < size; q++ {
						key = append(key, row[i+q*(s+1)]...)
					}
					if _, ok := t.column[string(key)]; ok {
						counts[string(key)]++
					}
				}
			}
		}
		for k, c := range counts {
			w := float32(1)
			if t.weights != nil {
				w = t.weights[t.weightOf[k]]
			}
			v := float32(c)
			switch t.mode {
			case "IDF":
				v = w
			case "TFIDF":
				v = float32(c) * w
			}
			o[r*t.width+t.column[k]] = v
		}
	}
	return ctx.One(out), nil
}
