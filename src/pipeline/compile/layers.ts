import type { ExecSecret } from '../../core/engine.js';
import type { EnvValue } from '../types.js';

/** A variable whose value is a secret: which secret, and its value (undefined when it was not found). */
interface SecretVariable {
  readonly name: string;
  readonly value: string | undefined;
}

/**
 * A step's variables built in layers, later layers overriding earlier ones. A variable is either plain
 * (`envs`) or a secret (masked in logs), never both: setting one form removes the other, so the engine
 * never has to choose.
 */
export class EnvironmentLayers {
  readonly #plain = new Map<string, string>();
  readonly #secret = new Map<string, SecretVariable>();

  plain(variables: Readonly<Record<string, string>>): this {
    for (const [key, value] of Object.entries(variables)) {
      this.#secret.delete(key);
      this.#plain.set(key, value);
    }
    return this;
  }

  secret(key: string, name: string, value: string | undefined): this {
    this.#plain.delete(key);
    this.#secret.set(key, { name, value });
    return this;
  }

  /** A file's `environment` section; `values` resolves secret names. */
  environment(
    variables: Readonly<Record<string, EnvValue>>,
    values: ReadonlyMap<string, string | undefined>,
  ): this {
    for (const [key, value] of Object.entries(variables)) {
      if (value.kind === 'value') this.plain({ [key]: value.value });
      else this.secret(key, value.secret, values.get(value.secret));
    }
    return this;
  }

  copy(): EnvironmentLayers {
    const copy = new EnvironmentLayers();
    for (const [key, value] of this.#plain) copy.#plain.set(key, value);
    for (const [key, value] of this.#secret) copy.#secret.set(key, value);
    return copy;
  }

  /**
   * The final variables. A secret that was not found becomes an empty plain variable, as in Drone;
   * `missing` lists them (variable and secret name) for a warning.
   */
  build(): {
    envs: Record<string, string>;
    secrets: ExecSecret[];
    missing: { env: string; secret: string }[];
  } {
    const envs = Object.fromEntries(this.#plain);
    const secrets: ExecSecret[] = [];
    const missing: { env: string; secret: string }[] = [];
    for (const [env, { name, value }] of this.#secret) {
      if (value === undefined) {
        envs[env] = '';
        missing.push({ env, secret: name });
      } else {
        secrets.push({ name, env, data: value, mask: true });
      }
    }
    return { envs, secrets, missing };
  }
}
