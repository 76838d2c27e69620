// Package tensorops implements ONNX operators for tensor manipulation: shapes, slicing, gathering, scattering, reductions, constants.
package tensorops
