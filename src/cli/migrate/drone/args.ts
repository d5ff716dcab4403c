import type { Env } from '../../../config/index.js';

/** The options of `svc migrate drone`, with Drone's own variables filling what is not given. */
export interface DroneMigrateArgs {
  readonly from: string;
  readonly fromDriver: string | undefined;
  readonly droneSecret: string | undefined;
  readonly history: boolean;
  readonly dryRun: boolean;
  readonly saveTemplates: string | undefined;
}

const VALUED = ['--from', '--from-driver', '--drone-secret', '--save-templates'] as const;
type Valued = (typeof VALUED)[number];

/**
 * Reads the arguments; `--from`, `--from-driver` and `--drone-secret` default to Drone's
 * DRONE_DATABASE_DATASOURCE, DRONE_DATABASE_DRIVER and DRONE_DATABASE_SECRET, so that a Drone
 * server's env file can be used as it is. Returns a message for wrong usage.
 */
export function parseDroneMigrateArgs(args: readonly string[], env: Env): DroneMigrateArgs | string {
  const values = new Map<Valued, string>();
  let history = false;
  let dryRun = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const [name = '', inline] = arg.startsWith('--') ? splitOnce(arg) : [arg];
    if (name === '--history' || name === '--dry-run') {
      if (inline !== undefined) return `${name} takes no value`;
      if (name === '--history') history = true;
      else dryRun = true;
    } else if (isValued(name)) {
      // `--from --history` is a forgotten value, not a datasource named --history.
      const next = inline === undefined && !(args[i + 1] ?? '').startsWith('--') ? args[++i] : undefined;
      const value = inline ?? next;
      if (value === undefined || value === '') return `${name} needs a value`;
      values.set(name, value);
    } else {
      return `unknown ${arg.startsWith('-') ? 'option' : 'argument'} ${arg}`;
    }
  }
  return {
    from: values.get('--from') ?? env.DRONE_DATABASE_DATASOURCE ?? '',
    fromDriver: values.get('--from-driver') ?? nonEmpty(env.DRONE_DATABASE_DRIVER),
    droneSecret: values.get('--drone-secret') ?? nonEmpty(env.DRONE_DATABASE_SECRET),
    history,
    dryRun,
    saveTemplates: values.get('--save-templates'),
  };
}

function splitOnce(arg: string): [string, string?] {
  const at = arg.indexOf('=');
  return at < 0 ? [arg] : [arg.slice(0, at), arg.slice(at + 1)];
}

function isValued(name: string): name is Valued {
  return (VALUED as readonly string[]).includes(name);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
