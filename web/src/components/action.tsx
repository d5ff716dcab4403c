import { useState } from 'preact/hooks';
import { messageOf } from './load.js';

/**
 * A button that runs an API action: disabled while it runs, its error shown next to it (where the
 * action was taken), `done` told of the result.
 */
export function ActionButton<T>(props: {
  label: string;
  /** The accessible name, when the label alone does not say what it acts on. */
  name?: string;
  run: () => Promise<T>;
  done?: (value: T) => void;
  kind?: 'danger';
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const click = async () => {
    setBusy(true);
    setError(undefined);
    try {
      props.done?.(await props.run());
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="action">
      <button
        type="button"
        class={props.kind}
        disabled={busy}
        aria-busy={busy}
        aria-label={props.name}
        onClick={() => void click()}
      >
        {props.label}
      </button>
      {error === undefined ? null : (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
