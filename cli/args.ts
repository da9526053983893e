// The command line's flags, read by node:util's parseArgs (strict): long `--name`,
// `--name=value`, short `-n value`, `-nvalue`, positionals anywhere, and `--` to end the flags.
// Unknown flags are refused, so a typo is a usage error rather than a setting that silently
// does nothing; this module only puts parseArgs' errors in the command line's own words.
import { parseArgs as parseWithNode } from 'node:util';

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

/** How the flag was written on the command line (`-n` or `--namespace`), for messages. */
function shownAs(raw: string, specs: readonly FlagSpec[]): string {
  if (raw.startsWith('--')) return raw.split('=')[0] as string;
  if (raw.startsWith('-')) return raw.slice(0, 2);
  const spec = specs.find((s) => s.name === raw || s.short === raw);
  return spec ? `--${spec.name}` : raw;
}

export function parseArgs(args: readonly string[], specs: readonly FlagSpec[]): ArgsResult {
  const options = Object.fromEntries(
    specs.map((s) => [s.name, { type: s.value ? ('string' as const) : ('boolean' as const), ...(s.short ? { short: s.short } : {}) }]),
  );
  let parsed;
  try {
    parsed = parseWithNode({ args: [...args], options, strict: true, allowPositionals: true, tokens: true });
  } catch (err) {
    const e = err as { code?: string; message?: string };
    const message = e.message ?? String(err);
    // node names the flag first, quoted ('--frobnicate', '-n, --namespace <value>', '--all'),
    // in both forms for a flag that has both: say it the way it was written.
    const long = /--([A-Za-z0-9-]+)/.exec(message)?.[1];
    const spec = specs.find((sp) => sp.name === long);
    const written = spec ? args.find((a) => a === `--${spec.name}` || (spec.short !== undefined && a === `-${spec.short}`)) : undefined;
    const flag = written ?? shownAs(/'(-{1,2}[^' ,=]+)/.exec(message)?.[1] ?? '', specs);
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return { ok: false, problem: `unknown flag ${flag}` };
    if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      return { ok: false, problem: /does not take an argument/.test(message) ? `${flag} takes no value` : `${flag} needs a value` };
    }
    return { ok: false, problem: message.split('\n')[0] as string };
  }
  const flags = new Map<string, string | true>();
  // In token order, so the last occurrence wins; `-n=value` means value, as kubectl reads it.
  for (const t of parsed.tokens) {
    if (t.kind !== 'option') continue;
    if (t.value === undefined) flags.set(t.name, true);
    else flags.set(t.name, t.inlineValue && t.rawName.length === 2 && t.value.startsWith('=') ? t.value.slice(1) : t.value);
  }
  return { ok: true, flags, positionals: parsed.positionals };
}

/** The value of a flag that takes one, or undefined when it was not given. */
export function flagValue(parsed: ParsedArgs, name: string): string | undefined {
  const v = parsed.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}

/** `-o json` / `--output json`: true for json, false for the default text; a problem otherwise. */
export function outputJson(parsed: ParsedArgs): boolean | { problem: string } {
  const v = outputFormat(parsed, []);
  return typeof v === 'object' ? v : v === 'json';
}

/** The `-o` format: text (the default), json, or one of `more` the command also prints. */
export function outputFormat(parsed: ParsedArgs, more: readonly string[]): string | { problem: string } {
  const v = flagValue(parsed, 'output');
  if (v === undefined || v === 'text') return 'text';
  if (v === 'json' || more.includes(v)) return v;
  const all = ['text (the default)', 'json', ...more];
  return { problem: `-o ${v}: the output formats are ${all.slice(0, -1).join(', ')} and ${all[all.length - 1]}` };
}

/** A subcommand's command line: its flags and the positionals it takes, exactly. */
export interface CommandLineSpec<P extends readonly string[]> {
  readonly flags: readonly FlagSpec[];
  /** The positionals, by the names usage gives them: ['PROFILE', 'TARGET']. */
  readonly positionals: P;
  /** The problem when some are missing, e.g. 'give a PROFILE and a TARGET'. */
  readonly missing?: string;
  /** The `-o` formats it prints beyond text and json (held: wide, name, yaml). */
  readonly outputs?: readonly string[];
}

export type CommandLine<P extends readonly string[]> =
  | ({
      readonly ok: true;
      readonly args: { readonly [K in keyof P]: string };
      readonly json: boolean;
      /** The `-o` format: text, json, or one of the spec's outputs. */
      readonly output: string;
    } & ParsedArgs)
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
  const output = outputFormat(parsed, spec.outputs ?? []);
  if (typeof output === 'object') return { ok: false, problem: output.problem };
  return { ...parsed, args: parsed.positionals as unknown as { readonly [K in keyof P]: string }, json: output === 'json', output };
}

export const KUBECONFIG_FLAG: FlagSpec = { name: 'kubeconfig', value: true };
/** The kubeconfig context to use, as kubectl's --context. */
export const CONTEXT_FLAG: FlagSpec = { name: 'context', value: true };
/** The namespace of the HeldJobs, as kubectl's -n. */
export const NAMESPACE_FLAG: FlagSpec = { name: 'namespace', short: 'n', value: true };
export const ALL_NAMESPACES_FLAG: FlagSpec = { name: 'all-namespaces', short: 'A' };
/** The install's namespace: waitgate's ConfigMaps and the operator's Deployment. */
export const WAITGATE_NAMESPACE_FLAG: FlagSpec = { name: 'waitgate-namespace', value: true };
/** The flags every command that reaches the cluster takes, as kubectl does. */
export const CLUSTER_FLAGS: readonly FlagSpec[] = [KUBECONFIG_FLAG, CONTEXT_FLAG];
/** Help lines for CLUSTER_FLAGS. */
export const CLUSTER_FLAGS_HELP: readonly string[] = [
  '  --kubeconfig PATH    default: $KUBECONFIG, then ~/.kube/config, then in-cluster',
  "  --context NAME       the kubeconfig context to use (default: the kubeconfig's current one)",
];
export const OUTPUT_FLAG: FlagSpec = { name: 'output', short: 'o', value: true };
export const HELP_FLAG: FlagSpec = { name: 'help', short: 'h' };
