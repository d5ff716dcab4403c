import { describe, expect, it } from 'vitest';
import { rowOf, SectionScanner, sectionsAround, visibleLines } from './log-sections.js';

const ESC = String.fromCharCode(27);

function scanned(lines: string[]): SectionScanner {
  const scanner = new SectionScanner();
  scanner.update(lines);
  return scanner;
}

describe('foldable log sections', () => {
  it('folds a finished ::group:: to its header and hides its end marker', () => {
    const lines = ['start', '::group::Install', 'a', 'b', '::endgroup::', 'after'];
    const scanner = scanned(lines);
    expect(scanner.sections).toEqual([
      expect.objectContaining({ start: 1, end: 4, title: 'Install', closed: true, marked: true }),
    ]);
    expect([...(visibleLines(lines.length, scanner, new Map()) ?? [])]).toEqual([0, 1, 5]);
    // Opened by the person: every line but the end marker.
    expect([...(visibleLines(lines.length, scanner, new Map([[1, false]])) ?? [])]).toEqual([0, 1, 2, 3, 5]);
  });

  it('keeps a running group open, and finds its end when the lines arrive later', () => {
    const scanner = new SectionScanner();
    const lines = ['::group::Build', 'compiling'];
    scanner.update(lines);
    expect(scanner.sections[0]).toMatchObject({ end: 1, closed: false });
    expect([...(visibleLines(lines.length, scanner, new Map()) ?? [])]).toEqual([0, 1]);
    const more = lines.concat(['linking', '::endgroup::', 'done']);
    scanner.update(more);
    expect(scanner.sections).toHaveLength(1);
    expect(scanner.sections[0]).toMatchObject({ end: 3, closed: true });
    expect([...(visibleLines(more.length, scanner, new Map()) ?? [])]).toEqual([0, 4]);
  });

  it('ends an open ::group:: where the next one starts (GitHub groups do not nest)', () => {
    const scanner = scanned(['::group::one', 'x', '::group::two', 'y', '::endgroup::']);
    expect(scanner.sections.map(({ start, end, marked }) => ({ start, end, marked }))).toEqual([
      { start: 0, end: 1, marked: false },
      { start: 2, end: 4, marked: true },
    ]);
  });

  it('reads GitLab sections: open unless collapsed=true, nested, titles after the erase code', () => {
    const lines = [
      `${ESC}[0Ksection_start:1700000000:outer\r${ESC}[0KPreparing`,
      'x',
      `${ESC}[0Ksection_start:1700000001:inner[collapsed=true]\r${ESC}[0KInner step`,
      'y',
      `${ESC}[0Ksection_end:1700000002:inner\r${ESC}[0K`,
      `${ESC}[0Ksection_end:1700000003:outer\r${ESC}[0K`,
      'z',
    ];
    const scanner = scanned(lines);
    expect(scanner.sections.map(({ title, start, end }) => ({ title, start, end }))).toEqual([
      { title: 'Preparing', start: 0, end: 5 },
      { title: 'Inner step', start: 2, end: 4 },
    ]);
    expect([...(visibleLines(lines.length, scanner, new Map()) ?? [])]).toEqual([0, 1, 2, 6]);
    expect([...(visibleLines(lines.length, scanner, new Map([[0, true]])) ?? [])]).toEqual([0, 6]);
    expect(sectionsAround(scanner.sections, 3).map((section) => section.title)).toEqual([
      'Preparing',
      'Inner step',
    ]);
  });

  it('maps nothing for a log without sections, and finds rows by binary search', () => {
    const scanner = scanned(['a :: b', 'section_ish']);
    expect(visibleLines(2, scanner, new Map())).toBeNull();
    const shown = Int32Array.from([0, 1, 5, 9]);
    expect(rowOf(shown, 5)).toBe(2);
    expect(rowOf(shown, 3)).toBe(-1);
    expect(rowOf(null, 7)).toBe(7);
  });

  it('scans a million-line log in one pass, and only new lines after that', () => {
    const lines = Array.from({ length: 1_000_000 }, (_, index) =>
      index % 1000 === 0 ? '::group::chunk' : index % 1000 === 999 ? '::endgroup::' : `line ${index}`,
    );
    const scanner = new SectionScanner();
    scanner.update(lines);
    expect(scanner.sections).toHaveLength(1000);
    expect(visibleLines(lines.length, scanner, new Map())?.length).toBe(1000);
    scanner.update(lines.concat(['::group::last']));
    expect(scanner.sections).toHaveLength(1001);
  });
});
