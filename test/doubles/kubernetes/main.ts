/*
 * Runs the Kubernetes double on its own, for trying svc (or kubectl-like tools) against it by hand:
 *
 *   npx tsx test/doubles/kubernetes/main.ts --port 6443 [--token T] [--kubeconfig FILE]
 *
 * Pods run on the engine named by $DOCKER_HOST. The kubeconfig goes to FILE (or standard output); the
 * double runs until SIGINT or SIGTERM, then removes what it created and exits 0.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startKubernetesDouble } from './index.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    token: { type: 'string' },
    kubeconfig: { type: 'string' },
  },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`--port must be a port number, not ${values.port}\n`);
  process.exit(2);
}

const double = await startKubernetesDouble({
  port,
  ...(values.token === undefined ? {} : { token: values.token }),
});
if (values.kubeconfig === undefined) {
  process.stdout.write(double.kubeconfig);
} else {
  writeFileSync(values.kubeconfig, double.kubeconfig, { mode: 0o600 });
  process.stderr.write(`kubeconfig written to ${values.kubeconfig}\n`);
}
process.stderr.write(`Kubernetes double listening on ${double.url} (Ctrl-C to stop)\n`);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`${signal}: removing pods and containers…\n`);
  double.close().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`cleanup failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
