// Package spatial implements ONNX operators over N-d image-like tensors
// that the convolution and pooling packages do not cover: Col2Im (the
// inverse of im2col), MaxUnpool (the inverse of MaxPool with indices) and
// DeformConv (convolution sampling at learned offsets) and MaxRoiPool.
package spatial
