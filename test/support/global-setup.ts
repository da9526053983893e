// Runs once before the e2e tests. Kept free of relative imports: jest loads it outside
// the module mapping the tests use.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export default async function globalSetup(): Promise<void> {
  const kubeconfig = process.env['KUBECONFIG'];
  if (!kubeconfig || !existsSync(kubeconfig)) {
    throw new Error('KUBECONFIG is not set or missing: run the e2e tests through `make test`');
  }
  const main = fileURLToPath(new URL('../../dist/operator/main.js', import.meta.url));
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
}
