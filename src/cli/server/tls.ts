import { resolve } from 'node:path';
import type { Server as TlsServer } from 'node:tls';
import type { Logger } from 'pino';
import type { ServerSettings } from '../../config/index.js';
import { CertificateError, loadCertificate, type LoadedCertificate } from '../../server/tls/certificate.js';
import { watchCertificate } from '../../server/tls/reload.js';
import { parseListenAddress } from '../listen-address.js';
import { localDataDir } from '../local-settings.js';

type Env = Record<string, string | undefined>;

/** How the server serves HTTPS, if it does: the certificate to start with, and how renewals reach it. */
export interface ServerTls {
  readonly initial: { cert: Buffer; key: Buffer };
  /** Serves renewals on the listening HTTPS server from now on. */
  serve(server: unknown): void;
  stop(): Promise<void>;
}

type Settings = Pick<
  ServerSettings,
  | 'SVC_TLS_CERT'
  | 'SVC_TLS_KEY'
  | 'SVC_TLS_AUTOCERT'
  | 'SVC_TLS_ACME_DIRECTORY'
  | 'SVC_TLS_ACME_EMAIL'
  | 'SVC_SERVER_HOST'
  | 'SVC_SERVER_PORT'
>;

/**
 * HTTPS from certificate files (SVC_TLS_CERT, SVC_TLS_KEY; re-read when they change) or from an
 * ACME CA (SVC_TLS_AUTOCERT); undefined for plain HTTP; a message when it cannot start, with exit
 * code 2 for unusable files (a settings problem) and 1 when no certificate could be obtained.
 */
export async function startTls(
  settings: Settings,
  env: Env,
  cwd: string,
  logger: Logger,
): Promise<ServerTls | undefined | { error: string; exitCode: number }> {
  if (settings.SVC_TLS_CERT !== null && settings.SVC_TLS_KEY !== null) {
    const files = { cert: resolve(cwd, settings.SVC_TLS_CERT), key: resolve(cwd, settings.SVC_TLS_KEY) };
    let loaded: LoadedCertificate;
    try {
      loaded = loadCertificate(files);
    } catch (error) {
      if (!(error instanceof CertificateError)) throw error;
      return { error: error.message, exitCode: 2 };
    }
    let stopWatching = (): void => undefined;
    return {
      initial: loaded,
      serve: (server) => {
        stopWatching = watchRenewals(server, files, loaded, logger);
      },
      stop: () => Promise.resolve(stopWatching()),
    };
  }
  if (settings.SVC_TLS_AUTOCERT !== true) return undefined;
  // The ACME client is loaded only for SVC_TLS_AUTOCERT: the other servers do not pay its start-up.
  const { AutoCertificate, AutoCertificateError } = await import('../../server/tls/acme/autocert.js');
  const auto = new AutoCertificate({
    host: new URL(`https://${settings.SVC_SERVER_HOST}`).hostname,
    httpsBase: `https://${settings.SVC_SERVER_HOST}`,
    directoryUrl: settings.SVC_TLS_ACME_DIRECTORY,
    email: settings.SVC_TLS_ACME_EMAIL,
    dataFolder: localDataDir(env, cwd),
    listenHost: parseListenAddress(settings.SVC_SERVER_PORT).host,
    logger,
  });
  try {
    const initial = await auto.start();
    return {
      initial,
      serve: (server) => auto.onRenewed((renewed) => serveRenewed(server, renewed, logger)),
      stop: () => auto.stop(),
    };
  } catch (error) {
    await auto.stop();
    if (!(error instanceof AutoCertificateError)) throw error;
    return { error: error.message, exitCode: 1 };
  }
}

function describe(c: LoadedCertificate): string {
  return `${c.subject}, valid until ${c.notAfter.toISOString()}, SHA-256 ${c.fingerprint}`;
}

function serveRenewed(server: unknown, renewed: LoadedCertificate, logger: Logger): void {
  (server as Pick<TlsServer, 'setSecureContext'>).setSecureContext({ cert: renewed.cert, key: renewed.key });
  logger.info(`SVC_TLS_AUTOCERT: renewed; now serving ${describe(renewed)}`);
}

/**
 * Logs the certificate served, and serves renewals of its files from then on (SVC_TLS_CERT and
 * SVC_TLS_KEY re-read when they change); a renewal that does not load keeps the previous one.
 */
function watchRenewals(
  server: unknown,
  files: { cert: string; key: string },
  loaded: LoadedCertificate,
  logger: Logger,
): () => void {
  logger.info(`SVC_TLS_CERT: serving ${describe(loaded)}`);
  const days = (loaded.notAfter.getTime() - Date.now()) / 86_400_000;
  if (days < 14) logger.warn(`SVC_TLS_CERT: the certificate expires in ${Math.floor(days)} days; renew it`);
  const https = server as Pick<TlsServer, 'setSecureContext'>;
  return watchCertificate(
    files,
    loaded,
    (renewed) => https.setSecureContext({ cert: renewed.cert, key: renewed.key }),
    {
      reloaded: (renewed) => logger.info(`SVC_TLS_CERT: renewed; now serving ${describe(renewed)}`),
      refused: (reason) => logger.error(`${reason}; still serving the previous certificate`),
    },
  );
}
