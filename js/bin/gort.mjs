#!/usr/bin/env node
// gort's Node command line (`npx gort`): the native CLI, cmd/gort of the Go
// module, compiled for GOOS=js as dist/gort-cli.wasm (js/build.sh), apart
// from the gort.wasm pages load. This file only starts it: Node's fs,
// process and path as the globals Go's wasm runtime reads files and
// stdout/stderr through (as Go's own wasm_exec_node.js sets them), the
// arguments as its argv, and Go's exit code as the process's.
// `gort --help` lists the verbs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
globalThis.fs = fs;
globalThis.path = path;
globalThis.process = process;
await import(pathToFileURL(path.join(dist, 'wasm_exec.js')).href); // defines globalThis.Go
const go = new globalThis.Go();
go.argv = ['gort', ...process.argv.slice(2)];
go.env = { ...process.env };
let code = 0;
go.exit = (c) => { code = c; };
const { instance } = await WebAssembly.instantiate(fs.readFileSync(path.join(dist, 'gort-cli.wasm')), go.importObject);
await go.run(instance);
process.exit(code);
