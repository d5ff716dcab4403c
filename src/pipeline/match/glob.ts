/**
 * Glob patterns as Drone matches conditions (its `doublestar` matcher): `*` and `?` stay within a
 * `/`-separated segment, `**` as a whole segment spans any number of segments (none included),
 * `[abc]`, `[a-z]`, `[!a]` / `[^a]` match one character, `{a,b}` either alternative, `\` escapes.
 * A pattern that cannot be read matches nothing, as in Drone.
 */
export function globMatch(pattern: string, value: string): boolean {
  const source = globToRegExp(pattern);
  if (source === undefined) return false;
  return source.test(value);
}

/** The regular expression a glob stands for; undefined when the pattern is malformed. */
export function globToRegExp(pattern: string): RegExp | undefined {
  const segments = splitSegments(pattern);
  let source = '';
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === '**') {
      if (index === 0) source += last ? '.*' : '(?:.*/)?';
      else source += last ? '(?:/.*)?' : '(?:/.*)?/';
      return;
    }
    const separator = index === 0 || segments[index - 1] === '**' ? '' : '/';
    source += separator + translateSegment(segment);
  });
  try {
    return new RegExp(`^${source}$`, 's');
  } catch {
    return undefined;
  }
}

/** Splits on `/` outside brackets and braces (an alternative may contain a slash). */
function splitSegments(pattern: string): string[] {
  const segments: string[] = [];
  let current = '';
  let braces = 0;
  let bracket = false;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern.charAt(index);
    if (char === '\\' && index + 1 < pattern.length) {
      current += char + pattern.charAt(++index);
      continue;
    }
    if (bracket) bracket = char !== ']';
    else if (char === '[') bracket = true;
    else if (char === '{') braces++;
    else if (char === '}' && braces > 0) braces--;
    else if (char === '/' && braces === 0) {
      segments.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  segments.push(current);
  return segments;
}

function translateSegment(segment: string): string {
  let out = '';
  let index = 0;
  while (index < segment.length) {
    const char = segment.charAt(index);
    if (char === '\\') {
      out += escapeRegExp(segment.charAt(index + 1));
      index += 2;
    } else if (char === '*') {
      while (segment.charAt(index) === '*') index++;
      out += '[^/]*';
    } else if (char === '?') {
      out += '[^/]';
      index++;
    } else if (char === '[') {
      const end = segment.indexOf(']', index + 2);
      if (end === -1) {
        out += '\\[';
        index++;
        continue;
      }
      let body = segment.slice(index + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      out += `[${negate ? '^/' : ''}${body.replace(/[\\\]]/g, '\\$&')}]`;
      index = end + 1;
    } else if (char === '{') {
      const end = closingBrace(segment, index);
      if (end === -1) {
        out += '\\{';
        index++;
        continue;
      }
      const alternatives = splitAlternatives(segment.slice(index + 1, end));
      out += `(?:${alternatives.map((alternative) => translateSegment(alternative)).join('|')})`;
      index = end + 1;
    } else {
      out += escapeRegExp(char);
      index++;
    }
  }
  return out;
}

function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    const char = text.charAt(index);
    if (char === '\\') index++;
    else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return index;
  }
  return -1;
}

function splitAlternatives(body: string): string[] {
  const alternatives: string[] = [];
  let current = '';
  let depth = 0;
  for (let index = 0; index < body.length; index++) {
    const char = body.charAt(index);
    if (char === '\\') {
      current += char + body.charAt(++index);
      continue;
    }
    if (char === '{') depth++;
    if (char === '}') depth--;
    if (char === ',' && depth === 0) {
      alternatives.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  alternatives.push(current);
  return alternatives;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
