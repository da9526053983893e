import { describe, expect, test } from '@jest/globals';
import { parseMachineBusyTicks, parseStatTicks } from './process-cpu.js';

describe('parseStatTicks', () => {
  // stat(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
  test.each([
    ['a plain command', '4242 (node) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 56 78 9 20 0 11 0', { self: 1290, children: 87 }],
    [
      'a command with spaces and parentheses',
      '77 (kube (api) server) R 1 77 77 0 -1 0 0 0 0 0 10 20 30 40 20 0 1 0',
      { self: 30, children: 70 },
    ],
    ['a process that has run nothing', '5 (etcd) S 1 5 5 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0', { self: 0, children: 0 }],
  ])('%s', (_name, stat, want) => {
    expect(parseStatTicks(stat)).toEqual(want);
  });
});

describe('parseMachineBusyTicks', () => {
  test('sums every busy column of the all-CPU line, not idle nor iowait', () => {
    const stat = ['cpu  100 5 50 9000 40 1 2 3 0 0', 'cpu0 50 2 25 4500 20 0 1 1 0 0', 'intr 1 2 3'].join('\n');
    expect(parseMachineBusyTicks(stat)).toBe(100 + 5 + 50 + 1 + 2 + 3);
  });

  test('no all-CPU line is nothing busy', () => {
    expect(parseMachineBusyTicks('intr 1 2 3')).toBe(0);
  });
});
