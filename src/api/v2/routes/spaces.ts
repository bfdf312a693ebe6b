// Endpoints 1–3: spaces with their device summaries.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { success } from '../../../http/envelope.ts';
import type { DeviceRecord } from '../../../store/types.ts';
import { andThen, ownSpace, ownSpaceNow } from '../access.ts';
import type { V2Options } from '../context.ts';
import * as ex from '../examples.ts';
import * as R from '../responses.ts';
import { BODY, responses, SPACE } from '../responses.ts';
import { metadataBody, spaceParams } from '../schemas.ts';
import { spaceView } from '../views.ts';

export async function spaceRoutes(app: FastifyInstance, { world }: V2Options): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store, twins } = world;
  const now = () => world.clock.now();
  const twinOf = (id: string) => twins.get(id);
  const tags = ['spaces'];
  const security = [{ apiKey: [] }];

  r.get(
    '/spaces/',
    {
      schema: {
        tags,
        security,
        operationId: 'listSpaces',
        summary: '1. List spaces',
        description: "Every space of the key's account, each with its device summaries.",
        response: responses({ data: z.array(R.space), example: [ex.spaceExample] }),
      },
    },
    async (req) => {
      const [spaces, devices] = await Promise.all([
        store.listSpaces(req.account.id),
        store.listDevices({ accountId: req.account.id }),
      ]);
      const bySpace = new Map<number, DeviceRecord[]>();
      for (const d of devices) {
        if (d.spaceId === null) continue;
        const list = bySpace.get(d.spaceId) ?? [];
        list.push(d);
        bySpace.set(d.spaceId, list);
      }
      return success(
        now(),
        spaces.map((s) => spaceView(s, bySpace.get(s.id) ?? [], twinOf)),
      );
    },
  );

  r.get(
    '/spaces/:space_id/',
    {
      schema: {
        tags,
        security,
        operationId: 'getSpace',
        summary: '2. Get a space',
        description:
          "One space of the key's account; another account's (or no such) space is `not_your_space`.",
        response: responses({ data: R.space, example: ex.spaceExample, errors: SPACE }),
        params: spaceParams,
      },
    },
    // No promise while the store answers at once (issue 19 step 7): a sync answer.
    (req) =>
      andThen(ownSpaceNow(store, req.account, req.params.space_id), (space) =>
        andThen(store.listDevicesNow({ spaceId: space.id }), (devices) =>
          success(now(), spaceView(space, devices, twinOf)),
        ),
      ),
  );

  r.put(
    '/spaces/:space_id/',
    {
      schema: {
        tags,
        security,
        operationId: 'updateSpace',
        summary: '3. Update a space',
        description:
          'Sets any of name, description, udf1; other fields are ignored. Answers the updated space.',
        response: responses({
          data: R.space,
          example: ex.spaceExample,
          message: 'space updated',
          errors: [...SPACE, ...BODY],
        }),
        params: spaceParams,
        body: metadataBody,
      },
    },
    async (req) => {
      await ownSpace(store, req.account, req.params.space_id);
      const { name, description, udf1 } = req.body;
      const space = await store.updateSpace(req.params.space_id, { name, description, udf1 });
      const devices = await store.listDevices({ spaceId: req.params.space_id });
      // ownSpace just found it, and spaces are never deleted
      return success(now(), spaceView(space!, devices, twinOf), 'space updated');
    },
  );
}
