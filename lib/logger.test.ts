import { describe, expect, test } from '@jest/globals';
import { createRootLogger } from './logger.js';
import { VERSION } from './version.js';

describe('createRootLogger', () => {
  test.each([['info'], ['warn'], ['error']] as const)(
    'a line logged at %s names its level as a word, with the component and the version',
    (level) => {
      const lines: string[] = [];
      const log = createRootLogger('operator', 'info', { write: (line: string) => void lines.push(line) });
      log.child({ heldjob: 'ns/x' })[level]({ jobName: 'x-1' }, 'Created Job');
      const line = JSON.parse(lines.at(-1) ?? '{}') as Record<string, unknown>;
      expect(line).toMatchObject({ level, component: 'operator', version: VERSION, heldjob: 'ns/x', jobName: 'x-1', msg: 'Created Job' });
    },
  );

  test('below the level, nothing is written', () => {
    const lines: string[] = [];
    createRootLogger('receiver', 'warn', { write: (line: string) => void lines.push(line) }).info('Started');
    expect(lines).toEqual([]);
  });
});
