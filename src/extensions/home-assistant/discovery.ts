// [HA-2] [HA-3] What Home Assistant is told of one meter, pure: the retained discovery config of each
// entity, by topic, following HA's MQTT discovery schema per platform (sensor, binary_sensor, switch,
// select). Values come from the per-meter state topic through a value_template [HA-4]; every entity
// but `online` is available exactly when the meter's own retained availability says online [HA-5].

import { ModeSchema } from '../../../firmware-protocol/mqtt/schemas.ts';
import { topicFor } from '../../../firmware-protocol/mqtt/topics.ts';
import { commandTopic, discoveryTopic, nodeIdOf, stateTopic } from './topics.ts';

/** What the extension knows of a meter, from the store's record and the twin's info. */
export interface HaDevice {
  deviceId: string;
  /** The device's name in the v2 API; HA's device name (its entities' names follow it). */
  name: string;
  model: string;
  serial?: string;
  firmware?: string;
  hasRelay: boolean;
  /** The meter reports `current` (a `full` model; its info says so). */
  hasCurrent: boolean;
  /** The space's name: HA's suggested area. */
  area?: string;
}

export interface DiscoveryOptions {
  prefix: string;
  /** meterstack's version, HA's `origin.sw_version`. */
  version: string;
}

export const MODES: readonly string[] = ModeSchema.options;
export const TARIFFS = ['EB', 'DG'] as const;

type Config = Record<string, unknown>;

/** Every discovery config of one meter: topic → JSON payload (retained). */
export function discoveryConfigs(dev: HaDevice, opts: DiscoveryOptions): Map<string, string> {
  const node = nodeIdOf(dev.deviceId);
  const state = stateTopic(dev.deviceId);
  const device = {
    identifiers: [node],
    name: dev.name || dev.deviceId,
    manufacturer: 'meterstack',
    model: `single-phase meter (${dev.model})`,
    ...(dev.serial ? { serial_number: dev.serial } : {}),
    ...(dev.firmware ? { sw_version: dev.firmware } : {}),
    ...(dev.area ? { suggested_area: dev.area } : {}),
  };
  const origin = { name: 'meterstack', sw_version: opts.version };
  // [HA-5] The meter's own retained availability, `{"v":1,"online":…}` (CONTRACT.md MC-6.1).
  const availability = [
    {
      topic: topicFor(dev.deviceId, 'availability'),
      value_template: "{{ 'online' if value_json.online else 'offline' }}",
    },
  ];
  const base = (object: string, name: string): Config => ({
    name,
    unique_id: `${node}_${object}`,
    device,
    origin,
    state_topic: state,
    value_template: `{{ value_json.${object} }}`,
    availability,
  });
  const measure = (object: string, name: string, deviceClass: string, unit: string): Config => ({
    ...base(object, name),
    device_class: deviceClass,
    unit_of_measurement: unit,
    state_class: 'measurement',
  });

  const out = new Map<string, string>();
  const put = (component: string, object: string, config: Config) =>
    out.set(discoveryTopic(opts.prefix, component, dev.deviceId, object), JSON.stringify(config));

  put('sensor', 'power', measure('power', 'Power', 'power', 'W'));
  // [HA-3] The Energy dashboard takes a sensor of device_class energy that only grows.
  put('sensor', 'energy', {
    ...base('energy', 'Energy'),
    device_class: 'energy',
    unit_of_measurement: 'kWh',
    state_class: 'total_increasing',
  });
  put('sensor', 'voltage', measure('voltage', 'Voltage', 'voltage', 'V'));
  if (dev.hasCurrent) put('sensor', 'current', measure('current', 'Current', 'current', 'A'));
  // Rupees with paise as decimals; HA's monetary class takes an ISO 4217 code as its unit.
  put('sensor', 'balance', {
    ...base('balance', 'Balance'),
    device_class: 'monetary',
    unit_of_measurement: 'INR',
    state_class: 'total',
  });
  put('sensor', 'mode', { ...base('mode', 'Mode'), device_class: 'enum', options: [...MODES] });
  put('sensor', 'tariff', {
    ...base('tariff', 'Active tariff'),
    device_class: 'enum',
    options: [...TARIFFS],
  });
  // [HA-5] Online is never unavailable itself: it shows off while the meter is away.
  const { availability: _none, ...always } = base('online', 'Online');
  put('binary_sensor', 'online', {
    ...always,
    device_class: 'connectivity',
    value_template: "{{ 'ON' if value_json.online else 'OFF' }}",
    entity_category: 'diagnostic',
  });
  if (dev.hasRelay)
    put('switch', 'relay', {
      ...base('relay', 'Relay'),
      command_topic: commandTopic(dev.deviceId, 'relay'),
      payload_on: 'ON',
      payload_off: 'OFF',
      state_on: 'ON',
      state_off: 'OFF',
    });
  put('select', 'mode_select', {
    ...base('mode', 'Operating mode'),
    unique_id: `${node}_mode_select`,
    command_topic: commandTopic(dev.deviceId, 'mode'),
    options: [...MODES],
  });
  return out;
}
