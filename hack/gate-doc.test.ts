// docs/gate.md's figures for how long a profile hold lasts are the code's: lastCheckOffsetMs at
// the default settings, for one profile and for several.
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastCheckOffsetMs } from '../api/cadence.js';
import { parseOperatorConfig } from '../api/config/operator-config.js';
import { MAX_CONDITIONS } from '../api/heldjob-schema.js';

const page = readFileSync(join(import.meta.dirname, '..', 'docs', 'gate.md'), 'utf8');
const { wait } = parseOperatorConfig({ VALKEY_URL: 'redis://127.0.0.1:6379' });

/** As the page writes a span: `19 h 43 min`. */
const spoken = (ms: number) => `${Math.floor(ms / 3_600_000)} h ${Math.floor((ms % 3_600_000) / 60_000)} min`;
const at = (rounds: { first?: number; each?: number }) => spoken(lastCheckOffsetMs(wait.maxChecks, wait.intervalMs, wait.maxMs, rounds));

describe('docs/gate.md: how long a profile hold lasts', () => {
  test.each(Array.from({ length: MAX_CONDITIONS }, (_, i) => [i + 1]))('%d profile(s): the row says what the code computes', (n) => {
    const row = `| ${n} | ${at({ first: n })} | ${at({ each: n })} |`;
    expect(page).toContain(row);
  });

  test('one profile: the figure in the text', () => {
    const text = page.replace(/\s+/g, ' ');
    expect(text).toContain(`with one profile the ${wait.maxChecks}th check lands about ${at({})} after the first`);
  });
});
