/** Where every container sees the pod's annotations (the step status variables among them). */
export const STATUS_MOUNT = '/run/drone';

/** A step's device, `/dev/fuse` or `/dev/host:/dev/container[:rwm]`: where it is on the node and in the step. */
export function devicePaths(device: string): { host: string; container: string } {
  const [host = device, target] = device.split(':');
  return { host, container: target ?? host };
}
