// Usage errors of a `meterstack <command>`: the reason, then the command's help, exit code 2.

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
}

export const positiveInt = (n: number) => Number.isInteger(n) && n > 0;

export function usage(command: string, help: string): Usage {
  const error = (msg: string): void => {
    process.stderr.write(`meterstack ${command}: ${msg}\n\n${help}`);
    process.exitCode = 2;
  };
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
  };
}
