import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';

/** What a GET of the API gave: the value, or why not (and the HTTP status); `reload` asks again. */
export interface Loaded<T> {
  value: T | undefined;
  error: string | undefined;
  /** The refusal's HTTP status (0: svc was not reached); undefined without an error. */
  status: number | undefined;
  readonly reload: () => void;
}

/** GETs `path` (again when it changes or on reload). */
export function useApi<T>(path: string): Loaded<T> {
  const [state, setState] = useState<{ value?: T; error?: string; status?: number }>({});
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    api<T>('GET', path).then(
      (value) => current && setState({ value }),
      (error: unknown) =>
        current &&
        setState({ error: messageOf(error), status: error instanceof ApiError ? error.status : 0 }),
    );
    return () => {
      current = false;
    };
  }, [path, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { value: state.value, error: state.error, status: state.status, reload };
}

export function messageOf(error: unknown): string {
  return error instanceof ApiError || error instanceof Error ? error.message : String(error);
}

/** Shows an error where it happened, in words; screen readers hear it at once. */
export function ErrorNote({ error }: { error: string | undefined }) {
  if (error === undefined) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

/** The value's view once it is there; the error or a loading line before. */
export function Show<T>({
  loaded,
  children,
}: {
  loaded: Loaded<T>;
  children: (value: T) => ComponentChildren;
}) {
  if (loaded.error !== undefined) return <ErrorNote error={loaded.error} />;
  if (loaded.value === undefined)
    return (
      <p class="muted" aria-busy="true">
        Loading…
      </p>
    );
  return <>{children(loaded.value)}</>;
}
