// POST /sim/v1/accounts and POST /sim/v1/accounts/{account_id}/keys: the simulated accounts and their
// API keys, the v2 API's logins.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../http/envelope.ts';
import { toIstIso } from '../../time/ist.ts';
import { simDoc } from '../docs.ts';
import * as s from '../schemas.ts';
import { mapWorldError } from '../world-errors.ts';
import type { SimContext } from './context.ts';

export async function accountRoutes(app: FastifyInstance, { world, now }: SimContext): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/accounts', { schema: { ...simDoc('createAccount'), body: s.accountBody } }, async (req) => {
    const { account, apiKey } = await world.createAccount(req.body.name);
    return success(now(), { account_id: account.id, name: account.name, api_key: apiKey }, 'account created');
  });

  r.post(
    '/accounts/:account_id/keys',
    { schema: { ...simDoc('createApiKey'), params: s.accountIdParams, body: s.keyBody } },
    async (req) => {
      const expires = req.body?.expires_at ? Date.parse(req.body.expires_at) : null;
      const ttl = req.body?.ttl_seconds;
      const wallExpires = ttl === undefined ? null : Date.now() + ttl * 1000;
      const key = await world
        .createApiKey(req.params.account_id, { expiresAt: expires, wallExpiresAt: wallExpires })
        .catch(mapWorldError);
      const iso = (t: number | null) => (t === null ? null : toIstIso(t));
      return success(
        now(),
        { api_key: key, expires_at: iso(expires), wall_expires_at: iso(wallExpires) },
        'key created',
      );
    },
  );
}
