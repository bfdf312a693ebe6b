// Usage errors of a `meterstack <command>`: the reason and one line saying where the flags are, exit
// code 2. Not the whole help: 45 lines of it scroll the reason off the screen (issue 20 item 9).

import { type ParseArgsConfig, parseArgs } from 'node:util';
import { didYouMean } from '../qa/did-you-mean.ts';

/** A command's parsed flags. */
export type FlagValues = Record<string, string | boolean | undefined>;

export interface Usage {
  /** Reports a usage error; returns nothing so a caller can `return usage.error(...)`. */
  error(msg: string): void;
  /** A number flag: undefined when absent, null (already reported) when `check` fails. */
  number(
    name: string,
    text: string | undefined,
    check: (n: number) => boolean,
    expected?: string,
  ): number | undefined | null;
  /**
   * `argv` parsed strictly, with `-h, --help` added and a negative number taken as a flag's value
   * (`--baud -5` is a range error, not "ambiguous"): the values, or null when the command is done, its
   * help printed or a usage error reported.
   */
  flags(argv: readonly string[], options: NonNullable<ParseArgsConfig['options']>): FlagValues | null;
}

export const positiveInt = (n: number) => Number.isInteger(n) && n > 0;

/** The flags a help text names (`--http-port`, `--no-demo`, …): what a typo is compared with. */
export function flagsOf(help: string): string[] {
  return [...new Set(help.match(/--[a-z][a-z0-9-]*/g) ?? [])];
}

/**
 * node's parseArgs errors in a user's words: an unknown flag with the one probably meant, a missing
 * value, a stray argument. Any other message is passed on.
 */
export function flagProblem(msg: string, flags: readonly string[]): string {
  const unknown = /^Unknown option '([^']+)'/.exec(msg);
  if (unknown) return `unknown flag ${unknown[1]}${didYouMean(unknown[1]!, flags)}`;
  const missing = /^Option '(-\S+)(?: <value>)?' argument missing/.exec(msg);
  if (missing) return `${lastFlag(missing[1]!)} needs a value`;
  const stray = /^Unexpected argument '([^']*)'/.exec(msg);
  if (stray) return `unexpected argument '${stray[1]}' (this command takes flags only)`;
  const noValue = /^Option '(-\S+)' does not take an argument/.exec(msg);
  if (noValue) return `${lastFlag(noValue[1]!)} takes no value`;
  return msg;
}

/** `-h, --help` → `--help`. */
const lastFlag = (names: string): string => names.split(', ').at(-1)!;

/**
 * `--speed -1` as `--speed=-1`: node's parseArgs takes `-1` for a flag and calls the value
 * "ambiguous"; joined, it reaches the flag's own check, which says what range is allowed.
 */
export function joinNegativeNumbers(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (/^--[^=]+$/.test(arg) && next !== undefined && /^-(\d|\.\d)/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** Writes a usage error of `command` to stderr and sets exit code 2. */
export function usageError(command: string, msg: string, help = ''): void {
  process.stderr.write(
    `meterstack ${command}: ${flagProblem(msg, flagsOf(help))}\nrun \`meterstack ${command} --help\` for the flags\n`,
  );
  process.exitCode = 2;
}

export function usage(command: string, help: string): Usage {
  const error = (msg: string): void => usageError(command, msg, help);
  return {
    error,
    number(name, text, check, expected = 'is not a valid value') {
      if (text === undefined) return undefined;
      const n = Number(text);
      if (text.trim() === '' || !check(n)) {
        error(`--${name} ${expected}, got ${text}`);
        return null;
      }
      return n;
    },
    flags(argv, options) {
      let values: FlagValues;
      try {
        ({ values } = parseArgs({
          args: joinNegativeNumbers(argv),
          options: { ...options, help: { type: 'boolean', short: 'h' } },
          strict: true,
        }) as { values: FlagValues });
      } catch (err) {
        error((err as Error).message);
        return null;
      }
      if (values['help']) {
        process.stdout.write(help);
        return null;
      }
      return values;
    },
  };
}
