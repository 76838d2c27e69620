package text

import (
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

func strs(shape []int, v ...string) *tensor.Tensor { return tensor.Of(shape, v) }

func TestStringConcat(t *testing.T) {
	got := optest.MustRun(t, optest.Call{Op: "StringConcat", Opset: 20, In: []*tensor.Tensor{strs([]int{2, 1}, "a", "bé"), strs([]int{3}, "x", "", "z")}})
	optest.Expect(t, "broadcast", got[0], strs([]int{2, 3}, "ax", "a", "az", "béx", "bé", "béz"))
}

func TestStringSplit(t *testing.T) {
	cases := []struct {
		name      string
		at        optest.A
		in        []string
		width     int
		want      []string
		wantCount []int64
	}{
		{"delimiter keeps empties", optest.A{"delimiter": ","}, []string{"a,,b", "", "c"}, 3,
			[]string{"a", "", "b", "", "", "", "c", "", ""}, []int64{3, 1, 1}},
		{"whitespace", optest.A{}, []string{"  a  b ", "c"}, 2, []string{"a", "b", "c", ""}, []int64{2, 1}},
		{"maxsplit whitespace", optest.A{"maxsplit": 1}, []string{" a b  c "}, 2, []string{"a", "b  c"}, []int64{2}},
		{"maxsplit delimiter", optest.A{"delimiter": "--", "maxsplit": 1}, []string{"a--b--c"}, 2, []string{"a", "b--c"}, []int64{2}},
	}
	for _, c := range cases {
		got := optest.MustRun(t, optest.Call{Op: "StringSplit", Opset: 20, Attrs: c.at, NOut: 2, In: []*tensor.Tensor{strs([]int{len(c.in)}, c.in...)}})
		optest.Expect(t, c.name, got[0], strs([]int{len(c.in), c.width}, c.want...))
		optest.Expect(t, c.name+" counts", got[1], tensor.Of([]int{len(c.in)}, c.wantCount))
	}
}

func TestStringNormalizer(t *testing.T) {
	in := strs([]int{1, 4}, "Monday", "tuesday", "MONDAY", "Éclair")
	cases := []struct {
		name string
		at   optest.A
		want *tensor.Tensor
	}{
		{"insensitive upper", optest.A{"case_change_action": "UPPER", "stopwords": []string{"monday"}}, strs([]int{1, 2}, "TUESDAY", "ÉCLAIR")},
		{"sensitive lower", optest.A{"case_change_action": "LOWER", "is_case_sensitive": 1, "stopwords": []string{"monday"}}, strs([]int{1, 4}, "monday", "tuesday", "monday", "éclair")},
		{"all removed", optest.A{"stopwords": []string{"monday", "tuesday", "éclair"}}, strs([]int{1, 1}, "")},
	}
	for _, c := range cases {
		got := optest.MustRun(t, optest.Call{Op: "StringNormalizer", Opset: 10, Attrs: c.at, In: []*tensor.Tensor{in}})
		optest.Expect(t, c.name, got[0], c.want)
	}
}

func TestRegexFullMatch(t *testing.T) {
	got := optest.MustRun(t, optest.Call{Op: "RegexFullMatch", Opset: 20, Attrs: optest.A{"pattern": `a|b+`}, In: []*tensor.Tensor{strs([]int{2, 2}, "a", "bbb", "ab", "")}})
	// "ab" only matches a search, not a full match.
	optest.Expect(t, "full match", got[0], tensor.Of([]int{2, 2}, []bool{true, true, false, false}))
}

// TestTfIdf counts uni- and bigrams (with skips) over two rows, by hand.
func TestTfIdf(t *testing.T) {
	x := tensor.Of([]int{2, 5}, []int64{1, 2, 1, 2, 3, 3, 1, 9, 2, 1})
	at := optest.A{
		"min_gram_length": 1, "max_gram_length": 2, "max_skip_count": 1,
		"ngram_counts":  []int64{0, 2},
		"ngram_indexes": []int64{3, 0, 1, 2}, // unigram 1, unigram 3, bigram (1,2), bigram (2,1)
		"pool_int64s":   []int64{1, 3, 1, 2, 2, 1},
		"weights":       []float32{0.5, 2, 3, 4},
	}
	// Row 0 [1 2 1 2 3]: 1×2, 3×1; (1,2) adjacent at 0,2 plus skip-1 none (1,_,1),(2,_,2),(1,_,3) → 2;
	// (2,1) adjacent at 1 → 1, skip-1 none.
	// Row 1 [3 1 9 2 1]: 1×2, 3×1; (1,2) skip-1 at 1→3 → 1; (2,1) adjacent at 3 → 1.
	cases := []struct {
		mode string
		want []float32
	}{
		{"TF", []float32{1, 2, 1, 2, 1, 1, 1, 2}},
		{"IDF", []float32{2, 3, 4, 0.5, 2, 3, 4, 0.5}},
		{"TFIDF", []float32{2, 6, 4, 1, 2, 3, 4, 1}},
	}
	for _, c := range cases {
		at["mode"] = c.mode
		got := optest.MustRun(t, optest.Call{Op: "TfIdfVectorizer", Opset: 9, Attrs: at, In: []*tensor.Tensor{x}})
		optest.Expect(t, c.mode, got[0], tensor.Of([]int{2, 4}, c.want))
	}
}
