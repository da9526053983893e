import { pino, type Logger } from 'pino';

/** The one root logger of a process; everything else takes a child of it. */
export function createRootLogger(name: string, level: string): Logger {
  return pino({ name, level, base: { component: name }, timestamp: pino.stdTimeFunctions.isoTime });
}
