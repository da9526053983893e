import { pino, type DestinationStream, type Logger } from 'pino';
import { VERSION } from './version.js';

/**
 * The one root logger of a process; everything else takes a child of it. Each line carries the
 * component and the version, and its level as a word ("info", "error"), as log tooling expects.
 * Lines go to stdout unless a destination is given.
 */
export function createRootLogger(name: string, level: string, destination?: DestinationStream): Logger {
  const options = {
    name,
    level,
    base: { component: name, version: VERSION },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}
