// Brokers in this process that a client may reach without a socket (issue 19 step 7). The embedded
// broker registers itself under its port while it listens; `createMqttClient` asks here before it opens
// a TCP connection, so the service's twins and the in-process virtual meters talk to it over an
// in-memory stream: no write and read syscalls, no loopback, same MQTT bytes. A port bound in this
// process is this broker's whatever loopback name a client uses, so the key is the port, and only
// loopback hosts (or the broker's own host) match. Entries go when their broker closes, so two brokers
// in one test process never see each other's. Clients in other processes stay on TCP.

import type { Duplex } from 'node:stream';

/** Opens one in-memory connection to the broker; returns the client's side of it. */
export type LocalConnect = () => Duplex;

interface Entry {
  host: string;
  connect: LocalConnect;
}

const byPort = new Map<number, Entry>();

function isLoopback(host: string): boolean {
  return (
    host === 'localhost' ||
    host === '::1' ||
    host.startsWith('127.') ||
    host === '0.0.0.0' ||
    host === '::' ||
    host === '::ffff:127.0.0.1'
  );
}

/**
 * Registers the broker bound at `host:port` in this process. Returns the unregistering function
 * (call it first thing when the broker closes). Two brokers of one process on one port (on two
 * interfaces) would be ambiguous: the first keeps the port, the second is reached over TCP only.
 */
export function registerLocalBroker(host: string, port: number, connect: LocalConnect): () => void {
  if (byPort.has(port)) return () => {};
  const entry: Entry = { host, connect };
  byPort.set(port, entry);
  return () => {
    if (byPort.get(port) === entry) byPort.delete(port);
  };
}

/** The in-process broker a client of `host:port` reaches, if there is one. */
export function localBroker(host: string, port: number): LocalConnect | undefined {
  const entry = byPort.get(port);
  if (entry === undefined) return undefined;
  if (host === entry.host || (isLoopback(host) && isLoopback(entry.host))) return entry.connect;
  return undefined;
}
