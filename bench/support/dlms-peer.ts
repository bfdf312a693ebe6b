// The peer of bench/dlms-bridge.ts, run as its own process: the same meters read by a bare loop of our
// DLMS client (DlmsClient on WrapperTcpTransport) doing the bridge's GETs — the object list and scalers
// once, then each poll's GET with-list decoded into a sample (readPoll) — on the same period and the
// same stagger, with no MQTT, no state file and no MeterLink. What is left is the DLMS work itself.
//
// Run by the bench: node --import tsx bench/support/dlms-peer.ts <meters.json> <password> <pollS>
// Prints "peer: N associated" once every meter is, then "peer: polls P errors E" every second.

import { readFileSync } from 'node:fs';
import type { GetDataResult } from '../../firmware-protocol/dlms/apdu/cosem.ts';
import { attribute } from '../../firmware-protocol/dlms/client/calls.ts';
import { DEFAULT_SESSION } from '../../firmware-protocol/dlms/client/session.ts';
import { objectListFrom } from '../../firmware-protocol/dlms/client/values.ts';
import { OBIS } from '../../firmware-protocol/dlms/cosem/obis.ts';
import { IST_OFFSET_MIN } from '../../firmware-protocol/dlms/cosem/rows.ts';
import { DlmsClient } from '../../src/bridge/dlms/client.ts';
import { staggerMs } from '../../src/bridge/dlms/fleet.ts';
import {
  modelFromList,
  pollAttributes,
  readPoll,
  scalerAttributes,
  scalersFrom,
} from '../../src/bridge/dlms/meter-model.ts';
import { WrapperTcpTransport } from '../../src/bridge/dlms/wrapper-tcp.ts';

const [file, password, pollSText] = process.argv.slice(2);
const meters = JSON.parse(readFileSync(file!, 'utf8')) as { device: string; tcp: string }[];
const pollMs = Number(pollSText) * 1000;
let associated = 0;
let polls = 0;
let errors = 0;

async function listResults(client: DlmsClient, attrs: ReturnType<typeof attribute>[]) {
  const out = await client.call({ kind: 'get-list', items: attrs.map((a) => ({ attribute: a })) });
  if (out.kind !== 'list') throw new Error(`get-list: ${out.kind}`);
  return out.results as GetDataResult[];
}

async function run(m: { device: string; tcp: string }): Promise<void> {
  const [host, port] = m.tcp.split(':');
  const client = new DlmsClient({
    transport: new WrapperTcpTransport({ host: host!, port: Number(port), client: 32, server: 1 }),
    session: { ...DEFAULT_SESSION, password: password! },
    now: Date.now,
    onBad: () => errors++,
    onLost: () => errors++,
  });
  await client.open();
  const list = await client.call({ kind: 'get', attribute: attribute(15, OBIS.associationCurrent, 2) });
  if (list.kind !== 'data') throw new Error('object list');
  const model = modelFromList(objectListFrom(list.data)!);
  if ('error' in model) throw new Error(model.error);
  const scalerAttrs = scalerAttributes(model);
  const scalers = scalersFrom(scalerAttrs, await listResults(client, scalerAttrs));
  const polled = pollAttributes(model);
  associated++;
  const poll = async () => {
    try {
      const results = await listResults(
        client,
        polled.map((p) => p.attribute),
      );
      const r = readPoll(polled, results, scalers, Date.now(), IST_OFFSET_MIN);
      if (r.ok) polls++;
      else errors++;
    } catch {
      errors++;
    }
  };
  await poll();
  setInterval(poll, pollMs);
}

for (const [i, m] of meters.entries()) {
  setTimeout(
    () => {
      run(m).catch((err: unknown) => {
        errors++;
        process.stderr.write(`peer: ${m.device}: ${(err as Error).message}\n`);
      });
    },
    staggerMs(i, meters.length, pollMs),
  );
}
const announce = setInterval(() => {
  if (associated < meters.length) return;
  process.stdout.write(`peer: ${associated} associated\n`);
  clearInterval(announce);
}, 100);
setInterval(() => process.stdout.write(`peer: polls ${polls} errors ${errors}\n`), 1_000);
