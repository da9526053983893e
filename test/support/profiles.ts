// Builders for the profiles ConfigMap, from real scripts in test/fixtures/checks/ or inline.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './env.js';

export function fixtureScript(name: string): string {
  return readFileSync(join(ROOT, 'test', 'fixtures', 'checks', name), 'utf8');
}

/** Data of a waitgate-profiles ConfigMap: each profile name to its script's text. */
export function profilesConfigMap(scripts: Record<string, string>): Record<string, string> {
  const data: Record<string, string> = {};
  const profiles: Record<string, object> = {};
  for (const [name, text] of Object.entries(scripts)) {
    data[`${name}.sh`] = text;
    profiles[name] = { mode: 'exec', script: `${name}.sh` };
  }
  data['profiles.json'] = JSON.stringify(profiles);
  return data;
}

/** Answers "not yet" on the first call for a target and "go" after; counts calls per target. */
export const NOT_YET_THEN_GO = `#!/bin/sh
dir=\${CHECK_STATE_DIR:?}
key=$(printf '%s' "$1" | tr -c 'A-Za-z0-9' '_')
n=$(cat "$dir/$key" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$dir/$key"
[ "$n" -ge 2 ] && exit 0
exit 3
`;

/** Logs when it starts and ends (ns), runs 300 ms, then says go. */
export const LOGS_ITS_RUN = `#!/bin/sh
echo "start $(date +%s%N) $1" >> "\${CHECK_LOG:?}"
sleep 0.3
echo "end $(date +%s%N) $1" >> "$CHECK_LOG"
exit 0
`;

/** Writes its pid, then hangs until killed. */
export const HANGS_WITH_PID = `#!/bin/sh
echo $$ > "\${CHECK_STATE_DIR:?}/pid"
exec sleep 120
`;
