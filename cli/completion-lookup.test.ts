// The completion lookups' bound, against a real loopback listener that accepts connections
// and never answers (not even the TLS handshake): no candidates, within COMPLETION_LOOKUP_MS and a little.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Lookup } from './completion.js';
import { COMPLETION_LOOKUP_MS, lookupNames } from './completion-lookup.js';
import type { CliIo } from './io.js';
import { run } from './main.js';

let server: Server;
const sockets: Socket[] = [];
let kubeconfig: string;

beforeAll(async () => {
  server = createServer((s) => void sockets.push(s)); // accepts, reads nothing, answers nothing
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  kubeconfig = join(mkdtempSync(join(tmpdir(), 'waitgate-complete-')), 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: mute, cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]`,
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: mute, context: {cluster: mute, user: u, namespace: team-a}}]',
      'current-context: mute',
    ].join('\n'),
  );
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});

function io(out: string[]): CliIo {
  return {
    stdout: (l) => void out.push(l),
    stderr: (l) => void out.push(`stderr: ${l}`),
    readFile: () => Promise.reject(new Error('no files')),
    env: { KUBECONFIG: kubeconfig },
    now: () => Date.now(),
  };
}

describe('completion lookups against an apiserver that never answers', () => {
  test.each(Object.values(Lookup))('%s: no candidates, in the bound', async (lookup) => {
    const started = Date.now();
    const names = await lookupNames(lookup, '', {}, io([]));
    const ms = Date.now() - started;
    expect(names).toEqual([]);
    expect(sockets.length).toBeGreaterThan(0); // the request did reach the listener
    expect(ms).toBeGreaterThanOrEqual(COMPLETION_LOOKUP_MS - 50);
    expect(ms).toBeLessThan(COMPLETION_LOOKUP_MS + 1_000);
  });

  test('`waitgate __complete cancel ""` prints only its directive and returns in the bound', async () => {
    const out: string[] = [];
    const started = Date.now();
    const code = await run(['__complete', 'cancel', ''], io(out));
    expect({ code, out }).toEqual({ code: 0, out: [':4'] });
    expect(Date.now() - started).toBeLessThan(COMPLETION_LOOKUP_MS + 1_000);
  });
});
