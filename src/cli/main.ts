#!/usr/bin/env node
import module from 'node:module';
import { processIO, type CommandIO } from './io.js';
import { readVersion } from './version.js';

const USAGE = `svc: a continuous-integration server and runners

Usage: svc <command> [options]

Commands:
  server [--local]            run the server (--local fills the required settings for a local trial)
  runner docker|nomad|vm|kubernetes|ssh
                              run a runner of that kind (stages in containers, jobs, VMs, pods, hosts)
  lint [--trusted] [--json] FILE...
                              check pipeline files (.drone.yml format; .jsonnet and .star run first)
  convert FILE                print the YAML a .jsonnet or .star pipeline file produces
  exec [FILE] [options]       run a pipeline here (docker: local engine; ssh: its host), the current directory as workspace
  config print <kind>         print the effective settings of a kind as JSON
                              (kinds: server, docker, nomad, vm, kubernetes, ssh)
  migrate settings [--kind K] [FILE]
                              print the SVC_* settings that a Drone server's or runner's DRONE_* stand for
  migrate drone --from DATASOURCE [--history] [--dry-run]
                              bring a Drone database's users, repositories, secrets, crons, templates
                              and builds into svc's
  backup FILE                 copy the server's SQLite database into FILE while it runs
  version                     print svc's version

API client (talks to SVC_SERVER with SVC_TOKEN; see docs/cli.md):
  build ls|info|last|create|restart|cancel|approve|decline|approvals|promote|rollback|logs|tests
  build artifacts ls|get             test info|history|flaky|quarantined|quarantine|release|settings
  secret ls|info|add|update|rm      cron ls|info|add|update|rm|exec
  template ls|info|add|update|rm
  cache ls|rm                        environment ls|info|add|update|rm
  repo ls|info|enable|disable|update|repair|sync|chown
  user ls|info|add|update|rm        queue ls|pause|resume        runner ls|token
  encrypt <owner/name> <value>      sign <owner/name> [file]

Settings are SVC_* environment variables: see docs/settings.md.
Run 'svc <command> --help' for a command's options.
`;

/**
 * Dispatches to the subcommand; each subcommand is its own composition root, loaded only when run:
 * a command pays for its own dependencies only (`svc exec` does not load the database drivers).
 */
async function main(args: readonly string[], io: CommandIO): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      io.stdout(USAGE);
      return command === undefined ? 2 : 0;
    case '--version':
    case 'version':
      io.stdout(`${readVersion()}\n`);
      return 0;
    case 'server':
      return (await import('./server.js')).serverCommand(rest, process.env, io);
    case 'runner':
      // `svc runner ls` and `svc runner token …` are API clients; `svc runner <kind>` runs a runner.
      if (rest[0] === 'ls' || rest[0] === 'token')
        return (await import('./client.js')).clientCommand(command, rest, process.env, io);
      return (await import('./runner.js')).runnerCommand(rest, process.env, io);
    case 'lint':
      return (await import('./lint.js')).lintCommand(rest, io);
    case 'exec': {
      // git (one process, ~25 ms) reads the working copy's facts while exec's modules load.
      const { readGitFacts } = await import('./exec/local-facts.js');
      void readGitFacts(io.cwd);
      return (await import('./exec.js')).execCommand(rest, process.env, io);
    }
    case 'convert':
      return (await import('./convert.js')).convertCommand(rest, io);
    case 'migrate':
      return (await import('./migrate.js')).migrateCommand(rest, process.env, io);
    case 'backup':
      return (await import('./backup.js')).backupCommand(rest, process.env, io);
    case 'config':
      if (rest[0] === 'print') {
        return (await import('./config-print.js')).configPrintCommand(rest.slice(1), process.env, io);
      }
      io.stderr(
        `svc config: unknown or missing subcommand ${rest[0] ?? ''}; expected: svc config print <kind>\n`,
      );
      return 2;
    case 'build':
    case 'secret':
    case 'template':
    case 'cron':
    case 'cache':
    case 'environment':
    case 'test':
    case 'repo':
    case 'user':
    case 'queue':
    case 'encrypt':
    case 'sign':
    case 'log':
    case 'orgsecret':
      return (await import('./client.js')).clientCommand(command, rest, process.env, io);
    default:
      io.stderr(`svc: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

// The database driver crashes without a word on older runtimes: refuse them with a clear message.
const nodeMajor = Number(process.versions.node.split('.')[0]);
if (nodeMajor < 24) {
  process.stderr.write(
    `svc needs Node.js 24 or newer, this is ${process.version}. Run it through npm (npm start, npx svc), ` +
      'which uses the Node 24 that npm ci installed into node_modules/.bin.\n',
  );
  process.exit(1);
}

// V8's compiled code kept on disk between runs: ~20 ms less start-up for every svc command.
module.enableCompileCache();

main(process.argv.slice(2), processIO()).then(
  (code) => {
    process.exitCode = code;
    // `svc exec` has all its work done when it returns: it exits at once, compile cache written
    // first, instead of letting Node take its heap apart page by page (~10–20 ms after the last
    // Docker answer, seen with strace as a run of munmap calls). Its output is written synchronously
    // (files, pipes and terminals are on Linux), so none is lost.
    if (process.argv[2] === 'exec') {
      module.flushCompileCache();
      process.exit(code);
    }
  },
  (error: unknown) => {
    // Last resort: a bug, not a user error. Say so without a wall of stack for the user.
    process.stderr.write(
      `svc: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    if (process.env.SVC_DEBUG === 'true' && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    process.exitCode = 1;
  },
);
