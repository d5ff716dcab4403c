import { ConfigLanguageError } from '../types.js';

/** `file:line:col…` or `file:(line:col)-(line:col)` as libjsonnet prints locations. */
const LOCATION = /^(.+?):\(?(\d+):(\d+)/;
const SHOWN_FRAMES = 5;

/**
 * libjsonnet's message as svc reports it, its paths already made repository paths: the position
 * of the innermost frame, and a short trace of the callers.
 */
export function jsonnetErrorOf(message: string, entry: string): ConfigLanguageError {
  const lines = message.trimEnd().split('\n');
  const frames = lines.filter((line) => line.startsWith('\t')).map((line) => line.trim());
  const head = lines.filter((line) => !line.startsWith('\t')).join('\n');
  const isStatic = head.startsWith('STATIC ERROR: ');
  if (isStatic) {
    const rest = head.slice('STATIC ERROR: '.length);
    const at = LOCATION.exec(rest);
    if (at?.[1] !== undefined) {
      const detail = rest.slice(rest.indexOf(': ', at[0].length) + 2);
      return new ConfigLanguageError(at[1], detail, { line: Number(at[2]), column: Number(at[3]) });
    }
    return new ConfigLanguageError(entry, rest);
  }
  const detail = head.replace(/^RUNTIME ERROR: /, '');
  const innermost = LOCATION.exec(frames[0] ?? '');
  const trace = frames
    .slice(1, 1 + SHOWN_FRAMES)
    .filter((frame) => frame !== '...' && LOCATION.test(frame))
    .map((frame) => `\n  from ${frame.split('\t')[0] ?? frame}`)
    .join('');
  if (innermost?.[1] === undefined) return new ConfigLanguageError(entry, detail + trace);
  return new ConfigLanguageError(innermost[1], detail + trace, {
    line: Number(innermost[2]),
    column: Number(innermost[3]),
  });
}
