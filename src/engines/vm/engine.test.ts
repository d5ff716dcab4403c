import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrkaDouble, type OrkaDouble } from '../../../test/doubles/orka/index.js';
import { sshdForTests } from '../../../test/support/sshd.js';
import type { ExecCache } from '../../core/engine.js';
import { LocalCacheTransport } from '../../runner/cache/local-transport.js';
import { StageExecutor } from '../../runner/executor.js';
import { MemoryReporter } from '../../runner/memory-reporter.js';
import { execSpec, execStep } from '../../runner/testing/spec.js';
import { CONTRACT_WORKSPACE, engineContract, posixShellStep, processRunning } from '../engine.case.js';
import { VmEngine, vmPrefix } from './engine.js';
import { OrkaClient } from './orka.js';

const { skip } = sshdForTests();

function engineFor(orka: OrkaDouble, runner = 'vm-test', dump?: (line: string) => void): VmEngine {
  return new VmEngine({
    orka: new OrkaClient({ endpoint: orka.url, token: orka.token, dump, dumpBodies: true }),
    image: orka.images[0] ?? '',
    cpu: 4,
    username: orka.vmUser.username,
    password: orka.vmUser.password,
    prefix: vmPrefix(runner),
    sshWaitMs: 20_000,
  });
}

engineContract({
  name: 'VM (the Orka double, each VM a real sshd)',
  skip,
  async start() {
    const orka = await startOrkaDouble();
    return {
      engine: engineFor(orka),
      shellStep: (name, commands, fields = {}) => posixShellStep(name, commands, { image: '', ...fields }),
      spec: (steps) => execSpec(steps, { workspace: CONTRACT_WORKSPACE }),
      running: processRunning,
      notices: /^ssh: /,
      leftovers: (spec) => Promise.resolve(orka.vms().length > 0 || existsSync(`/tmp/svc-${spec.runId}`)),
      close: async () => {
        expect(orka.unknownCalls()).toEqual([]);
        await orka.close();
      },
    };
  },
});

describe.skipIf(skip)('VM engine', () => {
  let orka: OrkaDouble;
  beforeAll(async () => {
    orka = await startOrkaDouble();
  });
  afterAll(() => orka?.close());

  it('deploys a VM named for the runner from the image with the CPUs, and deletes it at the end', async () => {
    const lines: string[] = [];
    const engine = engineFor(orka, 'Mac Runner 1', (line) => lines.push(line));
    const steps = [posixShellStep('a', ['echo on the vm'], { image: '' })];
    const spec = execSpec(steps, { workspace: CONTRACT_WORKSPACE });
    await engine.setup(spec);
    const [vm] = orka.vms();
    expect(vm).toMatchObject({ image: orka.images[0], cpu: 4 });
    expect(vm?.name).toMatch(/^svc-mac-runner-1-[0-9a-f]{10}$/);
    const output: string[] = [];
    expect((await engine.run(spec, steps[0]!, (line) => output.push(line))).exitCode).toBe(0);
    // The VM's key is new: trusted for this stage, and said so.
    expect(output[0]).toMatch(/^ssh: \[127\.0\.0\.1\]:\d+ is not in known_hosts; trusting its/);
    expect(output).toContain('on the vm');
    await engine.destroy(spec);
    expect(orka.vms()).toEqual([]);
    // SVC_VMHOST_HTTP_DUMP: the exchange, never the token.
    expect(lines.some((line) => line.startsWith('Orka POST ') && line.includes('"cpu":4'))).toBe(true);
    expect(lines.join('\n')).not.toContain(orka.token);
  });

  it('fails the stage with Orka’s message when the deploy is refused, and leaves no VM', async () => {
    orka.failDeploys(1, 409, 'Not enough CPU available');
    const engine = engineFor(orka);
    const spec = execSpec([], { workspace: CONTRACT_WORKSPACE });
    await expect(engine.setup(spec)).rejects.toThrow(
      /^cannot create the VM svc-vm-test-[0-9a-f]+ from .*: Orka POST \/api\/v1\/namespaces\/orka-default\/vms: HTTP 409: Not enough CPU available$/,
    );
    await engine.destroy(spec);
    expect(orka.vms()).toEqual([]);
  });

  it('deletes at start the VMs a crashed runner of the same name left, and only those', async () => {
    const crashed = engineFor(orka, 'crashy');
    const spec = execSpec([], { workspace: CONTRACT_WORKSPACE });
    await crashed.setup(spec); // and never destroyed
    const other = engineFor(orka, 'other');
    const otherSpec = execSpec([], { workspace: CONTRACT_WORKSPACE });
    await other.setup(otherSpec);
    expect(orka.vms()).toHaveLength(2);
    const restarted = engineFor(orka, 'crashy');
    expect(await restarted.removeLeftovers()).toEqual([expect.stringMatching(/^svc-crashy-/)]);
    expect(orka.vms().map((vm) => vm.name)).toEqual([expect.stringMatching(/^svc-other-/)]);
    await other.destroy(otherSpec);
  });

  it('moves a step’s cache over the VM’s SSH connection: saved in one stage’s VM, restored in the next', async () => {
    const caches = new LocalCacheTransport(mkdtempSync(join(tmpdir(), 'svc-vm-cache-')));
    const cache: ExecCache = { key: 'vm-deps', restoreKeys: [], paths: ['deps'], policy: 'pull-push' };
    const stage = async (script: string) => {
      const step = execStep('deps', {
        image: '',
        entrypoint: ['/bin/sh', '-c'],
        command: [script],
        workingDir: '/drone/src',
        cache,
      });
      const reporter = new MemoryReporter();
      const executor = new StageExecutor({ engine: engineFor(orka) });
      const result = await executor.execute(execSpec([step]), { reporter, caches });
      return {
        status: result.status,
        lines: reporter.lines('deps').filter((line) => !line.startsWith('ssh: ')),
      };
    };
    const first = await stage('mkdir -p deps && echo from the first vm > deps/a');
    expect(first.status, first.lines.join('\n')).toBe('success');
    expect(first.lines.at(-1)).toMatch(/^cache: saved "vm-deps" \(deps\), /);
    const second = await stage('cat deps/a');
    expect(second.status, second.lines.join('\n')).toBe('success');
    expect(second.lines.slice(0, 2)).toEqual([
      expect.stringMatching(/^cache: restored "vm-deps", /),
      'from the first vm',
    ]);
    expect(orka.vms()).toEqual([]);
  }, 60_000);

  it('refuses a bad token with the API’s answer', async () => {
    const engine = new VmEngine({
      orka: new OrkaClient({ endpoint: orka.url, token: 'not-a-token' }),
      image: orka.images[0] ?? '',
      cpu: null,
      username: orka.vmUser.username,
      password: orka.vmUser.password,
      prefix: vmPrefix('x'),
    });
    await expect(engine.setup(execSpec([]))).rejects.toThrow(/HTTP 401: Unauthorized$/);
  });
});
