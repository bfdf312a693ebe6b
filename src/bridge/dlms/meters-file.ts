// [CL-11.1] `bridge --dlms --meters <file.json>`: the list of meters one bridge process holds, checked
// before anything opens. Each problem names the entry's index and field, so a list of 500 meters with
// one typo says where the typo is. Pure but for resolving state file paths against the working directory.

import { resolve } from 'node:path';
import { z } from 'zod';
import type { HdlcAddress } from '../../../firmware-protocol/dlms/hdlc/frame.ts';
import { DEVICE_ID_PATTERN } from '../../../firmware-protocol/mqtt/topics.ts';
import { parseServerAddress } from './server-address.ts';

/** [CL-11.1] The most meters one bridge process takes (decision 275). */
export const MAX_FLEET_METERS = 10_000;

export interface FleetMeter {
  device: string;
  host: string;
  port: number;
  client: number | undefined;
  /** The meter's wPort, as `--server` over TCP. */
  server: HdlcAddress | undefined;
  /** The association's LLS password. */
  password: string | undefined;
  /** The meter's MQTT password [CL-11.3]. */
  mqttPassword: string | undefined;
  stateFile: string | undefined;
}

const hostPort = /^(.+):(\d{1,5})$/;

const entry = z.strictObject({
  device: z.string().regex(DEVICE_ID_PATTERN, 'must be 1-64 characters of A-Z a-z 0-9 _ . - [MC-1.2]'),
  tcp: z.string().refine((s) => {
    const m = hostPort.exec(s);
    return m !== null && Number(m[2]) >= 1 && Number(m[2]) <= 65_535;
  }, 'expected host:port, e.g. 10.0.0.5:4059'),
  client: z.number().int().min(1).max(0x7f).optional(),
  server: z
    .union([z.number().int(), z.string()])
    .refine((s) => parseServerAddress(String(s)) !== null, 'expected a wPort 1..127, e.g. 1')
    .optional(),
  password: z.string().min(1).max(64).optional(),
  mqttPassword: z.string().optional(),
  stateFile: z.string().min(1).optional(),
});

/** The meters of a meters file, or each problem found ("meters[3].tcp: expected host:port ..."). */
export function parseMetersFile(text: string): { meters: FleetMeter[] } | { problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { problems: [`not JSON: ${(err as Error).message}`] };
  }
  if (!Array.isArray(json))
    return { problems: ['expected a JSON list of meters, [{"device": …, "tcp": …}, …]'] };
  if (json.length === 0) return { problems: ['the list is empty: no meter to bridge'] };
  if (json.length > MAX_FLEET_METERS)
    return { problems: [`${json.length} meters: one bridge process takes at most ${MAX_FLEET_METERS}`] };
  const problems: string[] = [];
  const meters: FleetMeter[] = [];
  json.forEach((item: unknown, i) => {
    const r = entry.safeParse(item);
    if (!r.success) {
      for (const issue of r.error.issues) {
        const field = issue.path.length ? `.${issue.path.join('.')}` : '';
        const what =
          issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.join(', ')}` : issue.message;
        problems.push(`meters[${i}]${field}: ${what}`);
      }
      return;
    }
    const e = r.data;
    const m = hostPort.exec(e.tcp)!;
    meters.push({
      device: e.device,
      host: m[1]!.replace(/^\[|\]$/g, ''),
      port: Number(m[2]),
      client: e.client,
      server: e.server === undefined ? undefined : (parseServerAddress(String(e.server)) ?? undefined),
      password: e.password,
      mqttPassword: e.mqttPassword,
      stateFile: e.stateFile,
    });
  });
  // [CL-11.1] Two entries for one device would log in twice (each throwing the other off the broker)
  // and write one state file from two bridges: recharges could credit twice.
  const seen = new Map<string, number>();
  const files = new Map<string, number>();
  json.forEach((item: unknown, i) => {
    const device = (item as { device?: unknown })?.device;
    const file = (item as { stateFile?: unknown })?.stateFile;
    if (typeof device === 'string') {
      const first = seen.get(device);
      if (first !== undefined)
        problems.push(`meters[${i}].device: ${device} again (first at meters[${first}])`);
      else seen.set(device, i);
    }
    if (typeof file === 'string' && file.length > 0) {
      // Compared as the path it names, not as text: "./a.json" and "a.json" are one file.
      const path = resolve(file);
      const first = files.get(path);
      if (first !== undefined)
        problems.push(`meters[${i}].stateFile: ${file} is meters[${first}]'s state file again`);
      else files.set(path, i);
    }
  });
  return problems.length ? { problems } : { meters };
}
