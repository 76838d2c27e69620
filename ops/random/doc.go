// Package random implements the ONNX random generators: RandomUniform,
// RandomNormal, their *Like variants, Bernoulli and Multinomial.
//
// Each node owns one generator, created when the model loads: seeded from
// the node's seed attribute when it has one (so a fresh session replays the
// same sequence) and from the OS otherwise. Successive runs continue the
// stream, as onnxruntime's kernels do. The values cannot match other
// runtimes' generators; only the distributions do.
package random
