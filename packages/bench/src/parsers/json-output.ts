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

/**
 * Where V8's "Unexpected token 'x', ...\"<10 characters> x <10 characters>\"... is not valid JSON" happened:
 * it gives no position but quotes the place, which is found in the output (null when it is not).
 */
function tokenPosition(output: string, msg: string): number | null {
  const m = /^Unexpected token '(.)', (\.\.\.)?"/.exec(msg);
  if (!m) return null;
  let quoted = msg.endsWith(' is not valid JSON') ? msg.slice(m[0].length, -' is not valid JSON'.length) : '';
  if (quoted.endsWith('...')) quoted = quoted.slice(0, -3);
  const snippet = quoted.endsWith('"') ? quoted.slice(0, -1) : '';
  const at = snippet ? output.indexOf(snippet) : -1;
  if (at < 0) return null;
  const offset = m[2] ? 10 : snippet.lastIndexOf(m[1], 10);
  return offset < 0 ? null : at + offset;
}

/** No tool nests its JSON this deep; a deeper document is refused before JSON.parse spends time on it. */
const MAX_DEPTH = 64;

/** Refuses JSON nested deeper than MAX_DEPTH, naming the line (one pass; brackets in strings do not count). */
function checkDepth(output: string, format: TFormat, what: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < output.length; i++) {
    const c = output.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > MAX_DEPTH) {
        const at = lineAt(output, i);
        throw new ParseError(
          `${format}: JSON nested deeper than ${MAX_DEPTH} levels at line ${at.line}, column ${at.column}`,
          `${what} that is not valid JSON`,
          format,
        );
      }
    } else if (c === 93 || c === 125) depth--;
  }
}

/** JSON.parse of a tool's JSON output; a syntax error names the line (and a truncated file says so). */
export function parseJsonOutput(output: string, format: TFormat, what: string): unknown {
  checkDepth(output, format, what);
  try {
    return JSON.parse(output);
  } catch (e) {
    const msg = (e as Error).message;
    const given = /at position (\d+)/.exec(msg);
    const pos = given ? Number(given[1]) : tokenPosition(output, msg);
    // An error at the very end is a file that stops early (a run cut off while writing it).
    const truncated =
      /end of (JSON|data) input|Unterminated/i.test(msg) || (pos !== null && pos >= output.trimEnd().length);
    const at = pos !== null ? lineAt(output, pos) : truncated ? lineAt(output, output.length) : null;
    throw new ParseError(
      `${format}: invalid JSON${at ? ` at line ${at.line}, column ${at.column}` : ''}${truncated ? ' (the file ends early: truncated output?)' : ''}: ${msg.slice(0, 200).replace(/\r?\n/g, '\\n')}`,
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
