// The OpenAPI description of the /sim/v1/workers operations (the fleet workers' protocol, issue 11 §2),
// kept here so routes.ts reads as routes. Rule numbers: README.md.

import { z } from 'zod';
import { errorResponses } from '../http/error-schemas.ts';
import { BODY, list, object, PATH_PARAM, simResponses } from './docs.ts';

const LEASE =
  'Names its lease in `X-Worker-Lease`; a lease another worker took answers 409 `conflict` [WORKER-2].';

const OPERATIONS = {
  registerWorker: {
    summary: 'Register a fleet worker and hand it its meters',
    description:
      '[WORKER-1] Refused (409 `conflict`, naming the holder: pid, host, since) while a live worker holds the name ' +
      'or an overlapping prefix. Answers `{lease_id, broker_url, clock: {now_ms, speed}, meters: [{device_id, ' +
      'secret, meter, online, ledger_seq}]}`: existing meters restored from their snapshots with newer ledger ' +
      'entries applied, new ones provisioned up to `count`.',
    response: simResponses({ data: object, status: 201, errors: [...BODY, 'conflict', 'not_found'] }),
  },
  listWorkers: {
    summary: 'List the fleet workers',
    description:
      '`[{name, pid, host, prefix, meters, since, last_heartbeat, alive}]`; dead = no heartbeat for 15 s.',
    response: simResponses({ data: list }),
  },
  workerHeartbeat: {
    summary: "Renew a worker's lease, with the snapshots of meters that changed",
    description: LEASE,
    response: simResponses({ data: object, errors: [...PATH_PARAM, ...BODY, 'conflict'] }),
  },
  saveWorkerSnapshots: {
    summary: "Store a worker's meter snapshots now",
    description: `[WORKER-3] A recharge's reply waits for this. ${LEASE}`,
    response: simResponses({ data: object, errors: [...PATH_PARAM, ...BODY, 'conflict'] }),
  },
  workerAdvanced: {
    summary: 'A worker lived through a clock jump',
    description: `[WORKER-4] \`{id, last_sample_ts: {device_id: ts}}\`. ${LEASE}`,
    response: simResponses({ data: object, errors: [...PATH_PARAM, ...BODY, 'conflict'] }),
  },
  releaseWorker: {
    summary: "Free a worker's lease (a clean stop)",
    description: LEASE,
    response: simResponses({ data: z.literal(true), errors: [...PATH_PARAM, 'conflict'] }),
  },
  followWorkerSync: {
    summary: "A worker's sync stream (Server-Sent Events)",
    description:
      '[WORKER-4] Events `hello` and `clock` `{now_ms, speed}`, and `advance` `{id, to}` which the worker answers ' +
      `with POST .../advanced; a keep-alive comment every 5 s. ${LEASE}`,
    response: {
      200: {
        description: 'A text/event-stream that stays open',
        content: { 'text/event-stream': { schema: z.string() } },
      },
      ...errorResponses(['admin_authentication_error', 'internal_error', ...PATH_PARAM, 'conflict']),
    },
  },
} as const;

export function workerDoc<K extends keyof typeof OPERATIONS>(id: K) {
  return { tags: ['simulation'], security: [{ adminToken: [] }], operationId: id, ...OPERATIONS[id] };
}
