/*
 * The Orka double's in-memory state: the VMs of the one namespace (`orka-default`), each backed by a real
 * OpenSSH daemon on its own loopback port once it runs, the queue of deploys told to fail, and the log of
 * requests and unknown calls. Field names of the rendered VMs follow the Orka3 API quick start
 * (docs.macstadium.com, "Deploy your first VM with the Orka3 REST API").
 */
import { randomBytes } from 'node:crypto';
import { startSshd, type TestSshd } from '../../support/sshd.js';

/** The namespace every Orka user can use by default; the only one the double serves. */
export const NAMESPACE = 'orka-default';
/** Orka's default CPU count when a deploy names none (quick start: "Orka creates a VM with 3 CPUs"). */
export const DEFAULT_CPU = 3;

export interface OrkaVm {
  readonly name: string;
  readonly image: string;
  readonly cpu: number;
  readonly deployDate: string;
  status: 'Pending' | 'Running';
  sshd?: TestSshd;
  deleted: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
  authorization: string | undefined;
}

export class OrkaState {
  readonly vms = new Map<string, OrkaVm>();
  readonly requests: RecordedRequest[] = [];
  readonly unknown: string[] = [];
  private readonly failures: { status: number; message: string }[] = [];
  private readonly deploying = new Set<Promise<unknown>>();

  constructor(
    readonly images: readonly string[],
    private readonly deployDelayMs: number,
  ) {}

  failNext(count: number, status: number, message: string): void {
    for (let i = 0; i < count; i++) this.failures.push({ status, message });
  }

  takeFailure(): { status: number; message: string } | undefined {
    return this.failures.shift();
  }

  /** `prefix` plus five random lowercase alphanumerics, unused in the namespace (like `vm-cznfv`). */
  uniqueName(prefix: string): string {
    for (;;) {
      const suffix = [...randomBytes(5)].map((byte) => 'abcdefghijklmnopqrstuvwxyz0123456789'[byte % 36]);
      const name = prefix + suffix.join('');
      if (!this.vms.has(name)) return name;
    }
  }

  /** Adds a `Pending` VM, then (after the deploy delay) starts its sshd and marks it `Running`. */
  async deploy(name: string, image: string, cpu: number): Promise<OrkaVm> {
    const running = this.start(name, image, cpu);
    this.deploying.add(running);
    try {
      return await running;
    } finally {
      this.deploying.delete(running);
    }
  }

  private async start(name: string, image: string, cpu: number): Promise<OrkaVm> {
    const vm: OrkaVm = {
      name,
      image,
      cpu,
      deployDate: isoSeconds(new Date()),
      status: 'Pending',
      deleted: false,
    };
    this.vms.set(name, vm);
    if (this.deployDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.deployDelayMs));
    if (vm.deleted) return vm;
    try {
      vm.sshd = await startSshd();
    } catch (error) {
      this.vms.delete(name);
      throw error;
    }
    if (vm.deleted) await vm.sshd.stop();
    else vm.status = 'Running';
    return vm;
  }

  /** Removes the VM and stops its sshd (the VM's port then refuses connections). */
  async delete(name: string): Promise<boolean> {
    const vm = this.vms.get(name);
    if (vm === undefined) return false;
    this.vms.delete(name);
    vm.deleted = true;
    await vm.sshd?.stop();
    return true;
  }

  /** Deletes every VM, waiting for deploys under way (their sshd is stopped as it starts). */
  async deleteAll(): Promise<void> {
    await Promise.all([...this.vms.keys()].map((name) => this.delete(name)));
    await Promise.allSettled([...this.deploying]);
    await Promise.all([...this.vms.keys()].map((name) => this.delete(name)));
  }
}

/**
 * A VM as `GET …/vms` and `GET …/vms/{name}` show it. The IP is the sshd's (127.0.0.1) and `ssh` its port;
 * nothing listens on `vnc`/`screenshare` (the quick start's example numbers). While `Pending` the VM has no
 * address yet, so `ip` and the ports are left out.
 */
export function renderVm(vm: OrkaVm): Record<string, unknown> {
  const running = vm.status === 'Running' && vm.sshd !== undefined;
  return {
    name: vm.name,
    ...(running ? { ip: vm.sshd?.host } : {}),
    cpu: vm.cpu,
    deployDate: vm.deployDate,
    image: vm.image,
    gpuPassthrough: false,
    memory: memoryOf(vm.cpu),
    node: 'mini-arm-1',
    ...(running ? { screenshare: 5901, ssh: vm.sshd?.port, vnc: 5999 } : {}),
    status: vm.status,
  };
}

/** The deploy answer: the quick start's step 4 fields. */
export function renderDeployed(vm: OrkaVm): Record<string, unknown> {
  return {
    name: vm.name,
    node: 'mini-arm-1',
    memory: memoryOf(vm.cpu),
    ip: vm.sshd?.host,
    ssh: vm.sshd?.port,
    vnc: 5999,
    screenshare: 5901,
    status: vm.status,
  };
}

/** Memory as Orka prints it (`4.80Gi` for the default 3 CPUs in the docs); the ratio is the double's own. */
function memoryOf(cpu: number): string {
  return `${(cpu * 1.6).toFixed(2)}Gi`;
}

function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
