// What the e2e and integration tests need from the environment `make test` (or, for Valkey
// alone, the integration project's setup) provides.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const OPERATOR_MAIN = `${ROOT}dist/operator/main.js`;

export function requireEnv(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the e2e tests through \`make test\``);
  return v;
}

export function kubeconfigPath(): string {
  const p = requireEnv('KUBECONFIG');
  if (!existsSync(p)) throw new Error(`KUBECONFIG ${p} does not exist: is the local cluster up?`);
  return p;
}
