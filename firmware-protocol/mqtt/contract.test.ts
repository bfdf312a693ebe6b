// CONTRACT.md is checked like code: its examples decode, and every rule cited anywhere is defined in it.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeMessage, decodeServiceAnnouncement } from './codec.ts';
import { PUBLISH_OPTIONS, SERVICE_TOPIC } from './topics.ts';

const read = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8');
const contract = read('CONTRACT.md');
const defined = new Set([...contract.matchAll(/^- \*\*(MC-\d+\.\d+)\*\*/gm)].map((m) => m[1]));
const examples = [...contract.matchAll(/```mqtt\n(.*)\n([\s\S]*?)```/g)].map((m) => ({
  head: m[1]!,
  payload: m[2]!,
}));

describe('CONTRACT.md', () => {
  it.each(examples.map((e) => [e.head, e] as const))('example on %s decodes', (_head, { head, payload }) => {
    const [topic, ...flags] = head.split(' ');
    if (topic === SERVICE_TOPIC) {
      // [MC-12.1] the one topic outside MC-1.1's four levels: retained, QoS 1
      expect(decodeServiceAnnouncement(payload)).toMatchObject({ ok: true });
      expect(flags).toEqual(['retain', 'qos1']);
      return;
    }
    const result = decodeMessage(topic!, payload);
    expect(result).toMatchObject({ ok: true });
    if (!result.ok) return;
    expect(flags.includes('retain')).toBe(PUBLISH_OPTIONS[result.value.channel].retain);
    expect(flags).toContain('qos1');
  });

  it('has an example on every channel', () => {
    const channels = new Set(
      examples.map((e) => e.head.split(' ')[0]!.split('/')[3]).filter((c) => c !== undefined),
    );
    expect([...channels].sort()).toEqual(['availability', 'cmd', 'info', 'reply', 'state', 'telemetry']);
  });

  it('numbers its rules in order, without gaps', () => {
    const numbers = [...defined].map((r) => r!.slice(3).split('.').map(Number));
    numbers.forEach(([major, minor], i) => {
      const [prevMajor, prevMinor] = numbers[i - 1] ?? [0, 0];
      expect(major === prevMajor ? minor === prevMinor! + 1 : major === prevMajor! + 1 && minor === 1).toBe(
        true,
      );
    });
  });

  it('defines every rule that the code, tests and golden vectors cite', () => {
    const files = readdirSync(new URL('.', import.meta.url), { recursive: true, encoding: 'utf8' }).filter(
      (f) => /\.(ts|json)$/.test(f),
    );
    const cited = new Set(files.flatMap((f) => [...read(f).matchAll(/MC-\d+\.\d+/g)].map((m) => m[0])));
    expect([...cited].filter((rule) => !defined.has(rule))).toEqual([]);
  });
});
