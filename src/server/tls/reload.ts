import { unwatchFile, watchFile, type Stats } from 'node:fs';
import {
  CertificateError,
  loadCertificate,
  type CertificateFiles,
  type LoadedCertificate,
} from './certificate.js';

/** Where the watcher reports: a renewal taken, or one refused (the old certificate stays). */
export interface ReloadEvents {
  reloaded(certificate: LoadedCertificate): void;
  refused(reason: string): void;
}

/**
 * Watches the certificate files and hands every valid new pair to `use` (an HTTPS server's
 * setSecureContext), so that renewals (certbot, cert-manager's Secret updates) need no restart.
 * Polling (every `intervalMs`, 2 s by default: two stat calls) rather than fs.watch: renewals replace files by
 * rename or swap symlinks, which inotify watches on the old file do not follow. A pair that does not
 * load (one file written, not yet the other; a wrong key) is refused and the server keeps serving
 * the previous certificate. Returns the function that stops watching.
 */
export function watchCertificate(
  files: CertificateFiles,
  current: LoadedCertificate,
  use: (certificate: LoadedCertificate) => void,
  events: ReloadEvents,
  intervalMs = 2_000,
): () => void {
  let fingerprint = current.fingerprint;
  let lastRefusal = '';
  const check = (now: Stats, before: Stats): void => {
    if (now.mtimeMs === before.mtimeMs && now.ino === before.ino && now.size === before.size) return;
    let loaded: LoadedCertificate;
    try {
      loaded = loadCertificate(files);
    } catch (error) {
      if (!(error instanceof CertificateError)) throw error;
      if (error.message !== lastRefusal) events.refused(error.message);
      lastRefusal = error.message;
      return;
    }
    lastRefusal = '';
    if (loaded.fingerprint === fingerprint) return;
    use(loaded);
    fingerprint = loaded.fingerprint;
    events.reloaded(loaded);
  };
  const options = { interval: intervalMs, persistent: false };
  watchFile(files.cert, options, check);
  watchFile(files.key, options, check);
  return () => {
    unwatchFile(files.cert, check);
    unwatchFile(files.key, check);
  };
}
