// Shell completion: what may come next on a command line, from the commands' own words and
// flags. `waitgate __complete WORDS... PARTIAL` prints the candidates in the format kubectl
// expects from a plugin's completer (one a line, then `:<directive>`), so the same answer
// serves `kubectl waitgate <TAB>` (through kubectl_complete-waitgate) and the bash and zsh
// scripts `waitgate completion` prints.
import type { FlagSpec } from './args.js';
import type { Command } from './commands/command.js';

/** Cobra's directives: 4 = do not fall back to file names; 0 = default (files are fine). */
export const CompletionDirective = { Default: 0, NoFileComp: 4 } as const;
export type CompletionDirective = (typeof CompletionDirective)[keyof typeof CompletionDirective];

const TOP_LEVEL_FLAGS = ['--help', '--version'];
const VALUES: Record<string, readonly string[]> = { output: ['json', 'text'] };
/** Commands printing more -o formats than text and json. */
const MORE_OUTPUTS: Record<string, readonly string[]> = { held: ['name', 'wide', 'yaml'] };

/** What the cluster is asked for, to complete a word: names it lists (cli/completion-lookup.ts). */
export const Lookup = { HeldJobs: 'heldjobs', Profiles: 'profiles', Namespaces: 'namespaces' } as const;
export type Lookup = (typeof Lookup)[keyof typeof Lookup];

/** The commands whose NAME is a HeldJob's. */
const HELDJOB_COMMANDS = ['cancel', 'describe', 'approve', 'reject'];

export interface Completion {
  readonly candidates: string[];
  readonly directive: CompletionDirective;
  /** Names the cluster has that complete this word, when there are any: asked for by the caller, bounded. */
  readonly lookup?: Lookup;
}

/** The flags' values on the words typed so far, for a lookup: -n, --kubeconfig, --context, --waitgate-namespace. */
export function flagsOnLine(words: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const names: Record<string, string> = { '-n': 'namespace', '--namespace': 'namespace' };
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const eq = /^--([a-z-]+)=(.*)$/.exec(w);
    if (eq) out[eq[1] as string] = eq[2] as string;
    else if (w.startsWith('-') && i + 1 < words.length) out[names[w] ?? w.replace(/^--/, '')] = words[i + 1] as string;
  }
  return out;
}

/** The candidates for `partial` after `words`, whether file names make sense there, and what to look up. */
export function complete(commands: readonly Command[], words: readonly string[], partial: string): Completion {
  const starts = (xs: readonly string[]) => xs.filter((x) => x.startsWith(partial));
  const command = commands.find((c) => c.words.every((w, i) => words[i] === w));
  if (command === undefined) {
    // Still choosing the command: its next word.
    const next = new Set(
      commands
        .filter((c) => words.every((w, i) => c.words[i] === w) && c.words.length > words.length)
        .map((c) => c.words[words.length] as string),
    );
    if (words.length === 0) {
      next.add('completion');
      for (const f of TOP_LEVEL_FLAGS) next.add(f);
    }
    if (words[0] === 'completion' && words.length === 1)
      return { candidates: starts(['bash', 'zsh']), directive: CompletionDirective.NoFileComp };
    return { candidates: starts([...next].sort()), directive: CompletionDirective.NoFileComp };
  }
  const flags = command.flags ?? [];
  // The value of a flag just given.
  const last = words[words.length - 1];
  const valued = flags.find((f) => f.value && (last === `--${f.name}` || (f.short !== undefined && last === `-${f.short}`)));
  if (valued && words.length > command.words.length) {
    if (valued.name === 'namespace' || valued.name === 'waitgate-namespace')
      return { candidates: [], directive: CompletionDirective.NoFileComp, lookup: Lookup.Namespaces };
    const values =
      valued.name === 'output'
        ? [...(VALUES['output'] ?? []), ...(MORE_OUTPUTS[command.words.join(' ')] ?? [])].sort()
        : VALUES[valued.name];
    return values
      ? { candidates: starts(values), directive: CompletionDirective.NoFileComp }
      : { candidates: [], directive: CompletionDirective.Default };
  }
  if (partial.startsWith('-')) {
    const names = flags.flatMap((f) => [`--${f.name}`, ...(f.short !== undefined ? [`-${f.short}`] : [])]);
    return { candidates: starts(names.sort()), directive: CompletionDirective.NoFileComp };
  }
  // A positional: a HeldJob's name, a profile's (check's first), a file for `triggers check`.
  const given = positionalCount(words.slice(command.words.length), flags);
  const key = command.words.join(' ');
  if (HELDJOB_COMMANDS.includes(key) && given === 0)
    return { candidates: [], directive: CompletionDirective.NoFileComp, lookup: Lookup.HeldJobs };
  if (key === 'check' && given === 0) return { candidates: [], directive: CompletionDirective.NoFileComp, lookup: Lookup.Profiles };
  const wantsFile = command.args.includes('FILE');
  return { candidates: [], directive: wantsFile ? CompletionDirective.Default : CompletionDirective.NoFileComp };
}

/** How many positionals are among `args` (a valued flag's value is not one). */
function positionalCount(args: readonly string[], flags: readonly FlagSpec[]): number {
  let n = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith('-')) n++;
    else if (!a.includes('=') && flags.some((f) => f.value && (a === `--${f.name}` || (f.short !== undefined && a === `-${f.short}`)))) i++;
  }
  return n;
}

/** The script `waitgate completion bash` prints: it asks `waitgate __complete` at each TAB. */
export const BASH_COMPLETION = `# waitgate completion for bash: source <(waitgate completion bash)
_waitgate() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  local out directive
  out=$(waitgate __complete "\${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null) || return
  directive=\${out##*:}
  out=$(printf '%s\\n' "$out" | sed '$d')
  COMPREPLY=($(compgen -W "$out" -- "$cur"))
  if [ \${#COMPREPLY[@]} -eq 0 ] && [ "$directive" = 0 ]; then COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -F _waitgate waitgate
`;

/** The script `waitgate completion zsh` prints. */
export const ZSH_COMPLETION = `#compdef waitgate
# waitgate completion for zsh: source <(waitgate completion zsh)
_waitgate() {
  local -a out
  out=("\${(@f)$(waitgate __complete "\${(@)words[2,CURRENT-1]}" "\${words[CURRENT]}" 2>/dev/null)}")
  local directive=\${out[-1]#:}
  out=("\${(@)out[1,-2]}")
  if (( \${#out} )); then compadd -a out; elif [[ $directive == 0 ]]; then _files; fi
}
compdef _waitgate waitgate
`;
