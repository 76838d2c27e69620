#!/usr/bin/env node
// gort's Node command line (`npx gort`), with the verbs, options, output
// and exit codes of the native CLI (cmd/gort):
//
//   gort check   model.onnx             every problem of the model, with stable codes
//   gort inspect model.onnx             inputs, outputs, opsets, ops, what gort cannot run
//   gort print   model.onnx             the graph with inferred types and shapes
//   gort run     model.onnx [inputs]    run on given or random inputs
//   gort compare model.onnx [inputs] --expected ...   compare outputs with expected ones
//   gort diverge model.onnx [inputs] --reference ...  the first node whose output differs
//   gort bench   model.onnx [inputs]    cold create, first run, median and p90 of N runs
//
// Every verb takes --help and --json. Exit codes: 0 ok, 1 the check or the
// comparison failed (or the run did), 2 usage error or unreadable input.
// Random inputs come from the native CLI's Go PCG stream, so both CLIs print
// the same lines for the same model (js/test/cli.test.mjs holds them to it).
// Colour only when stdout is a terminal (and NO_COLOR is unset); progress
// on stderr only when it is a terminal.
import { EXIT_OK, EXIT_FAILED, EXIT_USAGE, UsageError } from './flags.mjs';
import { CommandError } from './data.mjs';
import * as verbs from './verbs.mjs';

const VERBS = [
  ['check', 'check the model and list every finding (errors and warnings)', verbs.check],
  ['inspect', 'inputs, outputs, opsets, op counts, shape coverage and the nodes gort cannot run', verbs.inspect],
  ['info', 'same as inspect', verbs.inspect],
  ['print', 'print the graph with inferred types and shapes (text or --json)', verbs.print],
  ['run', 'run the model on given inputs (or random ones) and summarize the outputs', verbs.run],
  ['compare', 'run the model and compare its outputs with expected ones', verbs.compare],
  ['diverge', 'name the first node whose output differs from a reference', verbs.diverge],
  ['bench', 'load once, run N times: cold create, first run, median and p90', verbs.bench],
];

function usage() {
  let s = 'usage: gort <command> model.onnx [options]   (gort <command> --help for its options)\n\n';
  for (const [name, summary] of VERBS) s += `  ${name.padEnd(8)} ${summary}\n`;
  return `${s}\nExit codes: 0 ok, 1 check or comparison failed, 2 usage error or unreadable input.\n`;
}

async function main(args, io) {
  if (args.length === 0 || ['-h', '--help', 'help'].includes(args[0])) {
    io.out(usage());
    return args.length === 0 ? EXIT_USAGE : EXIT_OK;
  }
  const verb = VERBS.find(([name]) => name === args[0]);
  if (!verb) {
    io.err(`gort: unknown command ${JSON.stringify(args[0])}\n\n${usage()}`);
    return EXIT_USAGE;
  }
  try {
    return await verb[2](io, args.slice(1));
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`${e.message}`);
      return EXIT_USAGE;
    }
    if (e instanceof CommandError) {
      io.err(`gort: ${e.message}\n`);
      return e.exitCode;
    }
    io.err(`gort: ${e && e.message ? e.message : e}\n`);
    return EXIT_FAILED;
  }
}

// Exit once stdout and stderr have drained, so that a pipe gets
// everything.
const io = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  color: !!process.stdout.isTTY && !process.env.NO_COLOR,
  progress: !!process.stderr.isTTY,
};
const code = await main(process.argv.slice(2), io);
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
