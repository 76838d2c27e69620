package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gort-dev/gort/runtime"
)

func cmdBench(e *env, args []string) int {
	f := newFlags(e, "bench", "model.onnx", "Times loading the model and running it: warm-up runs first, then timed runs; reports the\nminimum, median, mean and maximum run time.")
	d := addDataFlags(f, false)
	runs := f.Int("runs", 10, "timed runs")
	warmup := f.Int("warmup", 1, "untimed warm-up runs")
	pos, code, ok := f.parse(args, 1)
	if !ok {
		return code
	}
	if *runs < 1 || *warmup < 0 {
		fmt.Fprintln(e.err, "gort bench: --runs must be ≥ 1 and --warmup ≥ 0")
		return exitUsage
	}
	s, loadTime, code := e.load(pos[0], runtime.OptimizeAll)
	if s == nil {
		return code
	}
	feeds, notes, err := d.feeds(s)
	if err != nil {
		fmt.Fprintf(e.err, "gort: %v\n", err)
		return exitUsage
	}
	var times []time.Duration
	for i := 0; i < *warmup+*runs; i++ {
		if e.progress {
			fmt.Fprintf(e.err, "\r  run %d/%d", i+1, *warmup+*runs)
		}
		t0 := time.Now()
		if _, err := s.Run(context.Background(), feeds); err != nil {
			e.endProgress()
			fmt.Fprintf(e.err, "gort: %v\n", err)
			return exitFailed
		}
		if i >= *warmup {
			times = append(times, time.Since(t0))
		}
	}
	e.endProgress()
	slices.Sort(times)
	var sum time.Duration
	for _, t := range times {
		sum += t
	}
	mean := sum / time.Duration(len(times))
	median := times[len(times)/2]
	if len(times)%2 == 0 {
		median = (times[len(times)/2-1] + times[len(times)/2]) / 2
	}
	if *f.json {
		e.writeJSON(map[string]any{"model": pos[0], "loadMs": ms(loadTime), "runs": len(times), "warmup": *warmup,
			"minMs": ms(times[0]), "medianMs": ms(median), "meanMs": ms(mean), "maxMs": ms(times[len(times)-1]), "inputs": notes})
		return exitOK
	}
	for _, n := range notes {
		fmt.Fprintln(e.out, n)
	}
	fmt.Fprintf(e.out, "%s: load %v; %d runs after %d warm-up: min %v, median %v, mean %v, max %v\n", pos[0],
		loadTime.Round(time.Microsecond), len(times), *warmup, times[0].Round(time.Microsecond), median.Round(time.Microsecond),
		mean.Round(time.Microsecond), times[len(times)-1].Round(time.Microsecond))
	return exitOK
}
