// Package loss implements the ONNX loss operators (NegativeLogLikelihoodLoss,
// SoftmaxCrossEntropyLoss) that training-exported graphs carry into inference.
package loss
