// The command line as one CommonJS file (dist/sea/waitgate.cjs), what a Node single executable
// application runs (hack/build-cli.sh, `make cli`). esbuild bundles the build output of
// cli/main.ts with its dependencies. Two modules read files beside themselves at run time and
// are replaced in the bundle: lib/version.js by the version itself, lib/valkey/lua-script.js by
// the Lua scripts' text. The one executable answers as `kubectl_complete-waitgate` too, when it
// is run under that name (a link to it).
import { build, type Plugin } from 'esbuild';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { VERSION } from '../lib/version.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const out = process.argv[2] ?? `${root}dist/sea/waitgate.cjs`;

const embedded: Plugin = {
  name: 'waitgate-embedded',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/]lib[\\/]version\.js$/ }, () => ({
      contents: `export const VERSION = ${JSON.stringify(VERSION)};`,
      loader: 'js',
    }));
    b.onLoad({ filter: /[\\/]dist[\\/]lib[\\/]valkey[\\/]lua-script\.js$/ }, () => {
      const dir = `${root}lib/valkey/lua`;
      const scripts = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(`${dir}/${f}`, 'utf8')]));
      return {
        contents: [
          `const SCRIPTS = ${JSON.stringify(scripts)};`,
          'export function luaScript(name) {',
          '  const text = SCRIPTS[name];',
          '  if (text === undefined) throw new Error(`no Lua script ${name} in the bundle`);',
          '  return text;',
          '}',
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

const entry = [
  `const { basename } = require('node:path');`,
  `const { main } = require(${JSON.stringify(`${root}dist/cli/main.js`)});`,
  `const args = process.argv.slice(2);`,
  `const asCompleter = basename(process.argv0) === 'kubectl_complete-waitgate';`,
  `main(asCompleter ? ['__complete', ...args] : args).then((code) => { process.exitCode = code; });`,
].join('\n');

await build({
  stdin: { contents: entry, resolveDir: root, sourcefile: 'sea-entry.cjs', loader: 'js' },
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  outfile: out,
  plugins: [embedded],
  logLevel: 'warning',
  legalComments: 'none',
});
console.log(out);
