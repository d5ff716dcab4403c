import { z } from 'zod';

/** An environment's name: what `environment:` and a promotion's target name (DRONE_DEPLOY_TO). */
export const EnvironmentName = z
  .string()
  .min(1, 'an environment needs a name')
  .max(100, 'at most 100 characters')
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]*$/,
    'letters, digits, `_`, `-` and `.`, starting with a letter or digit',
  );

/** A secret's environment: one name, or empty for a secret every build may have. */
export const SecretEnvironment = z.union([z.literal(''), EnvironmentName]);
