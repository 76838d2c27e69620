// Package training implements the optimiser update rules of the
// ai.onnx.preview.training domain (Adagrad, Adam, Momentum), so exported
// training steps can run for on-device fine-tuning. Each op updates any
// number of tensors at once: inputs are R, T, then the per-tensor groups.
package training
