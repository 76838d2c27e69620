package text

import (
	"testing"

	"github.com/gort-dev/gort/runtime/tensor"
)

func strs(shape []int, v ...string) *tensor.Tensor { return tensor.Of(shape, v) }

func TestStringConcat(t *testing.T) {
	got := mustRun(t, call{op: "StringConcat", opset: 20, in: []*tensor.Tensor{strs([]int{2, 1}, "a", "bé"), strs([]int{3}, "x", "", "z")}})
	expect(t, "broadcast", got[0], strs([]int{2, 3}, "ax", "a", "az", "béx", "bé", "béz"))
}

func TestStringSplit(t *testing.T) {
	cases := []struct {
		name      string
		at        A
		in        []string
		width     int
		want      []string
		wantCount []int64
	}{
		{"delimiter keeps empties", A{"delimiter": ","}, []string{"a,,b", "", "c"}, 3,
			[]string{"a", "", "b", "", "", "", "c", "", ""}, []int64{3, 1, 1}},
		{"whitespace", A{}, []string{"  a  b ", "c"}, 2, []string{"a", "b", "c", ""}, []int64{2, 1}},
		{"maxsplit whitespace", A{"maxsplit": 1}, []string{" a b  c "}, 2, []string{"a", "b  c"}, []int64{2}},
		{"maxsplit delimiter", A{"delimiter": "--", "maxsplit": 1}, []string{"a--b--c"}, 2, []string{"a", "b--c"}, []int64{2}},
	}
	for _, c := range cases {
		got := mustRun(t, call{op: "StringSplit", opset: 20, attrs: c.at, nOut: 2, in: []*tensor.Tensor{strs([]int{len(c.in)}, c.in...)}})
		expect(t, c.name, got[0], strs([]int{len(c.in), c.width}, c.want...))
		expect(t, c.name+" counts", got[1], tensor.Of([]int{len(c.in)}, c.wantCount))
	}
}

func TestStringNormalizer(t *testing.T) {
	in := strs([]int{1, 4}, "Monday", "tuesday", "MONDAY", "Éclair")
	cases := []struct {
		name string
		at   A
		want *tensor.Tensor
	}{
		{"insensitive upper", A{"case_change_action": "UPPER", "stopwords": []string{"monday"}}, strs([]int{1, 2}, "TUESDAY", "ÉCLAIR")},
		{"sensitive lower", A{"case_change_action": "LOWER", "is_case_sensitive": 1, "stopwords": []string{"monday"}}, strs([]int{1, 4}, "monday", "tuesday", "monday", "éclair")},
		{"all removed", A{"stopwords": []string{"monday", "tuesday", "éclair"}}, strs([]int{1, 1}, "")},
	}
	for _, c := range cases {
		got := mustRun(t, call{op: "StringNormalizer", opset: 10, attrs: c.at, in: []*tensor.Tensor{in}})
		expect(t, c.name, got[0], c.want)
	}
}

func TestRegexFullMatch(t *testing.T) {
	got := mustRun(t, call{op: "RegexFullMatch", opset: 20, attrs: A{"pattern": `a|b+`}, in: []*tensor.Tensor{strs([]int{2, 2}, "a", "bbb", "ab", "")}})
	// "ab" only matches a search, not a full match.
	expect(t, "full match", got[0], tensor.Of([]int{2, 2}, []bool{true, true, false, false}))
}

// TestTfIdf counts uni- and bigrams (with skips) over two rows, by hand.
func TestTfIdf(t *testing.T) {
	x := tensor.Of([]int{2, 5}, []int64{1, 2, 1, 2, 3, 3, 1, 9, 2, 1})
	at := A{
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
		got := mustRun(t, call{op: "TfIdfVectorizer", opset: 9, attrs: at, in: []*tensor.Tensor{x}})
		expect(t, c.mode, got[0], tensor.Of([]int{2, 4}, c.want))
	}
}
