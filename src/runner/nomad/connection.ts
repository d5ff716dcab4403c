import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type Env = Record<string, string | undefined>;

/** How the nomad runner reaches Nomad: the HTTP API's address and what each request carries. */
export interface NomadConnection {
  /** e.g. `http://127.0.0.1:4646` (NOMAD_ADDR), without a trailing slash. */
  address: string;
  /** NOMAD_TOKEN, sent as `X-Nomad-Token`; empty for none. */
  token: string;
  /** NOMAD_HTTP_AUTH, `user[:password]`, sent as HTTP basic auth; empty for none. */
  httpAuth: string;
  /** NOMAD_REGION and NOMAD_NAMESPACE (SVC_JOB_REGION and SVC_JOB_NAMESPACE take precedence). */
  region: string;
  namespace: string;
  /** TLS towards an https address: PEM contents read from the files the variables name. */
  tls: { ca: string[]; cert?: string; key?: string; serverName?: string; skipVerify: boolean };
}

/** A Nomad variable that cannot be used: which one, and what is wrong with it. */
export class NomadSettingError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'NomadSettingError';
  }
}

/**
 * Nomad's own client variables, read as its CLI and Go API client read them (NOMAD_ADDR default
 * `http://127.0.0.1:4646`, NOMAD_TOKEN, NOMAD_REGION, NOMAD_NAMESPACE, NOMAD_HTTP_AUTH,
 * NOMAD_CACERT, NOMAD_CAPATH, NOMAD_CLIENT_CERT, NOMAD_CLIENT_KEY, NOMAD_TLS_SERVER_NAME,
 * NOMAD_SKIP_VERIFY), so that a runner configured like the `nomad` command reaches the same cluster.
 * Files are read now: a missing one is a NomadSettingError naming the variable.
 */
export function nomadConnection(env: Env): NomadConnection {
  const raw = (env.NOMAD_ADDR ?? '').trim() || 'http://127.0.0.1:4646';
  const address = raw.includes('://') ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new NomadSettingError(
      'NOMAD_ADDR',
      `"${raw}" is not an address; expected e.g. http://127.0.0.1:4646`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new NomadSettingError('NOMAD_ADDR', `"${raw}" must start with http:// or https://`);
  const ca = [
    ...(env.NOMAD_CACERT ? [readPem('NOMAD_CACERT', env.NOMAD_CACERT)] : []),
    ...(env.NOMAD_CAPATH ? readPemFolder(env.NOMAD_CAPATH) : []),
  ];
  const certFile = env.NOMAD_CLIENT_CERT ?? '';
  const keyFile = env.NOMAD_CLIENT_KEY ?? '';
  if ((certFile === '') !== (keyFile === ''))
    throw new NomadSettingError(
      certFile === '' ? 'NOMAD_CLIENT_CERT' : 'NOMAD_CLIENT_KEY',
      'NOMAD_CLIENT_CERT and NOMAD_CLIENT_KEY go together: set both or neither',
    );
  return {
    address: address.replace(/\/+$/, ''),
    token: env.NOMAD_TOKEN ?? '',
    httpAuth: env.NOMAD_HTTP_AUTH ?? '',
    region: env.NOMAD_REGION ?? '',
    namespace: env.NOMAD_NAMESPACE ?? '',
    tls: {
      ca,
      ...(certFile === '' ? {} : { cert: readPem('NOMAD_CLIENT_CERT', certFile) }),
      ...(keyFile === '' ? {} : { key: readPem('NOMAD_CLIENT_KEY', keyFile) }),
      ...(env.NOMAD_TLS_SERVER_NAME ? { serverName: env.NOMAD_TLS_SERVER_NAME } : {}),
      skipVerify: isTrue(env.NOMAD_SKIP_VERIFY),
    },
  };
}

function readPem(variable: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new NomadSettingError(variable, `cannot read ${file}: ${(error as Error).message}`);
  }
}

function readPemFolder(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch (error) {
    throw new NomadSettingError(
      'NOMAD_CAPATH',
      `cannot read the folder ${folder}: ${(error as Error).message}`,
    );
  }
  return names
    .filter((name) => /\.(pem|crt)$/i.test(name))
    .map((name) => readPem('NOMAD_CAPATH', join(folder, name)));
}

/** Go's strconv.ParseBool, which Nomad uses for NOMAD_SKIP_VERIFY. */
function isTrue(value: string | undefined): boolean {
  return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value ?? '');
}
