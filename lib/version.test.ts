import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { VERSION } from './version.js';

const ROOT = join(import.meta.dirname, '..');

describe('the version comes from one place', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const chart = parse(readFileSync(join(ROOT, 'charts', 'waitgate', 'Chart.yaml'), 'utf8')) as { version: string; appVersion: string };

  test.each([
    ['VERSION', VERSION],
    ["the chart's version", chart.version],
    ["the chart's appVersion (the image tag)", chart.appVersion],
  ])("%s is package.json's version", (_what, v) => {
    expect(v).toBe(pkg.version);
  });

  test('is a semantic version', () => {
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
  });
});
