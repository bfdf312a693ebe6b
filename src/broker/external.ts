// An external MQTT broker the service uses instead of the embedded aedes (`serve --broker
// mqtt://user:password@host:port`). The URL's login is the service's own on that broker.

import { createHmac } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import type { Log } from '../log/types.ts';
import { connectMqtt } from '../mqtt/connect.ts';
import { DynsecClient, DynsecError } from './dynsec-client.ts';
import {
  clientRoles,
  commands,
  isAlreadyExists,
  isNotFound,
  roleAcls,
  SERVICE_ROLE,
  scopedAcls,
  serviceAcls,
  serviceTopicAcls,
  WATCH_ROLE,
  watchAcls,
} from './dynsec-codec.ts';
import type { BrokerLogin, ScopedLogin, ServiceBroker } from './service-broker.ts';

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

/**
 * Who keeps the meters' logins on the external broker: `dynsec`, meterstack through Mosquitto's
 * dynamic-security plugin (a login and a role of its own topics per meter); `unmanaged`, the broker's
 * own administrator (RabbitMQ, EMQX, ...): meterstack creates nothing there (docs/brokers.md).
 */
export type BrokerLogins = 'dynsec' | 'unmanaged';
export const BROKER_LOGINS: readonly BrokerLogins[] = ['dynsec', 'unmanaged'];

export interface ExternalBrokerOptions {
  /** mqtt://user:password@host:port */
  url: string;
  /** Default `dynsec`: a broker that should keep meterstack's logins but cannot is an error at start. */
  logins?: BrokerLogins;
  /** The read-only watcher login [MC-2.6] to make on a dynsec broker (`admin`, password = admin token). */
  watch?: BrokerLogin;
  /** Logins the service issues for clients of its own (Home Assistant), made on a dynsec broker. */
  scoped?: readonly ScopedLogin[];
  /**
   * Scoped logins (name = role name) this process owns but does not issue this run (Home Assistant
   * turned off): their login and role are deleted, and the service role keeps only its own ACLs and
   * those of `scoped`, so a leaked HA password stops working. Only the world passes it: an API
   * instance must not undo the world's HA login.
   */
  retire?: readonly string[];
  log: Log;
  /** How long to wait for the broker's CONNACK, and for dynsec's answer, before giving up. Default 5 s. */
  connectTimeoutMs?: number;
}

/**
 * Checks that the broker answers and takes the service's login, then hands it over. With `dynsec` it
 * also checks that the plugin answers that login, and gives the login the service's role and the
 * watcher its login; meters get theirs in addMeter. With `unmanaged`, addMeter does nothing.
 */
export async function connectExternalBroker(opts: ExternalBrokerOptions): Promise<ServiceBroker> {
  const { url, login } = parseBrokerUrl(opts.url);
  const logins = opts.logins ?? 'dynsec';
  const timeoutMs = opts.connectTimeoutMs ?? 5_000;
  const mqtt = await probeLogin(url, login, timeoutMs);
  if (logins === 'unmanaged') {
    await mqtt.endAsync();
    opts.log(
      'info',
      `MQTT: using the external broker at ${url} as ${login.username}; logins are the broker's own`,
    );
    return externalBroker(url, login, 'unmanaged', null, async () => {});
  }
  // The management connection lives as long as the service and reconnects by itself; an 'error'
  // with no listener would end the process.
  mqtt.on('error', (err) => opts.log('warn', `MQTT: dynamic-security connection to ${url}: ${err.message}`));
  let dynsec: DynsecClient;
  let service: BrokerLogin;
  try {
    dynsec = await DynsecClient.open({ mqtt, url, timeoutMs });
    service = serviceLogin(login);
    await setUpService(dynsec, service, { url, timeoutMs });
    await setUpWatch(dynsec, service, opts.watch, opts.log);
    for (const login of opts.scoped ?? []) await setUpScoped(dynsec, login);
    if (opts.retire) await retireScoped(dynsec, opts.retire, opts.scoped ?? []);
  } catch (err) {
    await mqtt.endAsync(true);
    throw err instanceof DynsecError ? new BrokerConfigError(err.message) : err;
  }
  opts.log(
    'info',
    `MQTT: using the external broker at ${url}; meters' logins through its dynamic security as ${login.username}, ` +
      `the service as ${service.username}`,
  );
  return externalBroker(url, service, 'dynsec', dynsec, async () => {
    dynsec.close();
    await mqtt.endAsync();
  });
}

/**
 * The service's own login on a dynsec broker: not the URL's (that one administers dynamic security,
 * and changing its roles would make Mosquitto kick it), but `meterstack-service` with a password every
 * process derives alike from the URL's, so several API instances share it without resetting it.
 */
export function serviceLogin(admin: BrokerLogin): BrokerLogin {
  return {
    username: SERVICE_ROLE,
    password: createHmac('sha256', admin.password)
      .update(`meterstack-service:${admin.username}`)
      .digest('base64url'),
  };
}

function externalBroker(
  url: string,
  login: BrokerLogin,
  logins: BrokerLogins,
  dynsec: DynsecClient | null,
  close: () => Promise<void>,
): ServiceBroker {
  return {
    kind: 'external',
    logins,
    url,
    service: login,
    telemetryQos: 1,
    addMeter: dynsec ? (id, secret, o) => dynsec.addMeter(id, secret, o) : async () => {},
    removeMeter: dynsec ? (id) => dynsec.removeMeter(id) : async () => {},
    onMeterLinkTimeout: () => () => {},
    embedded: null,
    close,
  };
}

/**
 * [MC-2.3] The service's login and its role of every meterstack topic. A login already there keeps its
 * password unless the derived one no longer opens it: Mosquitto kicks every connection of a login
 * whose password is set, which would drop another API instance's twins for nothing.
 */
async function setUpService(
  dynsec: DynsecClient,
  service: BrokerLogin,
  at: { url: string; timeoutMs: number },
) {
  await dynsec.must(commands.createRole(SERVICE_ROLE, serviceAcls()), isAlreadyExists);
  const created = await dynsec.run(commands.createClient({ ...service, roles: [SERVICE_ROLE] }));
  if (created.ok) return;
  const there = await dynsec.must(commands.getClient(service.username));
  if (!clientRoles(there).includes(SERVICE_ROLE))
    await dynsec.must(commands.addClientRole(service.username, SERVICE_ROLE));
  const opens = await probeLogin(at.url, service, at.timeoutMs).then(
    (c) => c.endAsync(true).then(() => true),
    () => false,
  );
  if (!opens) await dynsec.must(commands.setClientPassword(service.username, service.password));
}

/**
 * [MC-2.6] The watcher's login (`admin`, password = admin token) and its read-only role, unless a login
 * of that name is someone else's (it has not our role): that one is left alone, with a warning.
 */
async function setUpWatch(
  dynsec: DynsecClient,
  service: BrokerLogin,
  watch: BrokerLogin | undefined,
  log: Log,
) {
  if (!watch || watch.username === service.username) return;
  await dynsec.must(commands.createRole(WATCH_ROLE, watchAcls()), isAlreadyExists);
  const created = await dynsec.run(commands.createClient({ ...watch, roles: [WATCH_ROLE] }));
  if (created.ok) return;
  const there = await dynsec.must(commands.getClient(watch.username));
  if (clientRoles(there).includes(WATCH_ROLE)) {
    await dynsec.must(commands.setClientPassword(watch.username, watch.password));
  } else {
    log(
      'warn',
      `MQTT: the broker already has a login '${watch.username}' that is not meterstack's; no watcher login`,
    );
  }
}

/**
 * A scoped login (Home Assistant's): the service's role gains the topics it publishes and hears for it,
 * the login's role is made afresh (a prefix changed since the last run must not leave the old one
 * readable), and the login is made or given this password and role.
 */
async function setUpScoped(dynsec: DynsecClient, login: ScopedLogin) {
  for (const acl of serviceTopicAcls(login.serviceTopics))
    await dynsec.must(commands.addRoleACL(SERVICE_ROLE, acl), isAlreadyExists);
  await dynsec.must(commands.deleteRole(login.role), isNotFound);
  await dynsec.must(commands.createRole(login.role, scopedAcls(login)));
  await dynsec.ensureClient({ username: login.username, password: login.password, role: login.role });
}

/**
 * [HA-7] Logins no longer issued are deleted with their role (Mosquitto drops their connections), and
 * the service role's ACLs beyond its own and the scoped logins' (an old HA prefix, HA turned off) go.
 */
async function retireScoped(dynsec: DynsecClient, names: readonly string[], scoped: readonly ScopedLogin[]) {
  for (const name of names) {
    await dynsec.must(commands.deleteClient(name), isNotFound);
    await dynsec.must(commands.deleteRole(name), isNotFound);
  }
  const keep = new Set(
    [...serviceAcls(), ...scoped.flatMap((s) => serviceTopicAcls(s.serviceTopics))].map(
      (a) => `${a.acltype} ${a.topic}`,
    ),
  );
  for (const acl of roleAcls(await dynsec.must(commands.getRole(SERVICE_ROLE))))
    if (!keep.has(`${acl.acltype} ${acl.topic}`))
      await dynsec.must(commands.removeRoleACL(SERVICE_ROLE, acl), isNotFound);
}

/**
 * Logs in once as the service and returns the connected client: a clear error naming the address if it
 * cannot, never a hang.
 */
async function probeLogin(url: string, login: BrokerLogin, timeoutMs: number): Promise<MqttClient> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new BrokerConfigError(`the MQTT broker at ${url} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  const attempt = connectMqtt({
    url,
    username: login.username,
    password: login.password,
    clientId: `meterstack-admin-${process.pid}-${Date.now().toString(36)}`,
    // Once in, the dynsec connection comes back by itself if the broker restarts.
    reconnectPeriod: 1_000,
    connectTimeout: timeoutMs,
  }).catch((err: Error & { code?: string | number }) => {
    const why =
      err.code === 'ECONNREFUSED'
        ? 'nothing listens there (connection refused)'
        : err.code === 'ENOTFOUND'
          ? 'no such host'
          : err.code === 4 ||
              err.code === 5 ||
              err.code === 134 ||
              err.code === 135 ||
              /not authori|bad user/i.test(err.message)
            ? `it refused the login of '${login.username}' (${err.message})`
            : err.message;
    throw new BrokerConfigError(`the MQTT broker at ${url}: ${why}`);
  });
  try {
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
    // A CONNACK that comes after the timeout: close that client rather than leak it.
    void attempt.then(
      (c) => {
        if (timedOut) c.end(true);
      },
      () => {},
    );
  }
}
