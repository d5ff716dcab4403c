import { useCallback, useMemo, useRef, useState } from 'preact/hooks';
import { isFolded, SectionScanner, sectionsAround, visibleLines, type LogSection } from './log-sections.js';

/** A log's foldable sections and what the page shows of it: what `LogView` needs to fold. */
export interface Folding {
  /** The shown lines' indices; null when every line shows. */
  readonly shown: Int32Array | null;
  /** The sections by the index of their header line. */
  readonly headers: ReadonlyMap<number, LogSection>;
  readonly sections: readonly LogSection[];
  readonly folded: (section: LogSection) => boolean;
  readonly toggle: (section: LogSection) => void;
  /** Opens every section, or folds every one. */
  readonly setAll: (folded: boolean) => void;
  /** Opens the sections that hide line `index` (a search hit, a linked line). */
  readonly reveal: (index: number) => void;
}

/** Folding for a log that may grow: sections are found as lines arrive, choices kept per section. */
export function useFolding(lines: readonly string[]): Folding {
  const scanner = useRef<SectionScanner>(undefined);
  scanner.current ??= new SectionScanner();
  const current = scanner.current;
  // Only the new lines are read: calling this on every render costs nothing when none arrived.
  current.update(lines);
  const [choices, setChoices] = useState<ReadonlyMap<number, boolean>>(new Map());
  const sections = current.sections;
  const shown = useMemo(
    () => visibleLines(lines.length, current, choices),
    [lines, choices, sections.length, current],
  );
  const headers = useMemo(
    () => new Map(sections.map((section) => [section.start, section])),
    // The array is the scanner's own, mutated in place: its length says when it changed.
    [sections, sections.length],
  );
  const folded = useCallback((section: LogSection) => isFolded(section, choices), [choices]);
  const toggle = useCallback(
    (section: LogSection) => setChoices((now) => new Map(now).set(section.start, !isFolded(section, now))),
    [],
  );
  const setAll = useCallback(
    (fold: boolean) => setChoices(new Map(current.sections.map((section) => [section.start, fold]))),
    [current],
  );
  const reveal = useCallback(
    (index: number) =>
      setChoices((now) => {
        const hiding = sectionsAround(current.sections, index).filter((section) => isFolded(section, now));
        if (hiding.length === 0) return now;
        const next = new Map(now);
        for (const section of hiding) next.set(section.start, false);
        return next;
      }),
    [current],
  );
  return { shown, headers, sections, folded, toggle, setAll, reveal };
}
