// /sim/v1/snapshots: world snapshots and restore (issue 12 §2, spec-decisions 110-116); the resets are
// reset.ts and devices/reset.ts. World routes: an API instance forwards them (forward.ts), except export
// and import, whose bodies are files (they answer 409 there, naming the world's URL). The import body
// streams to a temp file, bounded.

import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { success } from '../../http/envelope.ts';
import { ApiError } from '../../http/errors.ts';
import { DEFAULT_HTTP_LIMITS } from '../../http/limits.ts';
import type { WorldSnapshotInfo } from '../../store/types.ts';
import { toIstIso } from '../../time/ist.ts';
import type { ServiceWorld } from '../../world/face.ts';
import { SNAPSHOT_NAME, type WorldSnapshots } from '../../world/world-snapshots.ts';
import { EXPORT_SNAPSHOT_DOC, simDoc } from '../docs.ts';
import { mapWorldError } from '../world-errors.ts';

// [SNAP-7] One alphabet for names, the store's (world-tables.ts).
const name = z
  .string()
  .regex(SNAPSHOT_NAME, 'a snapshot name is 1-64 of A-Z a-z 0-9 _ . -, starting with a letter or digit');
const nameBody = z.strictObject({ name });
const nameParams = z.object({ name });
const importQuery = z.object({ name });

export function snapshotView(s: WorldSnapshotInfo) {
  return {
    name: s.name,
    created_at: toIstIso(s.createdAt),
    clock: toIstIso(s.clock),
    clock_ms: s.clock,
    speed: s.speed,
    devices: s.devices,
    readings: s.readings,
    bytes: s.bytes,
  };
}

function tempFile(): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'meterstack-snapshot-'));
  return { file: join(dir, 'snapshot.sqlite'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * [SNAP-6] The import body: any bytes, refused with 413 before a byte is read when its Content-Length
 * says it is over `limit`, else streamed to a temp file and counted (a chunked body has no length),
 * the temp file removed on a refusal. Fastify checks bodyLimit only for bodies it buffers itself.
 */
function acceptSnapshotFiles(app: FastifyInstance, limit: number): void {
  const tooLarge = () => new ApiError('payload_too_large', `a snapshot file is at most ${limit} bytes`);
  app.addContentTypeParser(
    'application/octet-stream',
    { bodyLimit: limit },
    async (
      req: { headers: Record<string, string | string[] | undefined> },
      payload: NodeJS.ReadableStream,
    ) => {
      const declared = Number(req.headers['content-length'] ?? 0);
      if (declared > limit) throw tooLarge();
      const tmp = tempFile();
      let bytes = 0;
      const count = new Transform({
        transform(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          if (bytes > limit) done(tooLarge());
          else done(null, chunk);
        },
      });
      try {
        await pipeline(payload, count, createWriteStream(tmp.file));
      } catch (err) {
        tmp.remove();
        // A client that hung up mid-body is answered (if at all) as too large: nothing of it is kept.
        throw err instanceof ApiError ? err : tooLarge();
      }
      return tmp;
    },
  );
}

/** The world's snapshots; on an API instance (none), the 409 the file routes answer there. */
export function snapshotDesk(world: Pick<ServiceWorld, 'snapshots'>): WorldSnapshots {
  if (!world.snapshots)
    throw new ApiError(
      'conflict',
      'this is an API instance: snapshot files go to and from the world process, call its URL directly',
    );
  return world.snapshots;
}

export async function snapshotRoutes(app: FastifyInstance, opts: { world: ServiceWorld; limit?: number }) {
  const { world } = opts;
  const limit = opts.limit ?? DEFAULT_HTTP_LIMITS.snapshotFileBytes;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const now = () => world.clock.now();
  const desk = () => snapshotDesk(world);

  acceptSnapshotFiles(app, limit);

  r.post('/snapshots', { schema: { ...simDoc('saveSnapshot'), body: nameBody } }, async (req, reply) => {
    const info = await desk().save(req.body.name).catch(mapWorldError);
    reply.code(201);
    return success(now(), snapshotView(info), 'snapshot saved');
  });

  r.get('/snapshots', { schema: simDoc('listSnapshots') }, async () => {
    return success(now(), (await desk().list()).map(snapshotView));
  });

  r.post(
    '/snapshots/:name/restore',
    { schema: { ...simDoc('restoreSnapshot'), params: nameParams } },
    async (req) => {
      const info = await desk().restore(req.params.name).catch(mapWorldError);
      return success(now(), { ...snapshotView(info), now: toIstIso(now()) }, 'world restored');
    },
  );

  r.delete(
    '/snapshots/:name',
    { schema: { ...simDoc('deleteSnapshot'), params: nameParams } },
    async (req) => {
      await desk().delete(req.params.name).catch(mapWorldError);
      return success(now(), true, 'snapshot deleted');
    },
  );

  // Not through the zod type provider: its 200 is a stream, not the envelope.
  app.get(
    '/snapshots/:name/export',
    { schema: { ...EXPORT_SNAPSHOT_DOC, params: nameParams } },
    async (req, reply) => {
      const { name: snapshot } = req.params as { name: string };
      const tmp = tempFile();
      try {
        await desk().export(snapshot, tmp.file).catch(mapWorldError);
      } catch (err) {
        tmp.remove();
        throw err;
      }
      const stream = createReadStream(tmp.file);
      stream.on('close', tmp.remove);
      return reply
        .type('application/octet-stream')
        .header('content-disposition', `attachment; filename="${snapshot}.meterstack.sqlite"`)
        .send(stream);
    },
  );

  r.post(
    '/snapshots/import',
    { schema: { ...simDoc('importSnapshot'), querystring: importQuery } },
    async (req, reply) => {
      const body = req.body as { file: string; remove: () => void } | undefined;
      if (!body?.file)
        throw ApiError.validation([
          { loc: ['body'], msg: 'send the snapshot file as the body (application/octet-stream)' },
        ]);
      try {
        const info = await desk().import(req.query.name, body.file).catch(mapWorldError);
        reply.code(201);
        return success(now(), snapshotView(info), 'snapshot imported');
      } finally {
        body.remove();
      }
    },
  );
}
