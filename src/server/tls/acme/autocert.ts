import type { Logger } from 'pino';
import type { LoadedCertificate } from '../certificate.js';
import { ChallengeServer } from './challenge-server.js';
import { orderCertificate } from './issuer.js';
import { AcmeFiles } from './store.js';

const DAY = 86_400_000;

export interface AutoCertificateOptions {
  /** The host name to certify (SVC_SERVER_HOST without its port). */
  host: string;
  /** Where plain HTTP is redirected to: https:// and the user-facing address. */
  httpsBase: string;
  directoryUrl: string;
  email: string | null;
  dataFolder: string;
  /** The interface the challenge server listens on, port 80. */
  listenHost: string;
  logger: Logger;
  httpPort?: number;
  renewBeforeDays?: number;
  checkEveryMs?: number;
  orderAttempts?: number;
}

/** No certificate could be obtained at start and none is stored: the server cannot serve HTTPS. */
export class AutoCertificateError extends Error {}

/**
 * SVC_TLS_AUTOCERT: a certificate for the server's host from an ACME CA, kept in the data folder
 * and renewed 30 days before it expires, while the server keeps serving. A stored certificate that
 * is still valid is served at once, even when due for renewal; without one, start waits for the
 * first order (a few seconds) and fails with the CA's reason if it cannot be had.
 */
export class AutoCertificate {
  readonly #options: Required<AutoCertificateOptions>;
  readonly #files: AcmeFiles;
  readonly #challenges: ChallengeServer;
  readonly #renewed: ((certificate: LoadedCertificate) => void)[] = [];
  #current: LoadedCertificate | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: AutoCertificateOptions) {
    this.#options = {
      httpPort: 80,
      renewBeforeDays: 30,
      checkEveryMs: 12 * 3_600_000,
      orderAttempts: 3,
      ...options,
    };
    this.#files = new AcmeFiles(options.dataFolder);
    this.#challenges = new ChallengeServer(options.httpsBase);
  }

  async start(): Promise<LoadedCertificate> {
    const { host, listenHost, httpPort, logger } = this.#options;
    try {
      await this.#challenges.listen(listenHost, httpPort);
    } catch (error) {
      throw new AutoCertificateError(
        `SVC_TLS_AUTOCERT: cannot listen on ${listenHost}:${httpPort} for the CA's HTTP-01 challenges: ${(error as Error).message}`,
      );
    }
    const stored = this.#files.stored(host);
    if (typeof stored !== 'string') {
      logger.info(
        `SVC_TLS_AUTOCERT: serving the stored certificate for ${host}, valid until ${stored.notAfter.toISOString()}`,
      );
      this.#current = stored;
      this.#schedule(this.#due(stored) ? 0 : this.#options.checkEveryMs);
      return stored;
    }
    this.#current = await this.#firstOrder();
    this.#schedule(this.#options.checkEveryMs);
    return this.#current;
  }

  /** Called with every renewed certificate, to serve it from then on. */
  onRenewed(listener: (certificate: LoadedCertificate) => void): void {
    this.#renewed.push(listener);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#challenges.close();
  }

  async #firstOrder(): Promise<LoadedCertificate> {
    const { host, directoryUrl, orderAttempts, logger } = this.#options;
    let lastError = '';
    for (let attempt = 1; attempt <= orderAttempts; attempt++) {
      try {
        return await this.#order();
      } catch (error) {
        lastError = (error as Error).message;
        logger.warn(
          `SVC_TLS_AUTOCERT: order ${attempt} of ${orderAttempts} for ${host} failed: ${lastError}`,
        );
        if (attempt < orderAttempts) await sleep(2_000 * attempt);
      }
    }
    throw new AutoCertificateError(
      `SVC_TLS_AUTOCERT: no certificate for ${host} from ${directoryUrl}: ${lastError}`,
    );
  }

  async #order(): Promise<LoadedCertificate> {
    const { host, directoryUrl, email, logger } = this.#options;
    logger.info(`SVC_TLS_AUTOCERT: ordering a certificate for ${host} from ${directoryUrl}`);
    const ordered = await orderCertificate(
      { directoryUrl, email, files: this.#files, challenges: this.#challenges },
      host,
    );
    const saved = await this.#files.save(host, ordered.cert, ordered.key);
    logger.info(
      `SVC_TLS_AUTOCERT: certificate for ${host} obtained, valid until ${saved.notAfter.toISOString()}, stored in ${this.#files.folder}`,
    );
    return saved;
  }

  #due(certificate: LoadedCertificate): boolean {
    return certificate.notAfter.getTime() - Date.now() < this.#options.renewBeforeDays * DAY;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#check(), delayMs);
    this.#timer.unref();
  }

  /** Renews when due; a failed renewal is logged and tried again within the hour. */
  async #check(): Promise<void> {
    const current = this.#current;
    if (current === undefined || !this.#due(current)) {
      this.#schedule(this.#options.checkEveryMs);
      return;
    }
    try {
      const renewed = await this.#order();
      if (this.#stopped) return;
      this.#current = renewed;
      for (const listener of this.#renewed) listener(renewed);
      this.#schedule(this.#options.checkEveryMs);
    } catch (error) {
      this.#options.logger.error(
        `SVC_TLS_AUTOCERT: renewing the certificate for ${this.#options.host} failed (${(error as Error).message}); the current one is valid until ${current.notAfter.toISOString()}; trying again in an hour`,
      );
      this.#schedule(Math.min(3_600_000, this.#options.checkEveryMs));
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
