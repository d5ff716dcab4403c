import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { messageOf } from './load.js';

/**
 * A form that sends itself through `submit`: its button is disabled while it runs, its error shown
 * under it, `done` told when it worked.
 */
export function ApiForm(props: {
  label: string;
  submit: () => Promise<unknown>;
  done?: () => void;
  children: ComponentChildren;
  name?: string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState(false);
  const send = async () => {
    setBusy(true);
    setError(undefined);
    setSaved(false);
    try {
      await props.submit();
      setSaved(true);
      props.done?.();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="form"
      aria-label={props.name ?? props.label}
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      {props.children}
      <div class="toolbar">
        <button type="submit" disabled={busy} aria-busy={busy}>
          {props.label}
        </button>
        {saved ? <span role="status">Saved.</span> : null}
        {error === undefined ? null : (
          <span class="error" role="alert">
            {error}
          </span>
        )}
      </div>
    </form>
  );
}
