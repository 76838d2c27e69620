// Package elementwise implements ONNX operators for elementwise math: arithmetic, comparison, logic, unary functions, activations, Cast, Softmax.
package elementwise
