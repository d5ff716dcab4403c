import { BUILD_EVENTS, type BuildEvent } from '../../core/build.js';

/** The options of `svc exec`. */
export interface ExecArgs {
  file: string | undefined;
  pipeline: string | undefined;
  trusted: boolean;
  env: Record<string, string>;
  secrets: Record<string, string>;
  event: BuildEvent;
  branch: string | undefined;
  /** Where steps' caches are kept; undefined: the default folder; null: --no-cache. */
  cacheDir: string | null | undefined;
  /** The git revision `paths` conditions compare the working copy with; undefined: not compared. */
  pathsBase: string | undefined;
  /** Where `kind: template` documents find their templates; undefined: the server's. */
  templateDir: string | undefined;
  /** The namespace whose templates the server gives; undefined: the `origin` remote's owner. */
  namespace: string | undefined;
}

export const EXEC_USAGE = `Usage: svc exec [FILE] [options]

Runs a pipeline of FILE (default: .svc.yml, else .drone.yml) with the current directory as the
workspace (nothing is cloned): a docker pipeline on the local Docker engine (DOCKER_HOST), an ssh
pipeline on the host of its server: block, where the directory is copied (host keys checked against
SVC_SSH_KNOWN_HOSTS, default ~/.ssh/known_hosts, else trusted on first use). A Jsonnet (.jsonnet)
or Starlark (.star) FILE runs first, as on the server (svc convert FILE prints what it produces),
kind: template documents are rendered from --template-dir or the server's templates,
and \${…} build variables are substituted as on the server. Exit code 0 when the
pipeline succeeds, 1 when it fails, 2 on usage errors. Ctrl-C cancels it and removes what it created.

Options:
  --pipeline NAME   the pipeline to run (default: the first pipeline of the file)
  --trusted         allow what only trusted repositories may use (privileged, host volumes, …)
  --env K=V         an environment variable for every step (repeatable)
  --secret K=V      a secret the pipeline can read with from_secret (repeatable; masked in output)
  --event EVENT     the build event conditions see (default: push; ${BUILD_EVENTS.join(', ')})
  --branch NAME     the branch conditions see (default: the current git branch, else main)
  --cache-dir DIR   where steps' caches (cache:) are kept (default: ~/.cache/svc/exec/<a hash of
                    this directory>, or under $XDG_CACHE_HOME)
  --no-cache        neither restore nor save steps' caches
  --paths-base REF  the git revision (e.g. origin/main) whose difference with this working copy,
                    untracked files included, is what paths conditions see (without it they hold)
  --template-dir DIR
                    where the templates that kind: template documents load are: DIR/<name>
                    (without it, they are read from the server, with SVC_SERVER and SVC_TOKEN)
  --namespace NS    whose templates the server gives (default: the owner in the origin remote's URL)
`;

/** Parses `svc exec` arguments; returns a message for a usage error. */
export function parseExecArgs(args: readonly string[]): ExecArgs | string {
  const result: ExecArgs = {
    file: undefined,
    pipeline: undefined,
    trusted: false,
    env: {},
    secrets: {},
    event: 'push',
    branch: undefined,
    cacheDir: undefined,
    pathsBase: undefined,
    templateDir: undefined,
    namespace: undefined,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const value = (): string | undefined => args[++i];
    switch (arg) {
      case '--trusted':
        result.trusted = true;
        break;
      case '--no-cache':
        result.cacheDir = null;
        break;
      case '--pipeline':
      case '--branch':
      case '--paths-base':
      case '--cache-dir':
      case '--template-dir':
      case '--namespace': {
        const v = value();
        if (v === undefined || v === '') return `${arg} needs a value`;
        if (arg === '--pipeline') result.pipeline = v;
        else if (arg === '--branch') result.branch = v;
        else if (arg === '--paths-base') result.pathsBase = v;
        else if (arg === '--template-dir') result.templateDir = v;
        else if (arg === '--namespace') result.namespace = v;
        else result.cacheDir = v;
        break;
      }
      case '--event': {
        const v = value();
        if (!(BUILD_EVENTS as readonly string[]).includes(v ?? '')) {
          return `--event must be one of ${BUILD_EVENTS.join(', ')}, got ${v === undefined ? 'nothing' : `"${v}"`}`;
        }
        result.event = v as BuildEvent;
        break;
      }
      case '--env':
      case '--secret': {
        const pair = value();
        const at = pair?.indexOf('=') ?? -1;
        if (pair === undefined || at < 1)
          return `${arg} needs KEY=VALUE, got ${pair === undefined ? 'nothing' : `"${pair}"`}`;
        (arg === '--env' ? result.env : result.secrets)[pair.slice(0, at)] = pair.slice(at + 1);
        break;
      }
      default:
        if (arg.startsWith('-')) return `unknown option ${arg}`;
        if (result.file !== undefined) return `only one FILE may be given, got ${result.file} and ${arg}`;
        result.file = arg;
    }
  }
  return result;
}
