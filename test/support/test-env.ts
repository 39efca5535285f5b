import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { localServices } from '@shared/local/local-services';
import { provideServices } from '@shared/runtime/services';

/**
 * Runs before every test file: a table name and a temporary event lake of this file's own, and
 * quiet logs. Files that talk to DynamoDB Local also run test/support/dynamo-table.ts.
 */
process.env.TABLE_NAME = `test-${randomBytes(6).toString('hex')}`;
process.env.LOCAL_LAKE_DIR = mkdtempSync(path.join(tmpdir(), 'linkservice-lake-'));
process.env.AWS_REGION = 'us-east-1';
process.env.LOG_LEVEL ??= 'silent';
// EMF metric lines are for CloudWatch; a test that checks them turns them on (vi.hoisted, before its imports).
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
// The local services (the event stream's stand-in and DuckDB over that lake), as the local stack
// provides them: production code builds only the deployed ones.
provideServices(localServices());
