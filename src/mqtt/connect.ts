// One way to open an MQTT client in meterstack: a plain mqtt:// URL (embedded aedes, Mosquitto, EMQX alike)
// over a TCP socket with TCP_NODELAY. With Nagle's algorithm a command round trip costs 40–90 ms
// instead of well under 1 ms, and mqtt.js has no option for it, so we hand it the socket ourselves.

import net from 'node:net';
import { type IClientOptions, MqttClient } from 'mqtt';
import { AVAILABILITY_WILL, encode } from '../../firmware-protocol/mqtt/codec.ts';
import { PUBLISH_OPTIONS, topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { coalesceWrites } from './coalesce-writes.ts';

export interface MqttConnectOptions extends Omit<IClientOptions, 'host' | 'port' | 'hostname' | 'protocol'> {
  url: string;
  /**
   * The acknowledgements of what one turn of the event loop read leave in one socket write
   * (coalesce-writes.ts): for a connection that receives many QoS 1 messages, the service's twins.
   */
  coalesceWrites?: boolean;
  /**
   * mqtt.js's log of every packet, through `debug` (shown with DEBUG=mqttjs*), which costs a few calls
   * per packet even when nothing is shown. `false`: off unless DEBUG is set, for a connection that takes
   * thousands of messages a second. Default on.
   */
  packetLog?: boolean;
}

const noLog = () => {};

/**
 * Why `url` cannot be a broker a meter connects to, in words for a command line, or null when it can.
 * mqtt:// and tcp:// (the same plain TCP); mqtts:// is refused by name (this client speaks no TLS), and a
 * bare `host:port` is answered with the URL meant (docs/spec-decisions.md 170).
 */
export function brokerUrlProblem(url: string): string | null {
  if (/^[^/:]+:\d+$/.test(url) || /^\[[^\]]+\]:\d+$/.test(url)) {
    return `must be an MQTT URL, got ${url}: did you mean mqtt://${url}?`;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `must be an MQTT URL such as mqtt://127.0.0.1:1883, got ${url}`;
  }
  if (parsed.protocol === 'mqtts:') {
    return `mqtts:// (TLS) is not supported, got ${url}: use mqtt://, or a TLS tunnel to a local port`;
  }
  if (parsed.protocol !== 'mqtt:' && parsed.protocol !== 'tcp:') {
    const hostPort = parsed.host ? `: did you mean mqtt://${parsed.host}?` : '';
    return `must be an mqtt:// URL, got ${parsed.protocol}// in ${url}${hostPort}`;
  }
  if (!parsed.hostname) return `names no host: ${url}`;
  return null;
}

export function parseMqttUrl(url: string): { host: string; port: number } {
  const problem = brokerUrlProblem(url);
  if (problem) throw new TypeError(`broker URL ${problem}`);
  const parsed = new URL(url);
  const port = parsed.port ? Number(parsed.port) : 1883;
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port };
}

/** Creates a client; it connects in the background like `mqtt.connect`. */
export function createMqttClient(opts: MqttConnectOptions): MqttClient {
  const { url, coalesceWrites: coalesce, packetLog, ...rest } = opts;
  const { host, port } = parseMqttUrl(url);
  if (packetLog === false && !process.env['DEBUG']) rest.log = noLog;
  const socket = () => net.createConnection({ host, port, noDelay: true });
  return new MqttClient(coalesce ? () => coalesceWrites(socket()) : socket, {
    protocolVersion: 4,
    ...rest,
  });
}

/** Creates a client and resolves on its first CONNACK, or rejects on its first error (e.g. refused credentials). */
export function connectMqtt(opts: MqttConnectOptions): Promise<MqttClient> {
  const client = createMqttClient(opts);
  return new Promise((resolve, reject) => {
    const onConnect = () => {
      client.off('error', onError);
      resolve(client);
    };
    const onError = (err: Error) => {
      client.off('connect', onConnect);
      client.end(true);
      reject(err);
    };
    client.once('connect', onConnect);
    client.once('error', onError);
  });
}

export interface MeterClientOptions
  extends Omit<MqttConnectOptions, 'clientId' | 'username' | 'password' | 'will'> {
  deviceId: string;
  password: string;
  /** Defaults to the device id, which the broker requires [MC-2.5]. */
  username?: string;
}

/**
 * A meter's own connection as the contract wants it: client id and username = its device id [MC-2.5],
 * a clean session [MC-6.5], and the retained offline will, composed in advance so without a ts [MC-6.2].
 * The meter link (src/meter-link) connects every meter through here: virtual, replayed and bridged.
 */
export function createMeterClient(opts: MeterClientOptions): MqttClient {
  const { deviceId, password, username, ...rest } = opts;
  return createMqttClient({
    reconnectPeriod: 1000,
    ...rest,
    clientId: deviceId,
    username: username ?? deviceId,
    password,
    clean: true,
    will: {
      ...PUBLISH_OPTIONS.availability,
      topic: topicFor(deviceId, 'availability'),
      payload: Buffer.from(encode('availability', AVAILABILITY_WILL)),
    },
  });
}
