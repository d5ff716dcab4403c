/* Go's time formatting by reference layout ("2006-01-02 15:04:05"), in UTC. */

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const pad = (value: number, width: number, fill = '0') => String(value).padStart(width, fill);

/** The layout's elements, longest first where one is a prefix of another (Go's nextStdChunk). */
const CHUNKS: readonly [string, (d: Date) => string][] = [
  ['January', (d) => MONTHS[d.getUTCMonth()] ?? ''],
  ['Jan', (d) => (MONTHS[d.getUTCMonth()] ?? '').slice(0, 3)],
  ['Monday', (d) => DAYS[d.getUTCDay()] ?? ''],
  ['Mon', (d) => (DAYS[d.getUTCDay()] ?? '').slice(0, 3)],
  ['MST', () => 'UTC'],
  ['2006', (d) => pad(d.getUTCFullYear(), 4)],
  ['002', (d) => pad(dayOfYear(d), 3)],
  ['__2', (d) => pad(dayOfYear(d), 3, ' ')],
  ['_2', (d) => pad(d.getUTCDate(), 2, ' ')],
  ['01', (d) => pad(d.getUTCMonth() + 1, 2)],
  ['02', (d) => pad(d.getUTCDate(), 2)],
  ['03', (d) => pad(hour12(d), 2)],
  ['04', (d) => pad(d.getUTCMinutes(), 2)],
  ['05', (d) => pad(d.getUTCSeconds(), 2)],
  ['06', (d) => pad(d.getUTCFullYear() % 100, 2)],
  ['15', (d) => pad(d.getUTCHours(), 2)],
  ['1', (d) => String(d.getUTCMonth() + 1)],
  ['2', (d) => String(d.getUTCDate())],
  ['3', (d) => String(hour12(d))],
  ['4', (d) => String(d.getUTCMinutes())],
  ['5', (d) => String(d.getUTCSeconds())],
  ['PM', (d) => (d.getUTCHours() >= 12 ? 'PM' : 'AM')],
  ['pm', (d) => (d.getUTCHours() >= 12 ? 'pm' : 'am')],
  ['-07:00:00', () => '+00:00:00'],
  ['-070000', () => '+000000'],
  ['-07:00', () => '+00:00'],
  ['-0700', () => '+0000'],
  ['-07', () => '+00'],
  ['Z07:00:00', () => 'Z'],
  ['Z070000', () => 'Z'],
  ['Z07:00', () => 'Z'],
  ['Z0700', () => 'Z'],
  ['Z07', () => 'Z'],
];

function hour12(d: Date): number {
  const hour = d.getUTCHours() % 12;
  return hour === 0 ? 12 : hour;
}

function dayOfYear(d: Date): number {
  return Math.floor((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
}

/** Formats epoch milliseconds with a Go layout, in UTC. */
export function formatGoTime(ms: number, layout: string): string {
  const date = new Date(ms);
  let out = '';
  let i = 0;
  while (i < layout.length) {
    const fraction = /^[.,](0+|9+)(?![0-9])/.exec(layout.slice(i));
    if (fraction !== null) {
      out += fractionOf(ms, layout[i] ?? '.', fraction[1] ?? '');
      i += fraction[0].length;
      continue;
    }
    const chunk = CHUNKS.find(([name]) => layout.startsWith(name, i) && !monthWord(layout, i, name));
    if (chunk === undefined) {
      out += layout[i];
      i++;
      continue;
    }
    out += chunk[1](date);
    i += chunk[0].length;
  }
  return out;
}

/** `Mon` in `Month` or `Jan` in `Janet` are not elements: Go requires a non-lowercase letter after. */
function monthWord(layout: string, i: number, name: string): boolean {
  if (name !== 'Jan' && name !== 'Mon') return false;
  return /[a-z]/.test(layout[i + name.length] ?? '');
}

/** `.000` (always that many digits) or `.999` (trailing zeros dropped, the dot too when all are). */
function fractionOf(ms: number, separator: string, digits: string): string {
  const nanos = String((((ms % 1000) + 1000) % 1000) * 1_000_000).padStart(9, '0');
  const shown = nanos.slice(0, Math.min(digits.length, 9)).padEnd(digits.length, '0');
  if (digits.startsWith('0')) return separator + shown;
  const trimmed = shown.replace(/0+$/, '');
  return trimmed === '' ? '' : separator + trimmed;
}

/** time.Time's String(): `2006-01-02 15:04:05.999999999 -0700 MST`, in UTC. */
export function goTimeString(ms: number): string {
  return formatGoTime(ms, '2006-01-02 15:04:05.999999999 -0700 MST');
}

/**
 * A date as drone/funcmap's `time` reads text: RFC 3339 (with or without a zone), a date alone,
 * `2006-01-02 15:04:05` with an optional numeric zone, and the RFC 1123/822/850 forms; undefined
 * when none fits.
 */
export function parseGoTime(text: string): number | undefined {
  const iso =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?: ?(Z|[+-]\d{2}:?\d{2}))?)?$/.exec(text);
  if (iso !== null) {
    const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone = 'Z'] = iso;
    const offset = zone === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
    const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${frac.slice(0, 4)}${offset}`);
    return Number.isNaN(ms) ? undefined : ms;
  }
  if (/^[A-Z][a-z]{2},? /.test(text) || /^\d{2} [A-Z][a-z]{2} \d{2,4}/.test(text)) {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}
