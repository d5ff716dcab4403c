import acme from 'acme-client';
import type { AcmeFiles } from './store.js';
import type { ChallengeServer } from './challenge-server.js';

export interface IssuerOptions {
  directoryUrl: string;
  email: string | null;
  files: AcmeFiles;
  challenges: ChallengeServer;
}

/**
 * Orders a certificate for one host from an ACME CA with the HTTP-01 challenge, answered by the
 * challenge server on port 80. The account key is kept and reused; a new certificate key is made
 * for every order, so a renewal never reuses a key.
 */
export async function orderCertificate(
  options: IssuerOptions,
  host: string,
): Promise<{ cert: string; key: Buffer }> {
  const { files, challenges } = options;
  await checkDirectory(options.directoryUrl);
  const accountKey = await files.accountKey(() => acme.crypto.createPrivateKey());
  // Polling a pending order: from 1 s up to 10 s apart, 10 times, so a stuck order fails in a minute.
  const client = new acme.Client({
    directoryUrl: options.directoryUrl,
    accountKey,
    backoffAttempts: 10,
    backoffMin: 1_000,
    backoffMax: 10_000,
  });
  const [key, csr] = await acme.crypto.createCsr({ commonName: host, altNames: [host] });
  const cert = await client.auto({
    csr,
    ...(options.email === null ? {} : { email: options.email }),
    termsOfServiceAgreed: true,
    challengePriority: ['http-01'],
    // acme-client's own pre-check fetches the challenge through public DNS; the CA checks anyway.
    skipChallengeVerification: true,
    challengeCreateFn: (_authz, challenge, keyAuthorization) => {
      challenges.answer(challenge.token, keyAuthorization);
      return Promise.resolve();
    },
    challengeRemoveFn: (_authz, challenge) => {
      challenges.forget(challenge.token);
      return Promise.resolve();
    },
  });
  return { cert, key };
}

/**
 * Reads the CA's directory first, with a time limit: acme-client retries an unreachable CA for
 * over a minute and then fails without a useful message.
 */
async function checkDirectory(directoryUrl: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(directoryUrl, { signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
    throw new Error(
      `cannot reach the ACME directory: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
    );
  }
  if (!response.ok) throw new Error(`the ACME directory answered HTTP ${response.status}`);
  const body = (await response.json().catch(() => undefined)) as { newOrder?: unknown } | undefined;
  if (typeof body?.newOrder !== 'string')
    throw new Error('the URL does not serve an ACME directory (no newOrder)');
}
