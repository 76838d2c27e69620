// Package text implements the ONNX string operators: StringConcat,
// StringNormalizer, StringSplit, RegexFullMatch and TfIdfVectorizer (n-gram
// counting over token ids or strings).
package text
