// The Home Assistant extension (issue 22 §3; rules HA-1..HA-10 in README.md): every meter as one HA
// device through MQTT discovery, its state on one retained topic per meter, and HA's relay and mode
// commands carried out through the twins as the v2 API's are. It only subscribes to the bus, reads the
// store's devices and the twins' public state, and publishes on its own connection.

import { randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import type { EventData, MeterEvent } from '../../events/schemas.ts';
import { connectMqtt } from '../../mqtt/connect.ts';
import type { DeviceRecord } from '../../store/types.ts';
import type { Extension, ExtensionContext, ServiceHandles } from '../extension.ts';
import { discoveryConfigs, type HaDevice } from './discovery.ts';
import { COMMAND_METRICS, HaInbound } from './inbound.ts';
import { HaPublisher } from './publisher.ts';
import { haState } from './state.ts';
import { DEFAULT_PREFIX, extensionFilters, prefixProblem, stateTopic, statusTopic } from './topics.ts';

export interface HomeAssistantOptions {
  /** [HA-1] The discovery prefix; default `homeassistant`. */
  prefix?: string;
  /** [HA-8] Wall ms between state publications driven by telemetry alone; default 10 s. */
  telemetryPeriodMs?: number;
  /** [HA-8] Wall ms within which a state change (relay, mode, online…) is published; default 250 ms. */
  changeDelayMs?: number;
  /** [HA-6] Commands from HA in flight at once, all meters together; default 64. */
  maxInFlight?: number;
}

/** [EXT-4] The extension's numbers. */
export const HA_METRICS = {
  devices: 'meterstack_ha_devices',
  published: 'meterstack_ha_publishes_total',
  publishRefused: 'meterstack_ha_publish_refused_total',
  commands: COMMAND_METRICS.commands,
  commandsRefused: COMMAND_METRICS.refused,
  commandsFailed: COMMAND_METRICS.failed,
} as const;

interface Known {
  configs: Map<string, string>;
  state: string;
}

/** Events that change what the state topic shows at once (not only telemetry's numbers). */
const CHANGES: ReadonlySet<string> = new Set([
  'meter.online',
  'meter.offline',
  'meter.relay',
  'meter.mode',
  'meter.tariff',
  'meter.cutoff',
  'meter.restored',
  'money.recharge',
]);

export class HomeAssistantExtension implements Extension {
  readonly name = 'home-assistant';
  readonly prefix: string;
  readonly #opts: Required<HomeAssistantOptions>;
  #ctx: ExtensionContext | null = null;
  #svc: ServiceHandles | null = null;
  #client: MqttClient | null = null;
  #publisher: HaPublisher | null = null;
  #unsubscribe = () => {};
  #timer: NodeJS.Timeout | null = null;
  readonly #known = new Map<string, Known>();
  /** Meters whose state changed (urgent) or whose telemetry came (slow), since the last publication. */
  #changed = new Set<string>();
  #sampled = new Set<string>();
  /** Meters to announce again (new, info changed) or clear first (replaced). */
  #announce = new Set<string>();
  #replaced = new Set<string>();
  #resync = false;
  #lastTelemetryFlush = 0;
  #busy = false;
  #stopped = false;
  #lastBirth = 0;
  readonly #spaces = new Map<number, string | undefined>();
  #inbound: HaInbound | null = null;

  constructor(opts: HomeAssistantOptions = {}) {
    const prefix = opts.prefix ?? DEFAULT_PREFIX;
    const problem = prefixProblem(prefix);
    if (problem) throw new TypeError(`--ha-discovery: ${problem}`);
    this.prefix = prefix;
    this.#opts = {
      prefix,
      telemetryPeriodMs: opts.telemetryPeriodMs ?? 10_000,
      changeDelayMs: opts.changeDelayMs ?? 250,
      maxInFlight: opts.maxInFlight ?? 64,
    };
  }

  start(ctx: ExtensionContext): void {
    this.#ctx = ctx;
    const m = ctx.metrics;
    m.gauge(HA_METRICS.devices, 'Meters announced to Home Assistant', () => this.#known.size);
    // Until attach, events are only noted: the first sync reads everything anyway.
    const events = ctx.bus.subscribe((e) => this.#onEvent(e));
    // [EXT-7] Requests come as fields; the one kind that matters here reads them as they are.
    const requests = ctx.bus.onRequest((_seq, _vt, _wt, d) => this.#onRequest(d));
    this.#unsubscribe = () => {
      events();
      requests();
    };
  }

  async attach(svc: ServiceHandles): Promise<void> {
    const ctx = this.#ctx;
    if (ctx?.role !== 'world') return;
    this.#svc = svc;
    this.#inbound = new HaInbound({
      twins: svc.twins,
      metrics: ctx.metrics,
      log: ctx.log,
      maxInFlight: this.#opts.maxInFlight,
      known: (id) => this.#known.has(id),
      ended: (id) => {
        // Told again even if unchanged: HA's switch waits for the state topic, done or not.
        const known = this.#known.get(id);
        if (known) known.state = '';
        this.#changed.add(id);
      },
    });
    const client = await connectMqtt({
      url: svc.broker.url,
      username: svc.broker.login.username,
      password: svc.broker.login.password,
      clientId: `meterstack-ha-${randomBytes(4).toString('hex')}`,
      reconnectPeriod: 1000,
      // [HA-9] MQTT 5 where the broker speaks it: Mosquitto then says which publications it refuses.
      protocolVersion: svc.broker.kind === 'external' ? 5 : 4,
      packetLog: false,
    });
    this.#client = client;
    client.on('error', (err) => ctx.log('warn', `Home Assistant: mqtt: ${err.message}`));
    this.#publisher = new HaPublisher({
      client,
      log: ctx.log,
      url: svc.broker.url,
      counters: {
        published: ctx.metrics.counter(
          HA_METRICS.published,
          'Discovery and state publications the broker took',
        ),
        refused: ctx.metrics.counter(
          HA_METRICS.publishRefused,
          'Discovery and state publications the broker refused',
        ),
      },
    });
    // [HA-9] Back after an outage (a broker restarted without persistence has lost the retained
    // topics): every config and state is told again; what was held back meanwhile is only the latest.
    client.on('connect', () => this.#tellAllAgain());
    client.on('message', (topic, payload, packet) => this.#onMessage(topic, payload, packet.retain));
    await client.subscribeAsync(extensionFilters(this.prefix), { qos: 1 });
    // [HA-8] The first announcement runs behind the service's start, not in front of it: at 10,000
    // meters it is 110,000 publications, and HTTP need not wait for them.
    this.#resync = true;
    void this.#tick();
    this.#timer = setInterval(() => void this.#tick(), this.#opts.changeDelayMs);
    this.#timer.unref();
  }

  /** Publishes what is pending now and waits until the broker answered (tests, stop). */
  async flush(): Promise<void> {
    while (this.#busy) await new Promise((r) => setTimeout(r, 5));
    this.#lastTelemetryFlush = 0;
    await this.#tick();
    await this.#publisher?.drain();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe();
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#inbound?.flush();
    // The broker may be gone already (EXT-3: extensions stop after it): then nothing is left to wait for.
    const client = this.#client;
    if (client?.connected) await this.#publisher?.drain(1_000);
    this.#publisher?.close();
    await client?.endAsync(!client.connected).catch(() => undefined);
    this.#client = null;
  }

  /** [HA-2] A device renamed through the v2 API (PUT /devices/{id}/): HA's device name follows. */
  #onRequest(d: EventData<'http.request'>): void {
    if (d.method !== 'PUT' || d.status !== 200 || !d.route.endsWith('/devices/:device_id/')) return;
    const id = /\/devices\/([A-Za-z0-9_.-]{1,64})\/?(?:\?|$)/.exec(d.url)?.[1];
    if (id !== undefined && this.#known.has(id)) this.#announce.add(id);
  }

  #onEvent(e: MeterEvent): void {
    switch (e.type) {
      case 'telemetry.summary':
        for (const m of (e as MeterEvent<'telemetry.summary'>).data.meters) this.#sampled.add(m.device_id);
        return;
      case 'meter.info':
        if (e.device_id) this.#announce.add(e.device_id);
        return;
      case 'meter.replaced':
        if (e.device_id) this.#replaced.add(e.device_id);
        return;
      case 'world.reset':
      case 'world.restored':
        this.#resync = true;
        return;
      default:
        if (e.device_id && CHANGES.has(e.type)) {
          this.#changed.add(e.device_id);
          if (!this.#known.has(e.device_id)) this.#announce.add(e.device_id);
        }
    }
  }

  /** [HA-8] One round of publications; never two at once. */
  async #tick(): Promise<void> {
    const ctx = this.#ctx;
    if (this.#busy || this.#stopped || !ctx || !this.#svc || !this.#client) return;
    this.#busy = true;
    try {
      if (this.#resync) {
        this.#resync = false;
        await this.#sync();
      }
      for (const id of this.#replaced) this.#clear(id, false);
      for (const id of [...this.#replaced, ...this.#announce]) await this.#announceDevice(id);
      this.#replaced.clear();
      this.#announce.clear();
      const wall = Date.now();
      const due = this.#changed;
      this.#changed = new Set();
      if (wall - this.#lastTelemetryFlush >= this.#opts.telemetryPeriodMs) {
        this.#lastTelemetryFlush = wall;
        for (const id of this.#sampled) due.add(id);
        this.#sampled = new Set();
      }
      for (const id of due) this.#publishState(id);
    } catch (err) {
      ctx.log('warn', `Home Assistant: ${(err as Error).message}`);
    } finally {
      this.#busy = false;
    }
  }

  /** [HA-2] Every device of the store announced, every announced one the store no longer has cleared. */
  async #sync(): Promise<void> {
    const devices = await this.#ctx!.store.listDevices();
    const ids = new Set(devices.map((d) => d.deviceId));
    for (const id of [...this.#known.keys()]) if (!ids.has(id)) this.#clear(id, true);
    this.#spaces.clear();
    let n = 0;
    for (const d of devices) {
      if (this.#stopped) return; // the service stops: the rest waits for the next start
      await this.#announceDevice(d.deviceId, d);
      // 10,000 meters: let the loop breathe between batches.
      if (++n % 200 === 0) await new Promise((r) => setImmediate(r));
    }
  }

  async #announceDevice(deviceId: string, listed?: DeviceRecord): Promise<void> {
    const ctx = this.#ctx!;
    const record = listed ?? (await ctx.store.getDevice(deviceId));
    if (!record) {
      this.#clear(deviceId, true);
      return;
    }
    const twin = this.#svc!.twins.get(deviceId);
    const info = twin?.info ?? null;
    const area = record.spaceId === null ? undefined : await this.#spaceName(record.spaceId);
    const dev: HaDevice = {
      deviceId,
      name: record.name,
      model: info?.model ?? record.model,
      serial: info?.serial,
      firmware: info?.firmware,
      hasRelay: info?.has_relay ?? true,
      hasCurrent: info ? info.properties.some((p) => p.property_id === 'current') : record.model === 'full',
      area,
    };
    const configs = discoveryConfigs(dev, { prefix: this.prefix, version: this.#svc!.version });
    const known = this.#known.get(deviceId) ?? { configs: new Map<string, string>(), state: '' };
    // [HA-2] An entity the meter no longer has (no relay, no current) is removed; a changed one told again.
    for (const topic of known.configs.keys()) if (!configs.has(topic)) this.#publisher!.publish(topic, '');
    for (const [topic, payload] of configs)
      if (known.configs.get(topic) !== payload) this.#publisher!.publish(topic, payload);
    known.configs = configs;
    this.#known.set(deviceId, known);
    this.#changed.add(deviceId);
  }

  /** Space names for HA's suggested area, read once per sync. */
  async #spaceName(spaceId: number): Promise<string | undefined> {
    if (!this.#spaces.has(spaceId))
      this.#spaces.set(spaceId, (await this.#ctx!.store.getSpace(spaceId))?.name);
    return this.#spaces.get(spaceId);
  }

  /** [HA-2] Empty retained payloads on every discovery topic of the device (and its state, if gone). */
  #clear(deviceId: string, gone: boolean): void {
    const known = this.#known.get(deviceId);
    if (!known) return;
    for (const topic of known.configs.keys()) this.#publisher!.publish(topic, '');
    known.configs = new Map();
    if (gone) {
      this.#publisher!.publish(stateTopic(deviceId), '');
      this.#known.delete(deviceId);
    }
  }

  /** [HA-4] The state topic, only when what it says changed. */
  #publishState(deviceId: string): void {
    const known = this.#known.get(deviceId);
    if (!known) return;
    const json = JSON.stringify(haState(this.#svc!.twins.get(deviceId)));
    if (json === known.state) return;
    known.state = json;
    this.#publisher!.publish(stateTopic(deviceId), json);
  }

  /** The next round publishes every known meter's configs and state, changed or not. */
  #tellAllAgain(): void {
    for (const known of this.#known.values()) {
      known.configs = new Map();
      known.state = '';
    }
    this.#resync = true;
  }

  #onMessage(topic: string, payload: Buffer, retain: boolean): void {
    if (topic === statusTopic(this.prefix)) {
      // HA's birth after its restart: tell everything again, at most once a minute [HA-2].
      const wall = Date.now();
      if (payload.toString() === 'online' && wall - this.#lastBirth > 60_000) {
        this.#lastBirth = wall;
        this.#tellAllAgain();
      }
      return;
    }
    this.#inbound?.handle(topic, payload, retain);
  }
}
