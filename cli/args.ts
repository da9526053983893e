// A small command-line parser: named flags (long `--name`, `--name=value`, short `-n value`,
// `-nvalue`), positionals, and `--` to end the flags. Unknown flags are refused, so a typo is
// a usage error rather than a setting that silently does nothing.

export interface FlagSpec {
  /** The long name, without the dashes: 'namespace'. */
  readonly name: string;
  /** One letter for the short form: 'n'. */
  readonly short?: string;
  /** True when the flag takes a value. */
  readonly value?: boolean;
}

export interface ParsedArgs {
  /** By long name: the value, or true for a flag without one. The last occurrence wins. */
  readonly flags: ReadonlyMap<string, string | true>;
  readonly positionals: readonly string[];
}

export type ArgsResult = ({ readonly ok: true } & ParsedArgs) | { readonly ok: false; readonly problem: string };

export function parseArgs(args: readonly string[], specs: readonly FlagSpec[]): ArgsResult {
  const flags = new Map<string, string | true>();
  const positionals: string[] = [];
  const byLong = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.flatMap((s) => (s.short ? [[s.short, s] as const] : [])));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    let spec: FlagSpec | undefined;
    let inline: string | undefined;
    let shown: string;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq === -1 ? undefined : arg.slice(eq + 1);
      spec = byLong.get(name);
      shown = `--${name}`;
    } else if (arg.startsWith('-') && arg.length > 1) {
      spec = byShort.get(arg[1] as string);
      shown = arg.slice(0, 2);
      if (arg.length > 2) inline = arg[2] === '=' ? arg.slice(3) : arg.slice(2);
    } else {
      positionals.push(arg);
      continue;
    }
    if (spec === undefined) return { ok: false, problem: `unknown flag ${shown}` };
    if (!spec.value) {
      if (inline !== undefined) return { ok: false, problem: `${shown} takes no value` };
      flags.set(spec.name, true);
      continue;
    }
    if (inline === undefined) {
      const next = args[i + 1];
      if (next === undefined) return { ok: false, problem: `${shown} needs a value` };
      inline = next;
      i++;
    }
    flags.set(spec.name, inline);
  }
  return { ok: true, flags, positionals };
}

/** The value of a flag that takes one, or undefined when it was not given. */
export function flagValue(parsed: ParsedArgs, name: string): string | undefined {
  const v = parsed.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}

/** `-o json` / `--output json`: true for json, false for the default text; a problem otherwise. */
export function outputJson(parsed: ParsedArgs): boolean | { problem: string } {
  const v = flagValue(parsed, 'output');
  if (v === undefined || v === 'text') return false;
  if (v === 'json') return true;
  return { problem: `-o ${v}: the output formats are text (the default) and json` };
}

/** A subcommand's command line: its flags and the positionals it takes, exactly. */
export interface CommandLineSpec<P extends readonly string[]> {
  readonly flags: readonly FlagSpec[];
  /** The positionals, by the names usage gives them: ['PROFILE', 'TARGET']. */
  readonly positionals: P;
  /** The problem when some are missing, e.g. 'give a PROFILE and a TARGET'. */
  readonly missing?: string;
}

export type CommandLine<P extends readonly string[]> =
  | ({ readonly ok: true; readonly args: { readonly [K in keyof P]: string }; readonly json: boolean } & ParsedArgs)
  | { readonly ok: false; readonly problem: string };

/**
 * The shape the subcommands share: the flags parse, exactly the positionals it takes are
 * given, and `-o` is text or json. The first problem, in that order, refuses the line.
 */
export function parseCommandLine<const P extends readonly string[]>(args: readonly string[], spec: CommandLineSpec<P>): CommandLine<P> {
  const parsed = parseArgs(args, spec.flags);
  if (!parsed.ok) return parsed;
  const want = spec.positionals.length;
  if (parsed.positionals.length < want) return { ok: false, problem: spec.missing ?? `give ${spec.positionals.join(' and ')}` };
  if (parsed.positionals.length > want) return { ok: false, problem: `unexpected argument ${parsed.positionals[want]}` };
  const json = outputJson(parsed);
  if (typeof json === 'object') return { ok: false, problem: json.problem };
  return { ...parsed, args: parsed.positionals as unknown as { readonly [K in keyof P]: string }, json };
}

export const KUBECONFIG_FLAG: FlagSpec = { name: 'kubeconfig', value: true };
export const OUTPUT_FLAG: FlagSpec = { name: 'output', short: 'o', value: true };
export const HELP_FLAG: FlagSpec = { name: 'help', short: 'h' };
