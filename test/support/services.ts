/**
 * Access to the real services tests need (databases, Docker engine), from the environment that
 * `.ci/services.sh start` prints. Outside CI a missing service skips its suite and says so;
 * with CI=true a missing service fails the run, so CI can never pass by skipping.
 */
export const inCi = process.env.CI === 'true';

export interface ServiceAvailability {
  /** The value of the service's environment variable, when set. */
  readonly value: string | undefined;
  /** True when the suite should be skipped (service missing, not in CI). */
  readonly skip: boolean;
}

/** Looks up a service by its environment variable; in CI, a missing one throws at collection time. */
export function service(envVar: string, what: string): ServiceAvailability {
  const value = process.env[envVar];
  if (value !== undefined && value !== '') return { value, skip: false };
  if (inCi) {
    throw new Error(
      `${what} is required in CI but ${envVar} is not set (start it with .ci/services.sh start)`,
    );
  }
  console.warn(
    `skipping ${what} tests: ${envVar} is not set (run .ci/services.sh start and export what it prints)`,
  );
  return { value: undefined, skip: true };
}
