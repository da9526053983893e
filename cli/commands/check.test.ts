import { describe, expect, test } from '@jest/globals';
import { runCheck } from './check.js';
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

// Everything here is refused before the cluster is asked: the kubeconfig does not exist.
const env = { KUBECONFIG: '/nonexistent/kubeconfig' };

describe('check: refused before anything runs', () => {
  test.each([
    [[], /give a PROFILE and a TARGET/],
    [['jira'], /give a PROFILE and a TARGET/],
    [['jira', 'acme/web#7', 'extra'], /unexpected argument extra/],
    [['Jira', 'acme/web#7'], /"Jira" is not a profile name/],
    [['jira', 'acme/web'], /"acme\/web" is not an id-only target/],
    [['jira', 'acme/web#0'], /not an id-only target/],
    [['jira', 'Fix the login page'], /not an id-only target/],
    [['jira', 'acme/web#7;rm -rf /'], /not an id-only target/],
    [['jira', 'acme/web#7', '--frobnicate'], /unknown flag --frobnicate/],
  ])('%j exits 2', async (args, message) => {
    const { io, out } = captureIo(env);
    expect(await runCheck(args, io)).toBe(2);
    expect(out.stderr[0]).toMatch(message);
    expect(out.stdout).toEqual([]);
  });

  test('a valid PROFILE and TARGET with no reachable cluster exits 1: the check could not be run', async () => {
    const { io, out } = captureIo(env);
    expect(await runCheck(['jira', 'group/sub/repo!12'], io)).toBe(1);
    expect(out.stderr[0]).toMatch(/cannot read waitgate-system\/waitgate-profiles: cannot load the kubeconfig/);
  });

  test('--help', async () => {
    const { io, out } = captureIo(env);
    expect(await runCheck(['--help'], io)).toBe(0);
    expect(out.stdout.join('\n')).toMatch(/^Usage: waitgate check PROFILE TARGET[\s\S]*0 go, 3 not yet, 2 never/);
  });
});
