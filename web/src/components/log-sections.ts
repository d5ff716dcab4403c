/**
 * Foldable sections of a log, marked the way build tools already mark them:
 * - GitHub Actions' workflow commands `::group::Title` … `::endgroup::` (folded by default);
 * - GitLab's `section_start:<time>:<name>[collapsed=true]\r\e[0KTitle` … `section_end:<time>:<name>`
 *   (open unless `collapsed=true`), which may nest.
 */
export interface LogSection {
  /** The index of the line that opens it: shown as the section's header. */
  readonly start: number;
  /** The index of its last line (its end marker); grows while the section is still open. */
  end: number;
  /** False while no end marker was seen: a running section stays open. */
  closed: boolean;
  /** Its last line is its end marker (a `::group::` may also end where the next one starts). */
  marked: boolean;
  readonly title: string;
  /** Folded unless the person opened it. */
  readonly foldedByDefault: boolean;
  /** `group` sections never nest; GitLab's do. */
  readonly style: 'group' | 'gitlab';
  readonly name: string;
}

const ESC = String.fromCharCode(27);
const ERASE_LINE = `${ESC}[0K`;
const GITLAB_START = /^section_start:\d+:([^[\r\s]+)(\[[^\]]*\])?\r?(.*)$/;
const GITLAB_END = /^section_end:\d+:([^\r\s]+)/;

/**
 * Reads a growing log once: `update` scans only the lines added since the last call (a live log
 * grows by appending), so a million-line log costs one pass, not one per frame.
 */
export class SectionScanner {
  private scanned = 0;
  private source: readonly string[] | undefined;
  private open: LogSection[] = [];
  /** Every section, ordered by `start`. */
  sections: LogSection[] = [];
  /** Indices of the end-marker lines, which the page never shows. */
  readonly endMarkers = new Set<number>();

  /** Scans the new lines; a log that did not grow by appending is scanned from the start. */
  update(lines: readonly string[]): void {
    if (lines.length < this.scanned || (this.source !== undefined && lines[0] !== this.source[0])) {
      this.reset();
    }
    this.source = lines;
    for (let index = this.scanned; index < lines.length; index++) this.scan(lines[index] ?? '', index);
    this.scanned = lines.length;
    for (const section of this.open) section.end = lines.length - 1;
  }

  private reset(): void {
    this.scanned = 0;
    this.open = [];
    this.sections = [];
    this.endMarkers.clear();
  }

  private scan(raw: string, index: number): void {
    // Cheap tests first: nearly every line is neither marker.
    if (!raw.includes('::') && !raw.includes('section_')) return;
    const line = raw.startsWith(ERASE_LINE) ? raw.slice(ERASE_LINE.length) : raw;
    if (line.startsWith('::group::')) {
      this.closeGroups(index - 1, false);
      this.begin(
        { start: index, title: line.slice('::group::'.length).trim(), style: 'group', name: '' },
        true,
      );
    } else if (line.startsWith('::endgroup::')) {
      if (this.closeGroups(index, true)) this.endMarkers.add(index);
    } else if (line.startsWith('section_start:')) {
      const match = GITLAB_START.exec(line);
      if (match === null) return;
      const [, name = '', options = '', rest = ''] = match;
      const title = rest.startsWith(ERASE_LINE) ? rest.slice(ERASE_LINE.length) : rest;
      const folded = /collapsed=true/.test(options);
      this.begin({ start: index, title: title.trim() || name, style: 'gitlab', name }, folded);
    } else if (line.startsWith('section_end:')) {
      const name = GITLAB_END.exec(line)?.[1];
      const at = this.open.findLastIndex((section) => section.style === 'gitlab' && section.name === name);
      if (at < 0) return;
      // Sections opened inside it and never ended end with it.
      for (const section of this.open.splice(at)) this.close(section, index, true);
      this.endMarkers.add(index);
    }
  }

  private begin(
    fields: Pick<LogSection, 'start' | 'title' | 'style' | 'name'>,
    foldedByDefault: boolean,
  ): void {
    const section: LogSection = {
      ...fields,
      end: fields.start,
      closed: false,
      marked: false,
      foldedByDefault,
    };
    this.sections.push(section);
    this.open.push(section);
  }

  /** Ends the open `::group::` (there is at most one); true when there was one. */
  private closeGroups(end: number, marked: boolean): boolean {
    const at = this.open.findIndex((section) => section.style === 'group');
    if (at < 0) return false;
    for (const section of this.open.splice(at)) this.close(section, end, marked);
    return true;
  }

  private close(section: LogSection, end: number, marked: boolean): void {
    section.end = Math.max(section.start, end);
    section.closed = true;
    section.marked = marked && end === section.end;
  }
}

/** Whether a section is folded now: the person's choice, else its default once it has ended. */
export function isFolded(section: LogSection, choices: ReadonlyMap<number, boolean>): boolean {
  return choices.get(section.start) ?? (section.closed && section.foldedByDefault);
}

/**
 * The lines the page shows, as indices into the log, in order: a folded section shows only its
 * header, end markers never show. Null when every line shows (no section: nothing to map).
 */
export function visibleLines(
  count: number,
  scanner: Pick<SectionScanner, 'sections' | 'endMarkers'>,
  choices: ReadonlyMap<number, boolean>,
): Int32Array | null {
  if (scanner.sections.length === 0) return null;
  const shown = new Int32Array(count);
  let size = 0;
  let next = 0;
  for (let index = 0; index < count; index++) {
    while (next < scanner.sections.length && (scanner.sections[next]?.start ?? count) < index) next++;
    const section = scanner.sections[next];
    if (section !== undefined && section.start === index && isFolded(section, choices)) {
      shown[size++] = index;
      index = section.end;
      continue;
    }
    if (!scanner.endMarkers.has(index)) shown[size++] = index;
  }
  return shown.subarray(0, size);
}

/** The row of line `index` among the shown lines (binary search); -1 when it is hidden. */
export function rowOf(shown: Int32Array | null, index: number): number {
  if (shown === null) return index;
  let low = 0;
  let high = shown.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const value = shown[middle] ?? 0;
    if (value === index) return middle;
    if (value < index) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/** The sections that contain line `index` (outermost first): the ones to open to show it. */
export function sectionsAround(sections: readonly LogSection[], index: number): LogSection[] {
  return sections.filter((section) => section.start < index && index <= section.end);
}
