// After a replay: wait until the service has stored the last sample, seen through the v2 history (the
// broker acknowledging a message does not mean the service has written it yet).

import { bucketStart } from '../../store/buckets.ts';
import { istDate, toIstIsoSeconds } from '../../time/ist.ts';

const QUARTER_MS = 15 * 60_000;

export async function waitForHistory(
  httpUrl: string,
  apiKey: string,
  deviceId: string,
  lastTs: number,
  energyKwh: number,
  timeoutMs = 30_000,
): Promise<boolean> {
  const day = istDate(lastTs);
  const stamp = toIstIsoSeconds(bucketStart(lastTs, QUARTER_MS) + QUARTER_MS - 1000);
  const url = `${httpUrl}/api/v2/devices/${encodeURIComponent(deviceId)}/metrics/history?property_id=energy&interval=15m&from_date=${day}&to_date=${day}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await fetch(url, { headers: { 'x-service-api-key': apiKey } });
    if (res.ok) {
      const body = (await res.json()) as { data: { readings: { value: number; timestamp: string }[] } };
      const last = body.data.readings.at(-1);
      if (last && last.timestamp === stamp && last.value === energyKwh) return true;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}
