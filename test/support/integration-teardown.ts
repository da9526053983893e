// Runs once after the integration tests: stops the servers integration-setup.ts started, if it
// started any (with $VALKEY_URL and $WAITGATE_REDIS7_URL given from outside it started none).
// Kept free of relative imports: jest loads it outside the module mapping the tests use.
import { rmSync } from 'node:fs';
import type {} from './integration-setup.js'; // its declaration of the shared global; erased at run time

export default async function globalTeardown(): Promise<void> {
  const own = globalThis.__waitgateIntegrationRedis ?? [];
  globalThis.__waitgateIntegrationRedis = undefined;
  for (const server of own) {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()));
      server.child.kill('SIGTERM');
      const timer = setTimeout(() => server.child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(server.dir, { recursive: true, force: true });
  }
}
