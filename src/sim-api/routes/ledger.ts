// GET /sim/v1/ledger [LEDGER-3]: every virtual meter against its ledger, now; external meters credit by
// credit [LEDGER-6]; and what the check at start found.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../http/envelope.ts';
import { externalCheckView } from '../../world/external-ledger-check.ts';
import { ledgerCheckView } from '../../world/ledger-check.ts';
import { simDoc } from '../docs.ts';
import type { SimContext } from './context.ts';

export async function ledgerRoutes(app: FastifyInstance, { world, now }: SimContext): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get('/ledger', { schema: simDoc('checkLedger') }, async () => {
    // Fleet workers' meters are checked from their stored snapshots (src/world/workers).
    const checks = [...(await world.checkLedger()), ...((await world.workers?.checkLedger()) ?? [])];
    const external = await world.checkExternalLedger();
    return success(now(), {
      meters: checks.length,
      disagreements: checks.filter((c) => !c.agrees).map(ledgerCheckView),
      external: {
        meters: external.length,
        pending: external.reduce((n, c) => n + c.pending.length, 0),
        disagreements: external.filter((c) => !c.agrees).map(externalCheckView),
      },
      at_start: {
        meters: world.reconciliation.checkedAtStart,
        disagreements: world.reconciliation.disagreementsAtStart,
      },
    });
  });
}
