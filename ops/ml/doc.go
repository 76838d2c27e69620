// Package ml implements operators of the ai.onnx.ml domain that classic
// machine-learning exporters (sklearn-onnx, onnxmltools) emit:
// ArrayFeatureExtractor, Binarizer, LabelEncoder and TreeEnsemble.
package ml

// Domain is the ONNX domain of these operators.
const Domain = "ai.onnx.ml"
