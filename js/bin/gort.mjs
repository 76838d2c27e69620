#!/usr/bin/env node
// gort's Node command line (`npx gort`): the native CLI's code (package cli
// of the Go module, which cmd/gort runs natively), compiled into the
// package's gort.wasm. This file only starts it: gort.wasm with argv
// ["gort", "-cli", ...args] (wasm/main.go), Node's fs, process and path as
// the globals Go's wasm runtime reads files and stdout/stderr through (as Go's
// own wasm_exec_node.js sets them), and Go's exit code as the process's.
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
go.argv = ['gort', '-cli', ...process.argv.slice(2)];
go.env = { ...process.env };
let code = 0;
go.exit = (c) => { code = c; };
const { instance } = await WebAssembly.instantiate(fs.readFileSync(path.join(dist, 'gort.wasm')), go.importObject);
await go.run(instance);
process.exit(code);
