// Package control implements ONNX operators for control flow and non-tensor values: If, Loop, Scan, sequences, optionals.
package control
