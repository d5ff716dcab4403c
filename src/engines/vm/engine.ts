import { randomBytes } from 'node:crypto';
import type { AroundStep, Engine, ExecSpec, ExecStep, OutputSink, StepExit } from '../../core/engine.js';
import { SshEngine } from '../ssh/engine.js';
import { HostKeys } from '../ssh/host-keys.js';
import type { SshTarget } from '../ssh/target.js';
import { OrkaError, type OrkaClient } from './orka.js';

/** How long a new VM may take to answer SSH once Orka says it runs. */
const SSH_WAIT_MS = 10 * 60_000;
const SSH_RETRY_MS = 2_000;

export interface VmEngineOptions {
  orka: OrkaClient;
  /** SVC_VM_IMAGE and SVC_VM_CPU (null: Orka's default). */
  image: string;
  cpu: number | null;
  /** SVC_VM_USERNAME / SVC_VM_PASSWORD: the account of the image. */
  username: string;
  password: string;
  /** Names every VM of this runner (`svc-<runner>-`), so that a restarted runner finds its leftovers. */
  prefix: string;
  sshWaitMs?: number;
}

/** A VM name prefix from a runner's name: Orka names are DNS labels (lower case, digits, `-`, ≤ 63). */
export function vmPrefix(runner: string): string {
  const clean = runner
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `svc-${clean || 'runner'}-`;
}

/**
 * Runs each stage in a VM of its own on an Orka host (runner kind V): deploys a VM from the image,
 * waits until it answers SSH, runs the stage there with the SSH engine, and deletes the VM whatever
 * happened. A VM is new every time: its host key is trusted on first use for that stage only, and
 * written to the build log. A step's files (caches) move over the stage's SSH connection.
 */
export class VmEngine implements Engine {
  readonly movesStepFiles = true;
  readonly runsStepsAgain = true;
  readonly #options: VmEngineOptions;
  readonly #targets = new Map<string, SshTarget>();
  /** The VM of each stage, from the deploy on: what destroy deletes. */
  readonly #vms = new Map<string, string>();
  readonly #ssh: SshEngine;

  constructor(options: VmEngineOptions) {
    this.#options = options;
    this.#ssh = new SshEngine({
      target: (spec) => {
        const target = this.#targets.get(spec.runId);
        if (target === undefined) throw new Error('the stage has no VM');
        return target;
      },
      hostKeys: {
        // Each stage's VM gets its own trust: the next VM may reuse the address with another key.
        check: (host, port, key) => this.#hostKeysOf(host, port).check(host, port, key),
      },
    });
  }

  readonly #trust = new Map<string, HostKeys>();

  #hostKeysOf(host: string, port: number): HostKeys {
    const id = `${host}:${port}`;
    let keys = this.#trust.get(id);
    if (keys === undefined) {
      keys = new HostKeys({});
      this.#trust.set(id, keys);
    }
    return keys;
  }

  async setup(spec: ExecSpec, signal?: AbortSignal): Promise<void> {
    const { orka, image, cpu, username, password, prefix } = this.#options;
    const name = `${prefix}${randomBytes(5).toString('hex')}`;
    this.#vms.set(spec.runId, name);
    let vm;
    try {
      vm = await orka.deploy({ name, image, cpu });
    } catch (error) {
      if (error instanceof OrkaError)
        throw new Error(`cannot create the VM ${name} from ${image}: ${error.message}`);
      throw error;
    }
    if (!vm.ip || !vm.ssh) throw new Error(`Orka deployed ${name} without an address to reach it over SSH`);
    const target: SshTarget = { host: vm.ip, port: vm.ssh, user: username, password };
    this.#targets.set(spec.runId, target);
    // A fresh VM keeps the same address for its next stage, with a new key: forget the last one.
    this.#trust.delete(`${vm.ip}:${vm.ssh}`);
    const deadline = Date.now() + (this.#options.sshWaitMs ?? SSH_WAIT_MS);
    for (;;) {
      signal?.throwIfAborted();
      try {
        await this.#ssh.setup(spec);
        return;
      } catch (error) {
        if (Date.now() >= deadline)
          throw new Error(
            `the VM ${name} (${vm.ip}:${vm.ssh}) did not answer SSH in time: ${(error as Error).message}`,
          );
        await new Promise((resolve) => setTimeout(resolve, SSH_RETRY_MS));
      }
    }
  }

  run(
    spec: ExecSpec,
    step: ExecStep,
    output: OutputSink,
    signal?: AbortSignal,
    around?: AroundStep,
  ): Promise<StepExit> {
    return this.#ssh.run(spec, step, output, signal, around);
  }

  /** The stage's folder and connection, then the VM itself, whatever happened before. */
  async destroy(spec: ExecSpec): Promise<void> {
    await this.#ssh.destroy(spec).catch(() => undefined);
    this.#targets.delete(spec.runId);
    const name = this.#vms.get(spec.runId);
    this.#vms.delete(spec.runId);
    if (name !== undefined) await this.#options.orka.delete(name);
  }

  /** Deletes the VMs of this runner's name that no stage of this process owns (a crashed runner's). */
  async removeLeftovers(): Promise<string[]> {
    const owned = new Set(this.#vms.values());
    const left = (await this.#options.orka.list()).filter(
      (vm) => vm.name.startsWith(this.#options.prefix) && !owned.has(vm.name),
    );
    for (const vm of left) await this.#options.orka.delete(vm.name);
    return left.map((vm) => vm.name);
  }
}
