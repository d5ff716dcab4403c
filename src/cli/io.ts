/** What a subcommand may touch of the process: its output streams and working directory. */
export interface CommandIO {
  stdout(text: string): void;
  stderr(text: string): void;
  readonly cwd: string;
}

/** The process's own streams, for the composition roots. */
export function processIO(): CommandIO {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
  };
}
