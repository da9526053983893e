import { describe, expect, test } from '@jest/globals';
import { runCancel } from './cancel.js';
import type { CliIo } from '../io.js';

/** A CliIo that records what the command prints. */
function captureIo(env: Record<string, string | undefined> = {}, nowMs = Date.parse('2026-09-01T09:00:00Z')) {
  const out = { stdout: [] as string[], stderr: [] as string[] };
  const io: CliIo = {
    stdout: (line) => void out.stdout.push(line),
    stderr: (line) => void out.stderr.push(line),
    readFile: () => Promise.reject(new Error('no files here')),
    env,
    now: () => nowMs,
  };
  return { io, out };
}

describe('cancel: usage', () => {
  test.each([[[]], [['a', 'b']], [['a', '--timeout', 'soon']], [['a', '-o', 'yaml']], [['a', '--force']]])(
    '%j exits 2 before touching the cluster',
    async (args) => {
      const { io, out } = captureIo({ KUBECONFIG: '/nonexistent/kubeconfig' });
      expect(await runCancel(args, io)).toBe(2);
      expect(out.stderr.at(-1)).toMatch(/^Usage: waitgate cancel NAME/);
    },
  );

  test('an unreadable kubeconfig exits 1', async () => {
    const { io, out } = captureIo({ KUBECONFIG: '/nonexistent/kubeconfig' });
    expect(await runCancel(['web-7-deploy'], io)).toBe(1);
    expect(out.stderr[0]).toMatch(/cannot load the kubeconfig/);
  });
});
