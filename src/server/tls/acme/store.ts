import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CertificateError, loadCertificate, type LoadedCertificate } from '../certificate.js';

/**
 * Where SVC_TLS_AUTOCERT keeps what it obtained, in the data folder: the ACME account key (reused,
 * so the CA sees one account) and, per host, the certificate chain and its key. Keys are written
 * with mode 0600, and every file through a rename so a crash never leaves half a file.
 */
export class AcmeFiles {
  readonly #folder: string;

  constructor(dataFolder: string) {
    this.#folder = join(dataFolder, 'acme');
  }

  get folder(): string {
    return this.#folder;
  }

  certificateFiles(host: string): { cert: string; key: string } {
    const name = host.replace(/[^A-Za-z0-9.-]/g, '_');
    return { cert: join(this.#folder, `${name}.crt`), key: join(this.#folder, `${name}.key`) };
  }

  async accountKey(create: () => Promise<Buffer>): Promise<Buffer> {
    const file = join(this.#folder, 'account.key');
    try {
      return await readFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const key = await create();
    await this.#write(file, key);
    return key;
  }

  /** The stored certificate of `host` if there is one that still serves; why not otherwise. */
  stored(host: string, now = new Date()): LoadedCertificate | string {
    try {
      return loadCertificate(this.certificateFiles(host), now);
    } catch (error) {
      if (!(error instanceof CertificateError)) throw error;
      return error.message;
    }
  }

  async save(host: string, cert: string, key: Buffer): Promise<LoadedCertificate> {
    const files = this.certificateFiles(host);
    await this.#write(files.key, key);
    await this.#write(files.cert, Buffer.from(cert));
    return loadCertificate(files);
  }

  async #write(file: string, content: Buffer): Promise<void> {
    await mkdir(this.#folder, { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, content, { mode: 0o600 });
    await chmod(temporary, 0o600);
    await rename(temporary, file);
  }
}
