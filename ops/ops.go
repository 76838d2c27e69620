package ops

import (
	_ "github.com/gort-dev/gort/ops/control"
	_ "github.com/gort-dev/gort/ops/elementwise"
	_ "github.com/gort-dev/gort/ops/nn"
	_ "github.com/gort-dev/gort/ops/resample"
	_ "github.com/gort-dev/gort/ops/rnn"
	_ "github.com/gort-dev/gort/ops/signal"
	_ "github.com/gort-dev/gort/ops/tensorops"
)
