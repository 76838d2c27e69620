// Package signal implements the ONNX signal-processing operators: the
// discrete Fourier transform (DFT, STFT), the Hann, Hamming and Blackman
// windows, and MelWeightMatrix. Transforms are computed in float64 whatever
// the element type, so float16/float32 results are as accurate as their
// storage allows.
package signal
