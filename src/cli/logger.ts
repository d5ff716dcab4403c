import pino, { type Logger } from 'pino';

/**
 * The process logger: JSON lines for log collectors; human-readable when the output is a terminal.
 * Logs go to stderr so that commands printing data on stdout stay machine-readable.
 */
export function createLogger(options: { level: string; pretty: boolean }): Logger {
  if (options.pretty) {
    return pino({
      level: options.level,
      transport: { target: 'pino-pretty', options: { destination: 2, translateTime: 'SYS:HH:MM:ss' } },
    });
  }
  return pino({ level: options.level }, pino.destination(2));
}
