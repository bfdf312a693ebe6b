// The commands meterstack sends to Mosquitto's dynamic-security plugin and the answers it reads back,
// as pure functions (https://mosquitto.org/documentation/dynamic-security/). A request is
// `{"commands":[…]}` published to DYNSEC_TOPIC; the plugin answers on DYNSEC_RESPONSE_TOPIC with
// `{"responses":[{command, correlationData?, error?, data?}]}`, one per command, in order.
// Tested against the real plugin in dynsec-codec.test.ts.

import {
  METER_PUBLISHES,
  METER_SUBSCRIBES,
  SERVICE_TOPIC,
  TOPIC_ROOT,
  topicFor,
} from '../../firmware-protocol/mqtt/topics.ts';

export const DYNSEC_TOPIC = '$CONTROL/dynamic-security/v1';
export const DYNSEC_RESPONSE_TOPIC = `${DYNSEC_TOPIC}/response`;

/** The role meterstack gives its own service login: every meterstack topic, both ways [MC-2.3, MC-2.4]. */
export const SERVICE_ROLE = 'meterstack-service';
/** The role of the watcher login (`admin`, password = admin token): reads everything, sends nothing [MC-2.6]. */
export const WATCH_ROLE = 'meterstack-watch';
/** Meters' roles are `meterstack-meter-{device id}`; nothing else of the broker's is meterstack's. */
export const METER_ROLE_PREFIX = 'meterstack-meter-';

export type AclType =
  | 'publishClientSend'
  | 'publishClientReceive'
  | 'subscribeLiteral'
  | 'subscribePattern'
  | 'unsubscribeLiteral'
  | 'unsubscribePattern';

export interface Acl {
  acltype: AclType;
  topic: string;
  allow: boolean;
  priority?: number;
}

/** One dynsec command; `correlationData` is added by encodeRequest. */
export type DynsecCommand = { command: string } & Record<string, unknown>;

/** One answer: ok (with the command's `data`, if any) or the plugin's error text. */
export type DynsecResult =
  | { ok: true; command: string; data: Record<string, unknown> | undefined }
  | { ok: false; command: string; error: string };

export function meterRoleName(deviceId: string): string {
  return `${METER_ROLE_PREFIX}${deviceId}`;
}

/**
 * A meter's ACLs, the same rules as the embedded broker's access.ts: it publishes only on its own
 * info/state/availability/telemetry/reply [MC-2.1] and subscribes only to its own cmd topic spelled
 * out exactly [MC-2.2] (subscribeLiteral: a wildcard filter is a different string, so it is refused).
 * Mosquitto checks a will against the same publish ACLs [MC-2.1]. Everything else falls to the
 * default ACL access, which `mosquitto_ctrl dynsec init` sets to deny publishing and subscribing.
 */
export function meterAcls(deviceId: string): Acl[] {
  return [
    ...METER_PUBLISHES.map((ch) => ({
      acltype: 'publishClientSend' as const,
      topic: topicFor(deviceId, ch),
      allow: true,
    })),
    ...METER_SUBSCRIBES.map((ch) => ({
      acltype: 'subscribeLiteral' as const,
      topic: topicFor(deviceId, ch),
      allow: true,
    })),
    SERVICE_ANNOUNCEMENT_ACL,
  ];
}

/** [MC-12.2] A meter may subscribe to the service announcement, so a bridge knows whose broker it reached. */
export const SERVICE_ANNOUNCEMENT_ACL: Acl = {
  acltype: 'subscribeLiteral',
  topic: SERVICE_TOPIC,
  allow: true,
};

/**
 * [MC-2.3, MC-2.4] The service publishes commands and clears retained topics, and hears every meter;
 * it also tells its API instances the world's clock on `meterstack/sim/…` (src/world/clock-anchor.ts).
 */
export function serviceAcls(): Acl[] {
  return [`${TOPIC_ROOT}/#`, SIM_TOPICS].flatMap((topic) => [
    { acltype: 'publishClientSend' as const, topic, allow: true },
    { acltype: 'publishClientReceive' as const, topic, allow: true },
    { acltype: 'subscribePattern' as const, topic, allow: true },
  ]);
}

/** The service's own topics beside the meters' contract: no meter may publish or subscribe there. */
export const SIM_TOPICS = 'meterstack/sim/#';

/** [MC-2.6] The watcher subscribes to anything and publishes nothing (no publish ACL: default deny). */
export function watchAcls(): Acl[] {
  return [
    { acltype: 'subscribePattern', topic: '#', allow: true },
    { acltype: 'publishClientReceive', topic: '#', allow: true },
  ];
}

/**
 * A scoped login's ACLs (access.ts ScopedPrincipal, a Home Assistant login): it publishes on its
 * `publish` filters and subscribes to (and receives) its `subscribe` filters; everything else falls to
 * the default deny. Mosquitto's ACLs cannot refuse the retain flag alone: the service ignores a retained
 * message where that matters (a command).
 */
export function scopedAcls(scope: { publish: readonly string[]; subscribe: readonly string[] }): Acl[] {
  return [
    ...scope.publish.map((topic) => ({ acltype: 'publishClientSend' as const, topic, allow: true })),
    ...scope.subscribe.flatMap((topic) => [
      { acltype: 'subscribePattern' as const, topic, allow: true },
      { acltype: 'publishClientReceive' as const, topic, allow: true },
    ]),
  ];
}

/** The service's own ACLs on further topics (those it publishes and hears for a scoped login). */
export function serviceTopicAcls(topics: readonly string[]): Acl[] {
  return topics.flatMap((topic) => [
    { acltype: 'publishClientSend' as const, topic, allow: true },
    { acltype: 'publishClientReceive' as const, topic, allow: true },
    { acltype: 'subscribePattern' as const, topic, allow: true },
  ]);
}

export const commands = {
  createRole: (rolename: string, acls: Acl[]): DynsecCommand => ({ command: 'createRole', rolename, acls }),
  deleteRole: (rolename: string): DynsecCommand => ({ command: 'deleteRole', rolename }),
  addRoleACL: (rolename: string, acl: Acl): DynsecCommand => ({ command: 'addRoleACL', rolename, ...acl }),
  removeRoleACL: (rolename: string, acl: Pick<Acl, 'acltype' | 'topic'>): DynsecCommand => ({
    command: 'removeRoleACL',
    rolename,
    acltype: acl.acltype,
    topic: acl.topic,
  }),
  getRole: (rolename: string): DynsecCommand => ({ command: 'getRole', rolename }),
  /** `clientid` pins the client id the login must connect with [MQTT-3.1.3-9] (no kicking another off). */
  createClient: (c: {
    username: string;
    password: string;
    clientid?: string;
    roles: string[];
  }): DynsecCommand => ({
    command: 'createClient',
    username: c.username,
    password: c.password,
    ...(c.clientid === undefined ? {} : { clientid: c.clientid }),
    roles: c.roles.map((rolename) => ({ rolename })),
  }),
  deleteClient: (username: string): DynsecCommand => ({ command: 'deleteClient', username }),
  setClientPassword: (username: string, password: string): DynsecCommand => ({
    command: 'setClientPassword',
    username,
    password,
  }),
  setClientId: (username: string, clientid: string): DynsecCommand => ({
    command: 'setClientId',
    username,
    clientid,
  }),
  addClientRole: (username: string, rolename: string): DynsecCommand => ({
    command: 'addClientRole',
    username,
    rolename,
  }),
  getClient: (username: string): DynsecCommand => ({ command: 'getClient', username }),
  listClients: (): DynsecCommand => ({ command: 'listClients', verbose: false }),
};

/** `{"commands":[…]}` with each command's correlationData = `${id}:${index}`. */
export function encodeRequest(id: string, cmds: DynsecCommand[]): string {
  return JSON.stringify({ commands: cmds.map((c, i) => ({ ...c, correlationData: `${id}:${i}` })) });
}

/**
 * Reads a response payload. Answers to another request (another meterstack process shares the
 * response topic) have another correlation id and are left out: the result has those of `id` only,
 * by command index. null when the payload is not a dynsec response at all.
 */
export function decodeResponse(payload: string, id: string): Map<number, DynsecResult> | null {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return null;
  }
  const responses = (body as { responses?: unknown })?.responses;
  if (!Array.isArray(responses)) return null;
  const out = new Map<number, DynsecResult>();
  for (const r of responses as Record<string, unknown>[]) {
    const corr = typeof r['correlationData'] === 'string' ? r['correlationData'] : '';
    const sep = corr.lastIndexOf(':');
    if (sep < 0 || corr.slice(0, sep) !== id) continue;
    const index = Number(corr.slice(sep + 1));
    const command = String(r['command'] ?? '');
    out.set(
      index,
      typeof r['error'] === 'string'
        ? { ok: false, command, error: r['error'] }
        : { ok: true, command, data: r['data'] as Record<string, unknown> | undefined },
    );
  }
  return out;
}

/** The plugin's words for "already there" (createClient, createRole) and "not there" (delete*, get*). */
export function isAlreadyExists(r: DynsecResult): boolean {
  return !r.ok && /already exists/i.test(r.error);
}
export function isNotFound(r: DynsecResult): boolean {
  return !r.ok && /not found/i.test(r.error);
}

/** The ACLs in a getRole answer. */
export function roleAcls(r: DynsecResult): Pick<Acl, 'acltype' | 'topic'>[] {
  if (!r.ok) return [];
  const role = (r.data?.['role'] ?? {}) as { acls?: { acltype?: unknown; topic?: unknown }[] };
  return (role.acls ?? []).map((a) => ({
    acltype: String(a.acltype) as Acl['acltype'],
    topic: String(a.topic),
  }));
}

/** Role names in a getClient answer. */
export function clientRoles(r: DynsecResult): string[] {
  if (!r.ok) return [];
  const client = (r.data?.['client'] ?? {}) as { roles?: { rolename?: unknown }[] };
  return (client.roles ?? []).map((x) => String(x.rolename));
}
