import { InvalidInputError } from '../core/errors.js';

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
/** The longest reference we look for a `;` in: `&#x10FFFF;` is 10 characters. */
const MAX_REFERENCE_LENGTH = 10;

/**
 * Replaces the five predefined entities and numeric character references in `raw`. Any other
 * `&name;` is refused: custom entities need a DTD, and DTDs are refused (billion laughs, XXE).
 * `fail(index, message)` turns an index into `raw` into a positioned error.
 */
export function decodeEntities(raw: string, fail: (index: number, message: string) => never): string {
  let amp = raw.indexOf('&');
  if (amp === -1) return raw;
  let out = '';
  let from = 0;
  while (amp !== -1) {
    out += raw.slice(from, amp);
    const semi = raw.indexOf(';', amp);
    if (semi === -1 || semi - amp > MAX_REFERENCE_LENGTH) {
      fail(amp, "expected an entity reference such as '&amp;' ('&' must be written '&amp;')");
    }
    out += resolve(raw.slice(amp + 1, semi), (message) => fail(amp, message));
    from = semi + 1;
    amp = raw.indexOf('&', from);
  }
  return out + raw.slice(from);
}

function resolve(name: string, fail: (message: string) => never): string {
  const predefined = PREDEFINED[name];
  if (predefined !== undefined) return predefined;
  if (name.startsWith('#')) {
    const hex = name.startsWith('#x');
    const digits = name.slice(hex ? 2 : 1);
    const valid = hex ? /^[0-9a-fA-F]+$/.test(digits) : /^[0-9]+$/.test(digits);
    const code = valid ? parseInt(digits, hex ? 16 : 10) : NaN;
    if (Number.isInteger(code) && code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)) {
      return String.fromCodePoint(code);
    }
    fail(`invalid character reference '&${name};'`);
  }
  fail(`unknown entity '&${name};': only &lt; &gt; &amp; &quot; &apos; and &#…; are allowed`);
}

/** Wraps a positioned message in the error the XML reader throws. */
export function xmlError(where: string, message: string): InvalidInputError {
  return new InvalidInputError(`XML ${where}: ${message}`);
}
