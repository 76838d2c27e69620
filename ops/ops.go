package ops

import (
	_ "github.com/gort-dev/gort/ops/attention"
	_ "github.com/gort-dev/gort/ops/contrib"
	_ "github.com/gort-dev/gort/ops/control"
	_ "github.com/gort-dev/gort/ops/elementwise"
	_ "github.com/gort-dev/gort/ops/image"
	_ "github.com/gort-dev/gort/ops/kvcache"
	_ "github.com/gort-dev/gort/ops/loss"
	_ "github.com/gort-dev/gort/ops/ml"
	_ "github.com/gort-dev/gort/ops/nn"
	_ "github.com/gort-dev/gort/ops/numeric"
	_ "github.com/gort-dev/gort/ops/random"
	_ "github.com/gort-dev/gort/ops/resample"
	_ "github.com/gort-dev/gort/ops/rnn"
	_ "github.com/gort-dev/gort/ops/signal"
	_ "github.com/gort-dev/gort/ops/spatial"
	_ "github.com/gort-dev/gort/ops/tensorops"
	_ "github.com/gort-dev/gort/ops/text"
	_ "github.com/gort-dev/gort/ops/training"
)
