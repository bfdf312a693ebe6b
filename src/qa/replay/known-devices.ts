// The devices this machine's replays made, with their MQTT passwords (the service keeps only a hash),
// so replaying a trace again against the same service plays as the same device instead of failing
// with 409. One JSON file (default ~/.meterstack/replay-devices.json, mode 0600), keyed by the
// service (its URL, or the database of an embedded one) and the device id.

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface KnownDevice {
  accountId: number;
  spaceId: number | null;
  password: string;
  apiKey: string | null;
  /** The broker the service named when the device was made. */
  mqttUrl: string;
}

export const DEFAULT_KNOWN_DEVICES = join(homedir(), '.meterstack', 'replay-devices.json');

type FileShape = Record<string, KnownDevice>;

const keyOf = (service: string, deviceId: string) => `${service} ${deviceId}`;

async function read(file: string): Promise<FileShape> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as FileShape) : {};
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`${file}: ${(err as Error).message}`);
  }
}

export async function knownDevice(
  file: string,
  service: string,
  deviceId: string,
): Promise<KnownDevice | undefined> {
  return (await read(file))[keyOf(service, deviceId)];
}

export async function rememberDevice(
  file: string,
  service: string,
  deviceId: string,
  device: KnownDevice,
): Promise<void> {
  const all = await read(file);
  all[keyOf(service, deviceId)] = device;
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  // Written aside and renamed: two replays at once never leave half a file.
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, file);
}
