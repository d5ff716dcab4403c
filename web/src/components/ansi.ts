/** A run of text with one look: CSS classes for its ANSI colours and weight. */
export interface Segment {
  text: string;
  classes: string;
}

interface Pen {
  fg?: number;
  bg?: number;
  bold: boolean;
}

// Colour codes: 30–37 and 90–97 foreground, 40–47 and 100–107 background.
const ESC = String.fromCharCode(27);
const SGR = new RegExp(`${ESC}\\[([0-9;]*)m`, 'g');
// Other escape sequences (cursor moves, erase line) mean nothing in a log page.
const OTHER = new RegExp(`${ESC}\\[[0-9;?]*[A-Za-ln-z]`, 'g');

/**
 * Splits a line into segments by its ANSI SGR codes (the 16 colours, bold, reset), as terminals
 * show them; 256-colour and true-colour codes keep the default look. Classes, not inline styles:
 * the page's Content-Security-Policy allows no inline styles.
 */
export function ansiSegments(line: string): Segment[] {
  const text = line.replace(OTHER, '');
  const segments: Segment[] = [];
  let pen: Pen = { bold: false };
  let last = 0;
  for (const match of text.matchAll(SGR)) {
    if (match.index > last) segments.push({ text: text.slice(last, match.index), classes: classesOf(pen) });
    pen = apply(pen, match[1] ?? '');
    last = match.index + match[0].length;
  }
  if (last < text.length) segments.push({ text: text.slice(last), classes: classesOf(pen) });
  return segments;
}

function apply(pen: Pen, params: string): Pen {
  const codes = params === '' ? [0] : params.split(';').map(Number);
  let next = { ...pen };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i] ?? 0;
    if (code === 0) next = { bold: false };
    else if (code === 1) next.bold = true;
    else if (code === 22) next.bold = false;
    else if (code === 39) delete next.fg;
    else if (code === 49) delete next.bg;
    else if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97)) next.fg = code;
    else if ((code >= 40 && code <= 47) || (code >= 100 && code <= 107)) next.bg = code;
    else if (code === 38 || code === 48) i += codes[i + 1] === 5 ? 2 : 4; // skip 256/true colour
  }
  return next;
}

function classesOf(pen: Pen): string {
  return [
    pen.fg === undefined ? '' : `fg${pen.fg}`,
    pen.bg === undefined ? '' : `bg${pen.bg}`,
    pen.bold ? 'bold' : '',
  ]
    .filter(Boolean)
    .join(' ');
}
