// The peer of the ingest benches: one bare mqtt.js subscriber in its own process (as serve is), QoS 1 on
// every meter's telemetry, counting messages. Prints `ready`, then `done <count> <cpuSeconds>` once it
// has `expected` messages (or on SIGTERM, with what it has).
//
// Run by bench/scale-ingest.ts: tsx bench/support/bare-subscriber.ts <url> <username> <password> <expected>

import { connectMqtt } from '../../src/mqtt/connect.ts';

const [url, username, password, expectedRaw] = process.argv.slice(2);
const expected = Number(expectedRaw);
const client = await connectMqtt({
  url: url!,
  username,
  password,
  clientId: `bare-${process.pid}`,
  reconnectPeriod: 0,
});
let count = 0;
const finish = () => {
  const cpu = process.cpuUsage();
  process.stdout.write(`done ${count} ${(cpu.user + cpu.system) / 1e6}\n`);
  client.end(true, {}, () => process.exit(0));
};
client.on('message', () => {
  if (++count === expected) finish();
});
await client.subscribeAsync('meterstack/v1/+/telemetry', { qos: 1 });
process.once('SIGTERM', finish);
process.stdout.write('ready\n');
