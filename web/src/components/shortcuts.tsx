import { useEffect, useRef, useState } from 'preact/hooks';

/** The shortcuts, as the `?` dialog lists them. */
const KEYS: [string, string][] = [
  ['j', 'next build, step or repository in the list'],
  ['k', 'previous one'],
  ['Enter', 'open it'],
  ['/', 'search (the log, the tests, the repositories)'],
  ['Esc', 'leave the search; close this list'],
  ['?', 'show or hide this list'],
];

/** Whether a key press belongs to what has the focus: typing in a field is never a shortcut. */
function typing(target: EventTarget | null): target is HTMLElement {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** Moves the focus `step` items along the page's list (`data-nav="item"`), into view. */
function move(step: 1 | -1): void {
  const items = [...document.querySelectorAll<HTMLElement>('[data-nav="item"]')];
  if (items.length === 0) return;
  const at = document.activeElement instanceof HTMLElement ? items.indexOf(document.activeElement) : -1;
  const next =
    at < 0 ? (step > 0 ? 0 : items.length - 1) : Math.min(items.length - 1, Math.max(0, at + step));
  items[next]?.focus();
  items[next]?.scrollIntoView({ block: 'nearest' });
}

/**
 * The keyboard shortcuts of every page (docs/ui.md): `j`/`k` through the page's builds, steps or
 * repositories, `/` to its search, `?` for the list of them. None acts while a field has the focus,
 * or with Ctrl, Alt or Meta held, so that typing and the browser's own keys are left alone.
 */
export function Shortcuts() {
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      if (typing(event.target)) {
        if (event.key === 'Escape' && event.target.dataset.shortcut === 'search') event.target.blur();
        return;
      }
      if (event.key === '?') setOpen((shown) => !shown);
      else if (event.key === '/') {
        const search = document.querySelector<HTMLInputElement>('[data-shortcut="search"]');
        if (search === null) return;
        search.focus();
        search.select();
      } else if (event.key === 'j' || event.key === 'k') move(event.key === 'j' ? 1 : -1);
      else return;
      event.preventDefault();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog ref={dialog} class="shortcuts" aria-labelledby="shortcuts-title" onClose={() => setOpen(false)}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <dl>
        {KEYS.map(([key, what]) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <form method="dialog">
        <button type="submit">Close</button>
      </form>
    </dialog>
  );
}
