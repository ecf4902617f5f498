import { PrismaPg } from '@prisma/adapter-pg';
import { fromPrisma, type PrismaTransactionClient } from '../../src/storage/adapters/prisma.js';
import { adapterScenarios, rollingBack } from '../support/adapter-scenarios.js';
import { PG_URL } from '../support/databases.js';
import { PrismaClient } from '../support/prisma/client/client.js';

// Prisma 7 through its PostgreSQL driver adapter: no engine binary, so this runs offline after
// npm ci; the client is generated once and committed (test/support/prisma/schema.prisma).
adapterScenarios('Prisma interactive transactions (tidemark/prisma)', async () => {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: PG_URL, max: 2 }) });
  return {
    commit: (fn) => prisma.$transaction((tx) => fn(fromPrisma(tx))),
    rollback: (fn) =>
      rollingBack<PrismaTransactionClient>(
        (body) => prisma.$transaction(body),
        (tx) => fn(fromPrisma(tx)),
      ),
    adaptRoot: () => fromPrisma(prisma),
    close: () => prisma.$disconnect(),
  };
});
