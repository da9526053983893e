// The loopback TCP proxy lives in lib/net so that the chaos run (bench/, built with the product)
// can use it too; tests keep importing it from here.
import { TcpProxy } from '../../lib/net/tcp-proxy.js';
import { requireEnv } from './env.js';

export { TcpProxy };

/**
 * A proxy in front of the tests' Valkey (VALKEY_URL) for the body to cut and restore, and the
 * URL that reaches Valkey through it; cut when the body is done.
 */
export async function withValkeyProxy(body: (proxy: TcpProxy, valkeyUrl: string) => Promise<void>): Promise<void> {
  const valkey = new URL(requireEnv('VALKEY_URL'));
  const proxy = new TcpProxy('127.0.0.1', Number(valkey.port));
  const port = await proxy.start();
  try {
    await body(proxy, `redis://127.0.0.1:${port}`);
  } finally {
    await proxy.cut();
  }
}
