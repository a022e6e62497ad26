import type { TFormat } from '@clusterscope/schema';
import { ParseError } from '../errors';

/** Line and column of character `pos` in `text` (1-based). */
function lineAt(text: string, pos: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < pos; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: pos - start + 1 };
}

/** JSON.parse of a tool's JSON output; a syntax error names the line (and a truncated file says so). */
export function parseJsonOutput(output: string, format: TFormat, what: string): unknown {
  try {
    return JSON.parse(output);
  } catch (e) {
    const msg = (e as Error).message;
    const pos = /at position (\d+)/.exec(msg);
    const at = pos ? lineAt(output, Number(pos[1])) : lineAt(output, output.length);
    // An error at the very end is a file that stops early (a run cut off while writing it).
    const truncated =
      /end of (JSON|data) input|Unterminated/i.test(msg) || !pos || Number(pos[1]) >= output.trimEnd().length;
    throw new ParseError(
      `${format}: invalid JSON at line ${at.line}, column ${at.column}${truncated ? ' (the file ends early: truncated output?)' : ''}: ${msg.slice(0, 200)}`,
      `${what} that is not valid JSON`,
      format,
    );
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export { isObject };

/** `name.base` within the 128 characters a metric name may have (the base, which gives unit and direction, kept). */
export function metricName(name: string, base: string): string {
  const room = 128 - base.length - 1;
  return `${name.length > room ? name.slice(0, room) : name}.${base}`;
}
