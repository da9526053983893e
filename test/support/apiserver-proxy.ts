// The apiserver behind a TcpProxy (tcp-proxy.ts), and a kubeconfig that reaches it through the
// proxy, for a process the test wants to see a slow or unreachable apiserver.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeconfigPath } from './env.js';
import { TcpProxy } from './tcp-proxy.js';

const SERVER = /server: https:\/\/127\.0\.0\.1:(\d+)/;

export async function withApiserverProxy<T>(body: (proxy: TcpProxy, kubeconfig: string) => Promise<T>): Promise<T> {
  const kc = readFileSync(kubeconfigPath(), 'utf8');
  const m = SERVER.exec(kc);
  if (!m) throw new Error(`${kubeconfigPath()} names no https://127.0.0.1:<port> server to proxy`);
  const proxy = new TcpProxy('127.0.0.1', Number(m[1]));
  const port = await proxy.start();
  const proxied = join(tmpdir(), `waitgate-proxied-${port}.kubeconfig`);
  writeFileSync(proxied, kc.replace(SERVER, `server: https://127.0.0.1:${port}`));
  try {
    return await body(proxy, proxied);
  } finally {
    await proxy.cut();
    rmSync(proxied, { force: true });
  }
}
