import type { Env, SettingsKind } from '../../config/index.js';
import { kindsAccepting } from '../../config/schema/index.js';

/** One Drone variable carried over: the svc setting and its value (converted where they differ). */
export interface Carried {
  readonly from: string;
  readonly name: string;
  readonly value: string;
  /** What changed in the value, or what to check. */
  readonly note?: string;
}

/** One Drone variable with no svc setting for the kind, and why. */
export interface Dropped {
  readonly from: string;
  readonly why: string;
}

export interface Translation {
  readonly carried: readonly Carried[];
  readonly dropped: readonly Dropped[];
}

/** Drone's brand words and svc's neutral ones (docs/settings.md), in Drone's variable names. */
const BRANDS: readonly [RegExp, string][] = [
  [/^DRONE_GITHUB_/, 'SVC_SCMC_'],
  [/^DRONE_GITEA_/, 'SVC_SCMB_'],
  [/^DRONE_GITLAB_/, 'SVC_SCMD_'],
  [/^DRONE_BITBUCKET_/, 'SVC_SCMA_'],
  [/^DRONE_GOGS_/, 'SVC_SCME_'],
  [/^DRONE_STASH_/, 'SVC_SCMF_'],
  [/^DRONE_S3_/, 'SVC_OBJSTORE_'],
  [/^DRONE_PROMETHEUS_/, 'SVC_METRICS_'],
];

/** Drone's names that svc spells differently (beyond the brand words and the prefix). */
const RENAMED: Readonly<Record<string, string>> = {
  DRONE_TLS_EMAIL: 'SVC_TLS_ACME_EMAIL',
  DRONE_SECRET_ENDPOINT: 'SVC_SECRET_PLUGIN_ENDPOINT',
  DRONE_SECRET_SECRET: 'SVC_SECRET_PLUGIN_TOKEN',
  DRONE_SECRET_SKIP_VERIFY: 'SVC_SECRET_PLUGIN_SKIP_VERIFY',
  DRONE_REGISTRY_ENDPOINT: 'SVC_REGISTRY_PLUGIN_ENDPOINT',
  DRONE_REGISTRY_SECRET: 'SVC_REGISTRY_PLUGIN_TOKEN',
  DRONE_REGISTRY_SKIP_VERIFY: 'SVC_REGISTRY_PLUGIN_SKIP_VERIFY',
  DRONE_LIMIT_MEM: 'SVC_MEMORY_LIMIT',
  DRONE_LIMIT_MEM_SWAP: 'SVC_MEMORY_SWAP_LIMIT',
  DRONE_LIMIT_CPU_QUOTA: 'SVC_CPU_QUOTA',
  DRONE_LIMIT_CPU_SHARES: 'SVC_CPU_SHARES',
  DRONE_LIMIT_CPU_SET: 'SVC_CPU_SET',
};

/** Drone settings svc has no use for, and why (instead of a bare "no equivalent"). */
const REASONS: Readonly<Record<string, string>> = {
  DRONE_GITHUB_API_SERVER: 'svc derives the API address from SVC_SCMC_SERVER',
  DRONE_LICENSE: 'svc needs no licence',
  DRONE_LICENSE_ENDPOINT: 'svc needs no licence',
  DRONE_REDIS_ADDR: 'several svc servers share the database instead of Redis (docs/ha.md)',
  DRONE_REDIS_CONNECTION: 'several svc servers share the database instead of Redis (docs/ha.md)',
  DRONE_REDIS_PASSWORD: 'several svc servers share the database instead of Redis (docs/ha.md)',
  DRONE_REDIS_DB: 'several svc servers share the database instead of Redis (docs/ha.md)',
  DRONE_DATADOG_ENABLED: 'svc sends no usage reports',
  DRONE_DATADOG_ENDPOINT: 'svc sends no usage reports',
  DRONE_DATADOG_TOKEN: 'svc sends no usage reports',
};

/** Drone's database drivers and svc's names for the same databases. */
const DRIVERS: Readonly<Record<string, string>> = {
  sqlite3: 'embedded_sql',
  mysql: 'sql_a',
  postgres: 'sql_b',
};

/**
 * The svc settings of `kind` that a Drone server's or runner's environment stands for: each DRONE_*
 * variable renamed (brand words to svc's neutral ones, DRONE_ to SVC_, the few names svc spells
 * otherwise), its value converted where svc reads it differently; the others dropped with the reason.
 * Variables other than DRONE_* are left alone.
 */
export function translateDroneSettings(kind: SettingsKind, env: Env): Translation {
  const carried: Carried[] = [];
  const dropped: Dropped[] = [];
  for (const [from, value] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b))) {
    if (!from.startsWith('DRONE_') || value === undefined) continue;
    const reason = REASONS[from];
    if (reason !== undefined) {
      dropped.push({ from, why: reason });
      continue;
    }
    const name = svcName(from);
    const kinds = kindsAccepting(name);
    if (kinds.includes(kind)) {
      carried.push({ from, name, ...converted(name, value) });
    } else if (kinds.length > 0) {
      dropped.push({ from, why: `${name} is a setting of ${kinds.join(', ')}, not of ${kind}` });
    } else {
      dropped.push({ from, why: 'svc has no such setting' });
    }
  }
  return { carried, dropped };
}

function svcName(drone: string): string {
  const renamed = RENAMED[drone];
  if (renamed !== undefined) return renamed;
  for (const [brand, neutral] of BRANDS) if (brand.test(drone)) return drone.replace(brand, neutral);
  return drone.replace(/^DRONE_/, 'SVC_');
}

function converted(name: string, value: string): { value: string; note?: string } {
  if (name === 'SVC_DATABASE_DRIVER') {
    const driver = DRIVERS[value];
    return driver === undefined ? { value } : { value: driver, note: `Drone's "${value}"` };
  }
  if (name === 'SVC_DATABASE_DATASOURCE') {
    return {
      value,
      note: "a new, empty database: svc's tables share names with Drone's, so never Drone's own; svc migrate drone copies Drone's data into it",
    };
  }
  return { value };
}
