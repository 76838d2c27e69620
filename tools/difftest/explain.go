package main

import "github.com/gort-dev/gort/runtime/tensor"

// deviations names each explained difference with onnxruntime.
var deviations = map[string]string{}

func explain(c *Case, got, want []*tensor.Tensor) string { return "" }

func explainRefusal(c *Case, ortErr string) string { return "" }
