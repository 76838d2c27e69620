// A verb's options, parsed and described as Go's flag package does for the
// native CLI (cmd/gort/flags.go), so that both CLIs accept the same command
// lines, print the same --help and fail the same way (exit code 2):
// -name or --name, -name=value or -name value, booleans without a value,
// flags before or after the model path, and "usage: gort VERB ARGS
// [options]" with flag.PrintDefaults's layout.
import { formatGShortest } from './gocompat.mjs';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** A usage error: the message (if any) and the usage go to stderr, exit code 2. */
export class UsageError extends Error {}

// Go's flag type names as PrintDefaults shows them ("" for booleans).
const TYPE_NAMES = { bool: '', string: 'string', int: 'int', float: 'float', multi: 'value' };

export class Flags {
  constructor(io, name, args, summary) {
    Object.assign(this, { io, name, args, summary });
    this.defs = new Map();
    this.values = {};
    this.bool('json', false, 'write the result as JSON');
  }

  define(type, name, def, usage) {
    this.defs.set(name, { type, name, def, usage });
    this.values[name] = type === 'multi' ? [] : def;
    return this;
  }

  bool(name, def, usage) { return this.define('bool', name, def, usage); }
  string(name, def, usage) { return this.define('string', name, def, usage); }
  int(name, def, usage) { return this.define('int', name, def, usage); }
  float(name, def, usage) { return this.define('float', name, def, usage); }
  multi(name, usage) { return this.define('multi', name, undefined, usage); }

  usage() {
    let s = `usage: gort ${this.name} ${this.args} [options]\n\n${this.summary}\n\noptions:\n`;
    for (const d of [...this.defs.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      let line = `  -${d.name}`;
      if (TYPE_NAMES[d.type]) line += ` ${TYPE_NAMES[d.type]}`;
      line += line.length <= 4 ? '\t' : '\n    \t';
      line += d.usage.replaceAll('\n', '\n    \t');
      const zero = d.def === undefined || d.def === false || d.def === '' || d.def === 0;
      if (!zero) line += d.type === 'string' ? ` (default "${d.def}")` : ` (default ${d.type === 'float' ? formatGShortest(d.def) : d.def})`;
      s += `${line}\n`;
    }
    return s;
  }

  set(d, raw) {
    switch (d.type) {
      case 'bool':
        if (!['1', '0', 't', 'f', 'T', 'F', 'true', 'false', 'TRUE', 'FALSE', 'True', 'False'].includes(raw)) throw this.fail(`invalid boolean value "${raw}" for -${d.name}: parse error`);
        this.values[d.name] = /^(1|t|true)$/i.test(raw);
        break;
      case 'int': {
        if (!/^[+-]?(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO]?[0-7_]*|[1-9][0-9_]*)$/.test(raw)) throw this.fail(`invalid value "${raw}" for flag -${d.name}: parse error`);
        this.values[d.name] = Number(raw.replaceAll('_', ''));
        break;
      }
      case 'float': {
        const x = /^[+-]?(inf|infinity)$/i.test(raw) ? (raw.startsWith('-') ? -Infinity : Infinity) : /^nan$/i.test(raw) ? NaN : Number(raw);
        if (raw.trim() !== raw || raw === '' || (Number.isNaN(x) && !/^nan$/i.test(raw))) throw this.fail(`invalid value "${raw}" for flag -${d.name}: parse error`);
        this.values[d.name] = x;
        break;
      }
      case 'multi': this.values[d.name].push(raw); break;
      default: this.values[d.name] = raw;
    }
  }

  fail(msg) {
    return new UsageError(`${msg}\n${this.usage()}`);
  }

  /**
   * Parses args; returns the positional arguments, or null after --help
   * (usage printed on stdout). Throws UsageError on a bad command line.
   */
  parse(args, npos) {
    if (args.some((a) => a === '-h' || a === '-help' || a === '--help')) {
      this.io.out(this.usage());
      return null;
    }
    const pos = [];
    let onlyPos = false;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (onlyPos || a.length < 2 || a[0] !== '-') { pos.push(a); continue; }
      if (a === '--') { onlyPos = true; continue; }
      let name = a.slice(a[1] === '-' ? 2 : 1);
      if (name.length === 0 || name[0] === '-' || name[0] === '=') throw this.fail(`bad flag syntax: ${a}`);
      let value;
      const eq = name.indexOf('=');
      if (eq >= 0) { value = name.slice(eq + 1); name = name.slice(0, eq); }
      const d = this.defs.get(name);
      if (!d) throw this.fail(`flag provided but not defined: -${name}`);
      if (d.type === 'bool') {
        this.set(d, value === undefined ? 'true' : value);
        continue;
      }
      if (value === undefined) {
        if (i + 1 >= args.length) throw this.fail(`flag needs an argument: -${name}`);
        value = args[++i];
      }
      this.set(d, value);
    }
    if (pos.length !== npos) throw new UsageError(`gort ${this.name}: expected ${npos} argument(s), got ${pos.length} (${pos.join(' ')})\n${this.usage()}`);
    return pos;
  }
}
