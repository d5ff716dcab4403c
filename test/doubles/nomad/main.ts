/*
 * Runs the Nomad double until SIGINT or SIGTERM, then removes what it created and exits 0:
 *
 *   npx tsx test/doubles/nomad/main.ts --port 4646 [--token T] [--datacenter dc1] [--region global]
 *     [--namespace ci]… [--allow-privileged false] [--pull-latest true]
 *
 * Prints `NOMAD_ADDR=<url>` (and `NOMAD_TOKEN=<token>` with ACLs) once it listens. Tasks run on the
 * Docker engine of DOCKER_HOST.
 */
import { parseArgs } from 'node:util';
import { startNomadDouble } from './index.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    token: { type: 'string' },
    datacenter: { type: 'string' },
    region: { type: 'string' },
    namespace: { type: 'string', multiple: true },
    'allow-privileged': { type: 'string' },
    'volumes-enabled': { type: 'string' },
    'pull-latest': { type: 'string' },
  },
  strict: true,
});

const flag = (value: string | undefined): boolean | undefined =>
  value === undefined ? undefined : value === 'true';
const port = values.port === undefined ? undefined : Number(values.port);
if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
  process.stderr.write(`--port must be a port number, not ${values.port}\n`);
  process.exit(2);
}

const nomad = await startNomadDouble({
  ...(port === undefined ? {} : { port }),
  ...(values.host === undefined ? {} : { host: values.host }),
  ...(values.token === undefined ? {} : { token: values.token }),
  ...(values.datacenter === undefined ? {} : { datacenter: values.datacenter }),
  ...(values.region === undefined ? {} : { region: values.region }),
  namespaces: values.namespace ?? [],
  ...(flag(values['allow-privileged']) === undefined
    ? {}
    : { allowPrivileged: flag(values['allow-privileged']) }),
  ...(flag(values['volumes-enabled']) === undefined
    ? {}
    : { volumesEnabled: flag(values['volumes-enabled']) }),
  ...(flag(values['pull-latest']) === undefined ? {} : { pullLatest: flag(values['pull-latest']) }),
});
process.stdout.write(`NOMAD_ADDR=${nomad.url}\n`);
if (nomad.token !== undefined) process.stdout.write(`NOMAD_TOKEN=${nomad.token}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  nomad.close().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `closing the Nomad double: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    },
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
