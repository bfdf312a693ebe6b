// Decode errors: every rejection names the contract rule it enforces [MC-9.4].
import type { z } from 'zod';
import type { Channel } from './topics.ts';

export interface DecodeError {
  /** The CONTRACT.md rule the input violates, e.g. `MC-7.3`. */
  rule: string;
  /** What is wrong, starting with the JSON path when there is one: `samples.1.ts: ...`. */
  message: string;
}

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; error: DecodeError };

export function fail(rule: string, message: string): { ok: false; error: DecodeError } {
  return { ok: false, error: { rule, message } };
}

/** Shortens untrusted text quoted in a message, so an error stays small whatever the input. */
export function clip(text: string, max = 64): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}

/** The rule a schema issue breaks, from the channel and the issue's path (custom checks carry their own). */
function ruleFor(channel: Channel, issue: z.core.$ZodIssue, input: unknown): string {
  if (issue.code === 'custom' && typeof issue.params?.['rule'] === 'string') return issue.params['rule'];
  if (issue.code === 'invalid_type' && valueAt(input, issue.path) === null) return 'MC-3.8';
  const [first, second] = issue.path;
  if (first === 'v') return 'MC-3.3';
  switch (channel) {
    case 'info':
      if (first === 'serial') return 'MC-4.5';
      if (first === 'register_max_kwh') return 'MC-4.6';
      if (first !== 'properties') return 'MC-4.2';
      return issue.path[2] === 'resolution' ? 'MC-4.4' : 'MC-4.3';
    case 'state':
      return first === 'low_balance' ? 'MC-5.6' : 'MC-5.2';
    case 'availability':
      return 'MC-6.1';
    case 'telemetry':
      if (second === undefined) return 'MC-7.2';
      return issue.path[2] === 'register_epoch' ? 'MC-7.9' : 'MC-7.4';
    case 'cmd':
      if (first === 'id') return 'MC-8.2';
      return first === 'op' ? 'MC-8.3' : 'MC-8.4';
    case 'reply':
      if (first === 'id') return 'MC-8.2';
      return first === 'error' && second !== undefined ? 'MC-8.7' : 'MC-8.5';
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** `path: message` for the first issue, with `(+N more)` when there are others. */
export function formatIssues(issues: readonly z.core.$ZodIssue[], input: unknown, under?: string): string {
  const issue = issues[0]!;
  const path = (under === undefined ? issue.path : [under, ...issue.path]).join('.') || '(root)';
  let message = issue.message;
  // zod's wording for an unknown discriminator does not say what was received.
  if (issue.code === 'invalid_union' && issue.path.length === 1 && issue.path[0] === 'op') {
    const op = (input as Record<string, unknown>)['op'];
    message = typeof op === 'string' ? `unknown op "${clip(op)}"` : 'missing or not a string';
  }
  const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : '';
  return `${path}: ${message}${more}`;
}

export function schemaError(
  channel: Channel,
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
): DecodeError {
  return { rule: ruleFor(channel, issues[0]!, input), message: formatIssues(issues, input) };
}
