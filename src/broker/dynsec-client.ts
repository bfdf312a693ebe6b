// Talks to Mosquitto's dynamic-security plugin over one MQTT connection of the service's login:
// commands go out on $CONTROL/dynamic-security/v1, answers come back on …/response. Commands asked for
// in the same tick go out as one request (provisioning many meters at once costs one round trip per
// batch, not per meter). The payloads are dynsec-codec.ts's.

import { randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import {
  clientRoles,
  commands,
  DYNSEC_RESPONSE_TOPIC,
  DYNSEC_TOPIC,
  type DynsecCommand,
  type DynsecResult,
  decodeResponse,
  encodeRequest,
  isAlreadyExists,
  isNotFound,
  meterAcls,
  meterRoleName,
  SERVICE_ANNOUNCEMENT_ACL,
} from './dynsec-codec.ts';

export class DynsecError extends Error {}

export interface DynsecClientOptions {
  /** Connected with a login that may administer dynamic security. */
  mqtt: MqttClient;
  /** For messages: mqtt://host:port. */
  url: string;
  /** How long to wait for an answer, plus `perCommandMs` per command of the request. Default 5 s. */
  timeoutMs?: number;
  /**
   * Allowance per command. Default 100 ms: Mosquitto 2.0.11 rewrites its whole file after each command
   * that changes something, ~7.5 µs per login it holds (75 ms at 10,000), docs/brokers.md.
   */
  perCommandMs?: number;
  /** Most commands in one request. Default 200. */
  batch?: number;
}

interface Pending {
  cmd: DynsecCommand;
  resolve: (r: DynsecResult) => void;
  reject: (e: Error) => void;
}

export class DynsecClient {
  readonly #opts: Required<DynsecClientOptions>;
  #queue: Pending[] = [];
  #flushing = false;
  /** One request at a time: the plugin works through them in order, so a timer started on a request
   * queued behind a long one would count the other's time. Commands asked meanwhile go next, as one. */
  #inFlight = false;
  readonly #waiting = new Map<string, { items: Pending[]; timer: NodeJS.Timeout }>();
  readonly #onMessage = (topic: string, payload: Buffer) => {
    if (topic !== DYNSEC_RESPONSE_TOPIC) return;
    for (const [id, req] of this.#waiting) {
      const results = decodeResponse(payload.toString('utf8'), id);
      if (!results || results.size === 0) continue;
      clearTimeout(req.timer);
      this.#waiting.delete(id);
      this.#next();
      req.items.forEach((p, i) => {
        const r = results.get(i);
        if (r) p.resolve(r);
        else
          p.reject(new DynsecError(`dynamic security at ${this.#opts.url} did not answer ${p.cmd.command}`));
      });
      return;
    }
  };

  private constructor(opts: DynsecClientOptions) {
    this.#opts = { timeoutMs: 5_000, perCommandMs: 100, batch: 200, ...opts };
    opts.mqtt.on('message', this.#onMessage);
  }

  /**
   * Subscribes to the response topic and asks the plugin something harmless: a clear error if the login
   * may not administer it or no plugin answers (a broker without dynamic security), never a hang.
   */
  static async open(opts: DynsecClientOptions): Promise<DynsecClient> {
    const client = new DynsecClient(opts);
    const where = `the MQTT broker at ${opts.url}`;
    const granted = await opts.mqtt
      .subscribeAsync(DYNSEC_RESPONSE_TOPIC, { qos: 1 })
      .catch(() => [{ qos: 128 }]);
    if (granted[0]?.qos === 128) {
      throw new DynsecError(
        `${where}: the service's login may not subscribe to ${DYNSEC_RESPONSE_TOPIC}; give it the dynsec ` +
          `admin role (mosquitto_ctrl dynsec init), or pass --broker-logins unmanaged`,
      );
    }
    try {
      await client.run(commands.listClients());
    } catch (err) {
      throw new DynsecError(
        `${where} has no dynamic-security plugin answering on ${DYNSEC_TOPIC} (${(err as Error).message}); ` +
          `load mosquitto_dynamic_security.so, or pass --broker-logins unmanaged if the broker manages ` +
          `logins itself`,
      );
    }
    return client;
  }

  /** Sends one command (batched with the others of this tick) and resolves with its answer. */
  run(cmd: DynsecCommand): Promise<DynsecResult> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ cmd, resolve, reject });
      if (!this.#flushing) {
        this.#flushing = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Runs a command and throws unless it succeeded or `tolerate` accepts its error. */
  async must(
    cmd: DynsecCommand,
    tolerate: (r: DynsecResult) => boolean = () => false,
  ): Promise<DynsecResult> {
    const r = await this.run(cmd);
    if (!r.ok && !tolerate(r))
      throw new DynsecError(`dynamic security at ${this.#opts.url}: ${cmd.command} failed: ${r.error}`);
    return r;
  }

  /**
   * Makes a login exist with this password, client id and role, whether it is new or not (a service
   * restart, a second process): create it, or else set password, client id and role on the one there.
   */
  async ensureClient(c: {
    username: string;
    password: string;
    clientid?: string;
    role: string;
  }): Promise<void> {
    const created = await this.must(commands.createClient({ ...c, roles: [c.role] }), isAlreadyExists);
    if (created.ok) return;
    // Mosquitto 2.0.11 answers addClientRole for a role the client has with "Internal error": ask first.
    const [, , there] = await Promise.all([
      this.must(commands.setClientPassword(c.username, c.password)),
      c.clientid === undefined ? null : this.must(commands.setClientId(c.username, c.clientid)),
      this.must(commands.getClient(c.username)),
    ]);
    if (!clientRoles(there).includes(c.role)) await this.must(commands.addClientRole(c.username, c.role));
  }

  /**
   * A meter's role (its own topics only) and its login (username = client id = device id). A login
   * already there is a stale one (a device id used again on a broker that outlived its store): it gets
   * this secret. With `restore` (a restart making sure its meters' logins exist) one already there is
   * left as it is: it was made from this very secret, and setting it again would make Mosquitto rewrite
   * its file and kick the meter, wherever it runs.
   */
  async addMeter(deviceId: string, secret: string, opts: { restore?: boolean } = {}): Promise<void> {
    const role = meterRoleName(deviceId);
    const client = { username: deviceId, password: secret, clientid: deviceId, role };
    const [roleMade, created] = await Promise.all([
      this.must(commands.createRole(role, meterAcls(deviceId)), isAlreadyExists),
      this.must(commands.createClient({ ...client, roles: [role] }), isAlreadyExists),
    ]);
    // [MC-12.2] A role an earlier build made lacks the announcement's subscription; one that has it says so.
    if (!roleMade.ok) await this.must(commands.addRoleACL(role, SERVICE_ANNOUNCEMENT_ACL), isAlreadyExists);
    if (created.ok || opts.restore) return;
    await this.ensureClient(client);
  }

  /** Removes a meter's login and role; one already gone is fine. */
  async removeMeter(deviceId: string): Promise<void> {
    await this.must(commands.deleteClient(deviceId), isNotFound);
    await this.must(commands.deleteRole(meterRoleName(deviceId)), isNotFound);
  }

  close(): void {
    this.#opts.mqtt.off('message', this.#onMessage);
    for (const [id, req] of this.#waiting) {
      clearTimeout(req.timer);
      for (const p of req.items) p.reject(new DynsecError('dynamic-security client closed'));
      this.#waiting.delete(id);
    }
    for (const p of this.#queue.splice(0)) p.reject(new DynsecError('dynamic-security client closed'));
  }

  #flush(): void {
    this.#flushing = false;
    if (this.#inFlight || this.#queue.length === 0) return;
    this.#inFlight = true;
    const items = this.#queue.splice(0, this.#opts.batch);
    const id = randomBytes(6).toString('base64url');
    const waitMs = this.#opts.timeoutMs + this.#opts.perCommandMs * items.length;
    const fail = (err: DynsecError) => {
      clearTimeout(timer);
      this.#waiting.delete(id);
      this.#next();
      for (const p of items) p.reject(err);
    };
    const timer = setTimeout(
      () => fail(new DynsecError(`no answer from ${DYNSEC_TOPIC} within ${waitMs} ms`)),
      waitMs,
    );
    this.#waiting.set(id, { items, timer });
    const body = encodeRequest(
      id,
      items.map((p) => p.cmd),
    );
    this.#opts.mqtt.publish(DYNSEC_TOPIC, body, { qos: 1 }, (err) => {
      if (err) fail(new DynsecError(`dynamic security at ${this.#opts.url}: ${err.message}`));
    });
  }

  /** The request in flight is done: send what queued up meanwhile. */
  #next(): void {
    this.#inFlight = false;
    if (this.#queue.length > 0 && !this.#flushing) {
      this.#flushing = true;
      setImmediate(() => this.#flush());
    }
  }
}
