import { useEffect, useRef, useState } from 'preact/hooks';
import { ansiSegments } from './ansi.js';
import type { Folding } from './log-folding.js';
import { rowOf, type LogSection } from './log-sections.js';

/** Every line is this tall (CSS holds it there), so a row's place follows from its number. */
export const LINE_HEIGHT = 18;
const OVERSCAN = 30;

/**
 * A log of any length: only the rows in view (plus a margin) are in the page, so a million lines
 * scroll like ten. Each line has a link (`#L12`); `follow` keeps the newest line in view; `jump`
 * scrolls a line (its index in the log) into view; folded sections show as one header row.
 */
export function LogView({
  lines,
  follow,
  jump,
  folding,
}: {
  lines: readonly string[];
  follow: boolean;
  jump?: number | undefined;
  folding: Folding;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
  const { shown } = folding;
  const rows = shown === null ? lines.length : shown.length;
  useEffect(() => {
    const element = box.current;
    if (element === null) return;
    setHeight(element.clientHeight);
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  useEffect(() => {
    const element = box.current;
    if (element !== null && follow) element.scrollTop = element.scrollHeight;
  }, [rows, follow]);
  // A jump is applied once its line shows: a linked line of a log still loading, or one inside a
  // folded section (opened by the page), waits for it.
  const applied = useRef<number>(undefined);
  const jumpRow = jump === undefined || jump >= lines.length ? -1 : rowOf(shown, jump);
  useEffect(() => {
    const element = box.current;
    if (element === null || jump === undefined || applied.current === jump || jumpRow < 0) return;
    applied.current = jump;
    element.scrollTop = Math.max(0, (jumpRow - 3) * LINE_HEIGHT);
  }, [jump, jumpRow]);
  const first = Math.max(0, Math.floor(top / LINE_HEIGHT) - OVERSCAN);
  const last = Math.min(rows, Math.ceil((top + height) / LINE_HEIGHT) + OVERSCAN);
  const shownRows = [];
  for (let row = first; row < last; row++) {
    const index = shown === null ? row : (shown[row] ?? 0);
    const section = folding.headers.get(index);
    shownRows.push(
      <div key={index} class={`line${index === jump ? ' hit' : ''}`} id={`L${index + 1}`}>
        <a class="number" href={`#L${index + 1}`} aria-label={`line ${index + 1}`}>
          {index + 1}
        </a>
        {section === undefined ? (
          <LineText text={lines[index] ?? ''} />
        ) : (
          <Header section={section} folding={folding} />
        )}
      </div>,
    );
  }
  return (
    <div
      class="log"
      ref={box}
      tabIndex={0}
      role="log"
      aria-label="log"
      onScroll={(e) => setTop(e.currentTarget.scrollTop)}
    >
      <div class="log-space" ref={(el) => el?.style.setProperty('height', `${rows * LINE_HEIGHT}px`)}>
        <div
          class="log-lines"
          ref={(el) => el?.style.setProperty('transform', `translateY(${first * LINE_HEIGHT}px)`)}
        >
          {shownRows}
        </div>
      </div>
    </div>
  );
}

function LineText({ text }: { text: string }) {
  return (
    <>
      {ansiSegments(text).map((segment, at) => (
        <span key={at} class={segment.classes || undefined}>
          {segment.text}
        </span>
      ))}
    </>
  );
}

/** A section's header row: a button that folds or opens it, saying how many lines it holds. */
function Header({ section, folding }: { section: LogSection; folding: Folding }) {
  const folded = folding.folded(section);
  const inside = section.end - section.start - (section.marked ? 1 : 0);
  return (
    <button type="button" class="fold" aria-expanded={!folded} onClick={() => folding.toggle(section)}>
      <span aria-hidden="true">{folded ? '▸' : '▾'}</span> <LineText text={section.title} />{' '}
      <span class="muted">
        ({inside.toLocaleString()} {inside === 1 ? 'line' : 'lines'}
        {section.closed ? '' : ', running'})
      </span>
    </button>
  );
}
