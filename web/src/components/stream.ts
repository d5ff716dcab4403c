import { useEffect } from 'preact/hooks';

/**
 * Calls `changed` when a build of the repository (or, without one, of any of the caller's
 * repositories) changes, from the API's event stream; EventSource reconnects by itself when the
 * connection drops. Calls are held back to one a second: a running build reports often.
 */
export function useBuildEvents(slug: string | undefined, changed: () => void): void {
  useEffect(() => {
    const source = new EventSource(slug === undefined ? '/api/stream' : `/api/stream/${slug}`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    source.onmessage = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        changed();
      }, 1000);
    };
    return () => {
      source.close();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [slug, changed]);
}
