// waitgate triggers check FILE: loads a triggers file the way the receiver does and prints
// either how many triggers it holds or every reason it is refused.
import { parseTriggersFile } from '../../api/triggers/triggers-file.js';
import type { TriggerRefusal } from '../../api/triggers/types.js';
import { triggerWarnings, type TriggerWarning } from '../../api/triggers/warnings.js';
import { HELP_FLAG, OUTPUT_FLAG, parseCommandLine } from '../args.js';
import type { CliIo } from '../io.js';
import { ExitCode, printHelp, refuseUsage, wantsHelp, type Command } from './command.js';
import { TRIGGERS_KEY, triggersSource } from './triggers-source.js';

export const triggersCheck: Command = {
  words: ['triggers', 'check'],
  args: 'FILE [-o json]',
  summary: `check a triggers file (${TRIGGERS_KEY}, or a ConfigMap manifest that holds it)`,
  help: [
    `FILE is the ${TRIGGERS_KEY} file itself, or a ConfigMap manifest (YAML or JSON) whose`,
    `data has a ${TRIGGERS_KEY} key; other resources in the same manifest are ignored.`,
    '',
    'Exit status 0: the file loads, and "N triggers loaded" is printed. A trigger that loads',
    'but may not do what was meant is warned about on standard error, one line each:',
    '  warning: <trigger> <path>: <code>: <why>',
    '  (trigger-every-repository: no on.repositories, so every repository a hook covers fires it).',
    'Exit status 2: the file is refused; each refusal is printed on standard output as',
    '  <trigger> <path>: <code>: <why>',
    `  where <trigger> is the entry's name, or #<index> when it has no usable name.`,
    'Exit status 2 as well when FILE cannot be read or is no manifest this command understands.',
    '',
    '  -o json   {"ok": true, "loaded": N, "triggers": [names], "warnings": [{"where", "path",',
    '            "code", "message"}]} or {"ok": false, "refusals": [{"where", "path", "code",',
    '            "message"}]}; the exit status is the same',
  ].join('\n'),
  run: runTriggersCheck,
  flags: [OUTPUT_FLAG, HELP_FLAG],
};

export async function runTriggersCheck(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) return printHelp(triggersCheck, io);
  const parsed = parseCommandLine(args, { flags: [OUTPUT_FLAG, HELP_FLAG], positionals: ['FILE'], missing: 'give a FILE' });
  if (!parsed.ok) return refuseUsage(triggersCheck, io, parsed.problem);
  const [file] = parsed.args;
  const { json } = parsed;
  let text: string;
  try {
    text = await io.readFile(file);
  } catch (err) {
    io.stderr(`waitgate: cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
    return ExitCode.Refused;
  }
  const source = triggersSource(text, file);
  if (!source.ok) {
    io.stderr(`waitgate: ${source.problem}`);
    return ExitCode.Refused;
  }
  if (source.note !== undefined) io.stderr(`waitgate: ${source.note}`);
  const checked = parseTriggersFile(source.text);
  if (checked.ok) {
    const n = checked.triggers.length;
    const warnings = triggerWarnings(checked.triggers);
    if (json) io.stdout(JSON.stringify({ ok: true, loaded: n, triggers: checked.triggers.map((t) => t.name), warnings }, null, 2));
    else {
      for (const warning of warnings) io.stderr(formatWarning(warning));
      io.stdout(`${n} ${n === 1 ? 'trigger' : 'triggers'} loaded`);
    }
    return ExitCode.Ok;
  }
  if (json) io.stdout(JSON.stringify({ ok: false, refusals: checked.refusals }, null, 2));
  else for (const refusal of checked.refusals) io.stdout(formatRefusal(refusal));
  return ExitCode.Refused;
}

/** `<where> <path>: <code>: <message>`; a name that would break the columns is quoted. */
export function formatRefusal(r: TriggerRefusal): string {
  return `${formatWhere(r.where)} ${r.path}: ${r.code}: ${r.message}`;
}

/** `warning: <where> <path>: <code>: <message>`, in the columns of a refusal. */
export function formatWarning(w: TriggerWarning): string {
  return `warning: ${formatWhere(w.where)} ${w.path}: ${w.code}: ${w.message}`;
}

// Control characters are exactly what this pattern keeps out of a bare word.
// eslint-disable-next-line no-control-regex
const PLAIN_WORD = /^[^\s"\u0000-\u001f\u007f-\u009f\u2028\u2029]+$/;

function formatWhere(where: string): string {
  return PLAIN_WORD.test(where) ? where : JSON.stringify(where);
}
