import { GoStruct, GoTime, isMap, sortedKeys, type GoValue } from './values.js';
import { formatGoTime } from './time.js';

/** text/template's HTMLEscapeString (the `html` function). */
export function templateHtmlEscape(text: string): string {
  return text.replace(/[<>&'"\0]/g, (c) => HTML_TEMPLATE[c] ?? c);
}

const HTML_TEMPLATE: Readonly<Record<string, string>> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  "'": '&#39;',
  '"': '&#34;',
  '\0': '\uFFFD',
};

/** Go's html.EscapeString (drone/funcmap's htmlEscape). */
export function htmlEscape(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => HTML_TEMPLATE[c] ?? c);
}

const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

/** Go's html.UnescapeString for numeric references and the common named ones. */
export function htmlUnescape(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[A-Za-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = /^#[xX]/.test(ref) ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\uFFFD';
    }
    return ENTITIES[ref] ?? whole;
  });
}

/** text/template's JSEscapeString (the `js` function). */
export function jsEscape(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\\' || char === "'" || char === '"') out += `\\${char}`;
    else if ('<>&='.includes(char) || code < 0x20)
      out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += char;
  }
  return out;
}

/** Go's url.QueryEscape: a space is `+`, everything but letters, digits and `-_.~` is %-escaped. */
export function queryEscape(text: string): string {
  return encodeURIComponent(text)
    .replace(/%20/g, '+')
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Go's json.Marshal of a value: keys sorted, structs by their JSON names (omitempty honoured),
 * `<`, `>`, `&`, U+2028 and U+2029 escaped, times in RFC 3339.
 */
export function goJson(value: GoValue): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return jsonString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((item: GoValue) => goJson(item)).join(',')}]`;
  if (value instanceof GoTime)
    return jsonString(formatGoTime(value.ms, '2006-01-02T15:04:05.999999999Z07:00'));
  if (value instanceof GoStruct) {
    const fields = value.fields.filter((field) => !(field.omitEmpty === true && isEmpty(field.value)));
    return `{${fields.map((field) => `${jsonString(field.json)}:${goJson(field.value)}`).join(',')}}`;
  }
  if (!isMap(value)) return 'null';
  return `{${sortedKeys(value)
    .map((key) => `${jsonString(key)}:${goJson(value[key])}`)
    .join(',')}}`;
}

function jsonString(text: string): string {
  return JSON.stringify(text).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function isEmpty(value: GoValue): boolean {
  if (value === undefined || value === null || value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isMap(value) && Object.keys(value).length === 0;
}
