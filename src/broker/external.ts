// An external MQTT broker the service uses instead of the embedded aedes (`serve --broker
// mqtt://user:password@host:port`). The URL's login is the service's own on that broker.

import type { Log } from '../log/types.ts';
import { connectMqtt } from '../mqtt/connect.ts';
import type { BrokerLogin, ServiceBroker } from './service-broker.ts';

export class BrokerConfigError extends Error {}

/** Splits `mqtt://user:password@host:port` into the URL meters use and the service's login. */
export function parseBrokerUrl(raw: string): { url: string; login: BrokerLogin } {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new BrokerConfigError(`--broker: not a URL: '${raw}' (expected mqtt://user:password@host:port)`);
  }
  if (parsed.protocol !== 'mqtt:') {
    throw new BrokerConfigError(`--broker: only mqtt:// URLs are supported, got '${parsed.protocol}//'`);
  }
  if (!parsed.username) {
    throw new BrokerConfigError(
      `--broker: the URL must carry the service's login on that broker (mqtt://user:password@${parsed.host})`,
    );
  }
  const url = `mqtt://${parsed.hostname}:${parsed.port || 1883}`;
  return {
    url,
    login: { username: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password) },
  };
}

export interface ExternalBrokerOptions {
  /** mqtt://user:password@host:port */
  url: string;
  log: Log;
  /** How long to wait for the broker's CONNACK before giving up. Default 5 s. */
  connectTimeoutMs?: number;
}

/**
 * Checks that the broker answers and takes the service's login, then hands it over. Logins of meters
 * are the broker's own business here: addMeter does nothing.
 */
export async function connectExternalBroker(opts: ExternalBrokerOptions): Promise<ServiceBroker> {
  const { url, login } = parseBrokerUrl(opts.url);
  await probeLogin(url, login, opts.connectTimeoutMs ?? 5_000);
  opts.log('info', `MQTT: using the external broker at ${url} as ${login.username}`);
  return {
    kind: 'external',
    url,
    service: login,
    addMeter: async () => {},
    removeMeter: async () => {},
    onMeterLinkTimeout: () => () => {},
    embedded: null,
    close: async () => {},
  };
}

/** Logs in once as the service: a clear error naming the address if it cannot, never a hang. */
async function probeLogin(url: string, login: BrokerLogin, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new BrokerConfigError(`the MQTT broker at ${url} did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  const attempt = connectMqtt({
    url,
    username: login.username,
    password: login.password,
    clientId: `meterstack-probe-${process.pid}-${Date.now().toString(36)}`,
    reconnectPeriod: 0,
    connectTimeout: timeoutMs,
  }).then(
    (client) => new Promise<void>((resolve) => client.end(false, {}, () => resolve())),
    (err: Error & { code?: string | number }) => {
      const why =
        err.code === 'ECONNREFUSED'
          ? 'nothing listens there (connection refused)'
          : err.code === 4 || err.code === 5 || /not authori|bad user/i.test(err.message)
            ? `it refused the login of '${login.username}' (${err.message})`
            : err.message;
      throw new BrokerConfigError(`the MQTT broker at ${url}: ${why}`);
    },
  );
  try {
    await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
