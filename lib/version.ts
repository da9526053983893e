// The release's version, from one place: package.json's "version". The chart's version and
// appVersion (the image tag) are kept equal to it (lib/version.test.ts checks).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package.json of this project: the nearest one above this file named "waitgate". */
function readVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'waitgate' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // none here: look further up
    }
    const up = dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}

export const VERSION: string = readVersion();
