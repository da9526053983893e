// Runs once after the integration tests: stops the redis-server integration-setup.ts started,
// if it started one (with $VALKEY_URL given from outside it started nothing).
// Kept free of relative imports: jest loads it outside the module mapping the tests use.
import { rmSync } from 'node:fs';
import type {} from './integration-setup.js'; // its declaration of the shared global; erased at run time

export default async function globalTeardown(): Promise<void> {
  const own = globalThis.__waitgateIntegrationRedis;
  if (!own) return;
  globalThis.__waitgateIntegrationRedis = undefined;
  if (own.child.exitCode === null && own.child.signalCode === null) {
    const exited = new Promise<void>((resolve) => own.child.once('exit', () => resolve()));
    own.child.kill('SIGTERM');
    const timer = setTimeout(() => own.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(own.dir, { recursive: true, force: true });
}
