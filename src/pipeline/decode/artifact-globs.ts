/**
 * Checks of the globs of artifacts (`paths`, `reports.junit`), which the runner matches with Node's
 * `path.matchesGlob` against the workspace's files, by their paths relative to the workspace.
 */

/** What is wrong with a glob of `paths` or `reports.junit`, if anything. */
export function globProblem(glob: string): string | undefined {
  const example = 'e.g. dist/**';
  if (glob.trim() === '') return `is empty; expected a glob of files in the workspace, ${example}`;
  if (glob.startsWith('~')) {
    return `"${glob}": ~ is not expanded; artifacts are taken from the workspace, so expected a glob relative to it, ${example}`;
  }
  if (glob.startsWith('/') || glob.startsWith('\\') || /^[A-Za-z]:/.test(glob)) {
    return `"${glob}" is absolute; artifacts are taken from the workspace, so expected a glob relative to it, ${example}`;
  }
  if (glob.split(/[/\\]/).includes('..')) {
    return `"${glob}" has a .. segment; artifacts are taken from the workspace, so expected a glob inside it, ${example}`;
  }
  const rest = withoutDotSlash(glob);
  if (rest === '' || rest === '.') {
    return `"${glob}" is the workspace itself; expected a glob of its files, e.g. ** for all of them or dist/**`;
  }
  // Alternatives multiply: four groups are 16 patterns to try on every file of the workspace.
  if (glob.length > 200 || (glob.match(/\{/g)?.length ?? 0) > 4) {
    return `"${glob.length > 60 ? `${glob.slice(0, 60)}…` : glob}" is too complex; expected at most 200 characters and 4 {…} groups, e.g. dist/*.{js,map}`;
  }
  switch (unclosed(glob)) {
    case '[':
      return `"${glob}" has a [ without a closing ]; expected a complete character class, e.g. build/*.[ch] (write \\[ for a [ in a name)`;
    case '{':
      return `"${glob}" has a { without a closing }; expected complete alternatives, e.g. dist/*.{js,map} (write \\{ for a { in a name)`;
    case undefined:
      return undefined;
  }
}

/** The first `[` or `{` that is never closed; `\` escapes the next character. */
function unclosed(glob: string): '[' | '{' | undefined {
  let braces = 0;
  for (let index = 0; index < glob.length; index++) {
    const char = glob.charAt(index);
    if (char === '\\') {
      index++;
    } else if (char === '[') {
      // `]` right after `[` (or `[!`, `[^`) is a member of the class, not its end.
      let end = index + 1;
      if (glob.charAt(end) === '!' || glob.charAt(end) === '^') end++;
      if (glob.charAt(end) === ']') end++;
      while (end < glob.length && glob.charAt(end) !== ']') end += glob.charAt(end) === '\\' ? 2 : 1;
      if (end >= glob.length) return '[';
      index = end;
    } else if (char === '{') {
      braces++;
    } else if (char === '}' && braces > 0) {
      braces--;
    }
  }
  return braces > 0 ? '{' : undefined;
}

/**
 * Without leading `./`: `path.matchesGlob` compares the glob with paths such as `dist/app`, which
 * `./dist/*` would never match.
 */
export function withoutDotSlash(glob: string): string {
  return glob.replace(/^(?:\.\/+)+/, '');
}

/** The glob for telling duplicates: `./a//b` and `a/b` are one. */
export function sameGlob(glob: string): string {
  return withoutDotSlash(glob).replace(/\/+/g, '/');
}
