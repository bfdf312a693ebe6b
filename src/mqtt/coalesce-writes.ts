// A receiving connection's small writes (QoS 1 PUBACKs) gathered into one socket write per turn of
// the event loop. mqtt.js handles each incoming packet in its own tick and writes its PUBACK at once
// (mqtt-packet corks the socket only until the next tick), so a connection taking 20,000 QoS 1
// messages a second made 20,000 writev calls: on loopback each one also runs the broker's side of
// TCP, and they were a fifth of the service's CPU on the ingest path (issue 19).
//
// Held from the first byte read in a turn until that turn's check phase (setImmediate): every packet
// of what was read is handled (and its message handed on, then acknowledged, as before) within the
// turn, so an acknowledgement leaves later by microseconds, never before its message was taken.

import type { Socket } from 'node:net';

/** Corks `socket` when it reads, and uncorks it once the event loop's turn has handled what it read. */
export function coalesceWrites(socket: Socket): Socket {
  let held = false;
  const release = () => {
    held = false;
    socket.uncork();
  };
  socket.on('data', () => {
    if (held) return;
    held = true;
    socket.cork();
    setImmediate(release);
  });
  return socket;
}
