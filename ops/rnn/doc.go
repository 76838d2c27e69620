// Package rnn implements the ONNX recurrent layers RNN, GRU and LSTM: one
// shared driver (layouts, directions, sequence lengths, initial states,
// activations, clipping) and one cell function per op.
package rnn
