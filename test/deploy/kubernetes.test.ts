/**
 * deploy/kubernetes: every document is a valid Kubernetes object (test/support/kubernetes-schema.ts),
 * the server and runner Deployments probe /healthz on the ports svc listens on, the Secret holds the
 * secrets and every secret setting comes from it, and the containers' environments are settings svc
 * loads without a problem or a warning.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { STOP_GRACE_MS, STOP_REPORT_MS } from '../../src/cli/runner.js';
import { gitProvider } from '../../src/cli/server/provider.js';
import type { SettingsKind } from '../../src/config/index.js';
import { SCHEMA } from '../../src/config/schema/index.js';
import { kubernetesProblems, type KubeObject } from '../support/kubernetes-schema.js';
import { DEPLOY, hexSecret, loadCleanly, VERSION, yamlDocuments } from './files.js';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
  args: string[];
  env: EnvVar[];
  ports: { name: string; containerPort: number }[];
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
}
interface PodSpec {
  containers: Container[];
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
}
interface Deployment extends KubeObject {
  spec: {
    selector: { matchLabels: Record<string, string> };
    strategy?: { type: string };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

const DIR = join(DEPLOY, 'kubernetes');
const files = readdirSync(DIR).filter((file) => file.endsWith('.yaml'));
const objects = files.flatMap((file) => yamlDocuments(join(DIR, file)) as KubeObject[]);
const find = <T extends KubeObject>(kind: string, name: string): T => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (found === undefined) throw new Error(`deploy/kubernetes has no ${kind} ${name}`);
  return found as T;
};

const server = find<Deployment>('Deployment', 'svc-server');
const runner = find<Deployment>('Deployment', 'svc-runner');
const secret = find<KubeObject & { stringData: Record<string, string> }>('Secret', 'svc-secrets');
/** The one container of a Deployment's pods. */
const only = (deployment: Deployment): Container => {
  const [container, ...more] = deployment.spec.template.spec.containers;
  if (container === undefined || more.length > 0)
    throw new Error(`${deployment.metadata.name}: not one container`);
  return container;
};

/** Settings whose value is secret; SVC_USER_CREATE only in its token, which these files do not set. */
const SECRET_SETTINGS = new Set<string>(
  SCHEMA.filter((def) => def.secret && def.name !== 'SVC_USER_CREATE').map((def) => def.name),
);

/** A container's environment as the kubelet makes it, with sample values in the Secret's keys. */
function containerEnv(
  container: Container,
  samples: Partial<Record<string, string>>,
): Record<string, string> {
  return Object.fromEntries(
    container.env.map((variable) => {
      const ref = variable.valueFrom?.secretKeyRef;
      if (ref === undefined) return [variable.name, variable.value ?? ''];
      expect(ref.name).toBe(secret.metadata.name);
      expect(Object.keys(secret.stringData)).toContain(ref.key);
      const sample = samples[ref.key];
      if (sample === undefined) throw new Error(`no sample value for the Secret's key ${ref.key}`);
      return [variable.name, sample];
    }),
  );
}

const samples: Partial<Record<string, string>> = {
  SVC_RPC_SECRET: hexSecret(),
  SVC_COOKIE_SECRET: hexSecret(),
  SVC_DATABASE_SECRET: hexSecret(),
  SVC_DATABASE_DATASOURCE: 'postgres://svc:password@postgres.example.com:5432/svc?sslmode=require',
  SVC_SCMC_CLIENT_SECRET: 'client-secret',
};

/** The port of a listen address such as :8080 or 0.0.0.0:3000. */
const portOf = (address: string): number => Number(address.slice(address.lastIndexOf(':') + 1));

describe('deploy/kubernetes', () => {
  it('holds the namespaces, the Secret, the server, its Service and Ingress, and the runner', () => {
    expect(files.sort()).toEqual([
      'ingress.yaml',
      'namespaces.yaml',
      'runner.yaml',
      'secret.yaml',
      'server.yaml',
    ]);
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'Deployment/svc-runner',
      'Deployment/svc-server',
      'Ingress/svc-server',
      'Namespace/ci',
      'Namespace/svc',
      'Role/svc-runner',
      'RoleBinding/svc-runner',
      'Secret/svc-secrets',
      'Service/svc-server',
      'ServiceAccount/svc-runner',
    ]);
  });

  describe('against the Kubernetes OpenAPI schema', () => {
    it.each(objects.map((o) => [`${o.kind}/${o.metadata.name}`, o] as const))(
      '%s is valid',
      async (_, object) => {
        expect(await kubernetesProblems(object)).toEqual([]);
      },
    );

    it('refuses what the API server would: a wrong type, a misspelt field, an unknown kind', async () => {
      const broken = structuredClone(server);
      (broken.spec as Record<string, unknown>).replicas = 'two';
      (broken.spec.template.spec.containers[0] as unknown as Record<string, unknown>).readinesProbe = {};
      const problems = await kubernetesProblems(broken);
      expect(problems.join('\n')).toMatch(/replicas must be integer/);
      expect(problems.join('\n')).toMatch(
        /unknown field spec\.template\.spec\.containers\[0\]\.readinesProbe/,
      );
      expect(await kubernetesProblems({ ...server, kind: 'Deploymnt' })).toEqual([
        'apps/v1 Deploymnt svc-server: no such kind in the Kubernetes API',
      ]);
    });
  });

  it('keeps every object in the namespaces it creates', () => {
    const namespaces = objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name);
    for (const object of objects.filter((o) => o.kind !== 'Namespace')) {
      expect(namespaces).toContain(object.metadata.namespace);
    }
  });

  it('names svc images by registry, with this version, never as a Docker Hub name', () => {
    const images = [only(server).image, only(runner).image];
    const runnerEnv = only(runner).env;
    for (const name of ['SVC_IMAGE_PLACEHOLDER', 'SVC_IMAGE_CLONE']) {
      images.push(runnerEnv.find((variable) => variable.name === name)?.value ?? `${name} is missing`);
    }
    for (const image of images)
      expect(image).toMatch(new RegExp(`^registry\\.example\\.com/svc/[a-z]+:${VERSION}$`));
  });

  it('holds the three secrets in the Secret, and takes every secret setting from it', () => {
    expect(Object.keys(secret.stringData)).toEqual(
      expect.arrayContaining(['SVC_RPC_SECRET', 'SVC_COOKIE_SECRET', 'SVC_DATABASE_SECRET']),
    );
    // Each key is a server setting: svc reads none of them under another name.
    expect(Object.keys(secret.stringData).sort()).toEqual(Object.keys(samples).sort());
    // Shipped empty: an unfilled Secret stops the server ("SVC_RPC_SECRET is required").
    expect(Object.values(secret.stringData).every((value) => value === '')).toBe(true);
    for (const deployment of [server, runner]) {
      for (const variable of only(deployment).env.filter((v) => SECRET_SETTINGS.has(v.name))) {
        expect(variable.value, `${deployment.metadata.name}: ${variable.name}`).toBeUndefined();
        expect(variable.valueFrom?.secretKeyRef).toEqual({ name: 'svc-secrets', key: variable.name });
      }
    }
    expect(
      only(runner)
        .env.filter((v) => v.valueFrom !== undefined)
        .map((v) => v.name),
    ).toEqual(['SVC_RPC_SECRET']);
  });

  describe.each([
    ['the server', server, 'server', ['server']],
    ['the runner', runner, 'kubernetes', ['runner', 'kubernetes']],
  ] as const)('%s', (_, deployment, kind: SettingsKind, args) => {
    let env: Record<string, string>;
    beforeAll(() => {
      env = containerEnv(only(deployment), samples);
    });

    it(`runs svc ${args.join(' ')} with settings svc accepts without a warning`, () => {
      expect(only(deployment).args).toEqual(args);
      loadCleanly(kind, env);
    });

    it('probes /healthz on the port svc listens on', () => {
      const settings = loadCleanly(kind, env).settings as Record<string, unknown>;
      const address = String(kind === 'server' ? settings.SVC_SERVER_PORT : settings.SVC_HTTP_BIND);
      const container = only(deployment);
      const port = container.ports.find((p) => p.containerPort === portOf(address));
      expect(port, `a container port for ${address}`).toBeDefined();
      const probes = [container.startupProbe, container.readinessProbe, container.livenessProbe];
      expect(container.readinessProbe).toBeDefined();
      expect(container.livenessProbe).toBeDefined();
      for (const probe of probes.filter((p) => p !== undefined)) {
        expect(probe.httpGet).toEqual({ path: '/healthz', port: port?.name });
      }
    });

    it('selects its own pods', () => {
      expect(deployment.spec.template.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
    });
  });

  it('configures a git provider for the server', () => {
    const { settings } = loadCleanly('server', containerEnv(only(server), samples));
    expect(gitProvider(settings)).toMatchObject({ provider: expect.anything() as unknown });
  });

  it('routes the Ingress to the Service, and the Service to the server pods', () => {
    const service = find<
      KubeObject & {
        spec: { selector: Record<string, string>; ports: { name: string; targetPort: string }[] };
      }
    >('Service', 'svc-server');
    const ingress = find<
      KubeObject & {
        spec: {
          rules: {
            host: string;
            http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] };
          }[];
        };
      }
    >('Ingress', 'svc-server');
    expect(server.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    const portNames = only(server).ports.map((p) => p.name);
    for (const port of service.spec.ports) expect(portNames).toContain(port.targetPort);
    const backends = ingress.spec.rules.flatMap((rule) =>
      rule.http.paths.map((path) => path.backend.service),
    );
    expect(backends).toEqual([{ name: 'svc-server', port: { name: service.spec.ports[0]?.name } }]);
    // The public name is the server's SVC_SERVER_HOST: links, webhooks and OAuth redirects use it.
    const host = only(server).env.find((v) => v.name === 'SVC_SERVER_HOST')?.value;
    expect(ingress.spec.rules.map((rule) => rule.host)).toEqual([host]);
  });

  it('lets the runner reach the server Service, manage pods in the pipelines namespace, and finish its stages', () => {
    const env = containerEnv(only(runner), samples);
    const settings = loadCleanly('kubernetes', env).settings;
    expect(settings.SVC_RPC_HOST).toBe('svc-server');
    expect(settings.SVC_RPC_HOST).toBe(server.metadata.name);
    const binding = find<KubeObject & { subjects: { kind: string; name: string; namespace: string }[] }>(
      'RoleBinding',
      'svc-runner',
    );
    expect(binding.metadata.namespace).toBe(settings.SVC_NAMESPACE_DEFAULT);
    expect(binding.subjects).toEqual([
      {
        kind: 'ServiceAccount',
        name: runner.spec.template.spec.serviceAccountName,
        namespace: runner.metadata.namespace,
      },
    ]);
    // A fixed runner name sweeps its predecessor's pods at start: never two runners at once.
    expect(settings.SVC_RUNNER_NAME).not.toBeNull();
    expect(runner.spec.strategy?.type).toBe('Recreate');
    const grace = (runner.spec.template.spec.terminationGracePeriodSeconds ?? 30) * 1000;
    expect(grace).toBeGreaterThanOrEqual(STOP_GRACE_MS + STOP_REPORT_MS);
  });
});
