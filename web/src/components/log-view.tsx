import { useEffect, useRef, useState } from 'preact/hooks';
import { ansiSegments } from './ansi.js';

/** Every line is this tall (CSS holds it there), so a line's place follows from its number. */
export const LINE_HEIGHT = 18;
const OVERSCAN = 30;

/**
 * A log of any length: only the lines in view (plus a margin) are in the page, so a million lines
 * scroll like ten. Each line has a link (`#L12`); `follow` keeps the newest line in view; `jump`
 * scrolls a line into view (search results, links).
 */
export function LogView({
  lines,
  follow,
  jump,
}: {
  lines: readonly string[];
  follow: boolean;
  jump?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
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
  }, [lines.length, follow]);
  // A jump is applied once the line exists: a linked line of a log still loading waits for it.
  const applied = useRef<number>(undefined);
  useEffect(() => {
    const element = box.current;
    if (element === null || jump === undefined || applied.current === jump || jump >= lines.length) return;
    applied.current = jump;
    element.scrollTop = Math.max(0, (jump - 3) * LINE_HEIGHT);
  }, [jump, lines.length]);
  const first = Math.max(0, Math.floor(top / LINE_HEIGHT) - OVERSCAN);
  const last = Math.min(lines.length, Math.ceil((top + height) / LINE_HEIGHT) + OVERSCAN);
  const shown = [];
  for (let index = first; index < last; index++) {
    shown.push(
      <div key={index} class={`line${index === jump ? ' hit' : ''}`} id={`L${index + 1}`}>
        <a class="number" href={`#L${index + 1}`} aria-label={`line ${index + 1}`}>
          {index + 1}
        </a>
        {ansiSegments(lines[index] ?? '').map((segment, at) => (
          <span key={at} class={segment.classes || undefined}>
            {segment.text}
          </span>
        ))}
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
      <div class="log-space" ref={(el) => el?.style.setProperty('height', `${lines.length * LINE_HEIGHT}px`)}>
        <div
          class="log-lines"
          ref={(el) => el?.style.setProperty('transform', `translateY(${first * LINE_HEIGHT}px)`)}
        >
          {shown}
        </div>
      </div>
    </div>
  );
}
