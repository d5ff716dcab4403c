import type { DockerClient } from './api/client.js';

/** Where svc's clone image keeps the tmate bundle (images/git/tmate-bundle.sh). */
export const TMATE_BUNDLE_DIR = '/opt/svc/tmate';

/**
 * The Docker volume that carries svc's tmate bundle into step containers of debug builds
 * (SVC_SHELLSHARE_ENABLED), named after the image it comes from so that a new image gets a new
 * volume. Docker fills an empty named volume from the image's folder when a container first mounts
 * it; that container runs `tmate -V`, so a bundle that cannot run is found at the runner's start
 * rather than in someone's failed build. Kept across stages and runner restarts: it is read-only
 * in steps, and ~10 MB.
 */
export async function tmateVolume(docker: DockerClient, image: string): Promise<string> {
  let id: string;
  try {
    ({ Id: id } = await docker.inspectImage(image));
  } catch (error) {
    throw new Error(
      `the image ${image}, which holds svc's tmate bundle, is not on the Docker engine (${(error as Error).message}); build it with npm run images`,
    );
  }
  const name = `svc-tmate-${id.replace(/^sha256:/, '').slice(0, 12)}`;
  const existing = await docker.listVolumes({ name: [name] });
  if (existing.some((volume) => volume.Name === name)) return name;
  const { Id: container } = await docker.createContainer({
    Image: image,
    Entrypoint: [`${TMATE_BUNDLE_DIR}/tmate`],
    Cmd: ['-V'],
    Labels: { 'io.svc.tmate': name },
    HostConfig: { Binds: [`${name}:${TMATE_BUNDLE_DIR}`] },
  });
  try {
    await docker.startContainer(container);
    const { StatusCode } = await docker.waitContainer(container);
    if (StatusCode !== 0) {
      throw new Error(
        `the tmate bundle of ${image} does not run (tmate -V exited ${StatusCode}); rebuild the image with npm run images`,
      );
    }
  } catch (error) {
    await docker.removeContainer(container, { force: true });
    await docker.removeVolume(name).catch(() => undefined);
    throw error;
  }
  await docker.removeContainer(container, { force: true });
  return name;
}
