import { describe, expect, test } from '@jest/globals';
import { runMcp } from './mcp.js';
import type { CliIo } from '../io.js';

function captureIo(env: Record<string, string | undefined> = {}) {
  const out = { stdout: [] as string[], stderr: [] as string[] };
  const io: CliIo = {
    stdout: (line) => void out.stdout.push(line),
    stderr: (line) => void out.stderr.push(line),
    readFile: () => Promise.reject(new Error('no files here')),
    env,
    now: () => Date.parse('2026-09-01T09:00:00Z'),
  };
  return { io, out };
}

describe('mcp: usage', () => {
  test.each<[string[], RegExp]>([
    [['extra'], /unexpected argument extra/],
    [['--confirm-timeout', 'soon'], /--confirm-timeout soon: a duration above 0 and at most 30m/],
    [['--confirm-timeout', '0s'], /--confirm-timeout 0s/],
    [['--confirm-timeout', '2h'], /--confirm-timeout 2h/],
    [['-o', 'json'], /unknown flag -o/],
  ])('%j exits 2 before touching the cluster, and writes nothing on stdout', async (args, problem) => {
    const { io, out } = captureIo({ KUBECONFIG: '/nonexistent/kubeconfig' });
    expect(await runMcp(args, io)).toBe(2);
    expect(out.stderr[0]).toMatch(problem);
    expect(out.stderr.at(-1)).toMatch(/^Usage: waitgate mcp /);
    expect(out.stdout).toEqual([]);
  });

  test('an unreadable kubeconfig exits 1, on stderr only', async () => {
    const { io, out } = captureIo({ KUBECONFIG: '/nonexistent/kubeconfig' });
    expect(await runMcp(['--confirm-timeout', '1s'], io)).toBe(1);
    expect(out.stderr[0]).toMatch(/^waitgate mcp: cannot load the kubeconfig/);
    expect(out.stdout).toEqual([]);
  });

  test('--help names the three tools and the confirm', async () => {
    const { io, out } = captureIo();
    expect(await runMcp(['--help'], io)).toBe(0);
    const help = out.stdout.join('\n');
    for (const tool of ['list_held_jobs', 'describe_held_job', 'cancel_held_job', 'elicitation']) expect(help).toContain(tool);
  });
});
