/**
 * Admin CLI (provisioning is outside the HTTP API).
 *   npm run -s admin -- bootstrap [--json] [--name N] [--domain D] [--app-domain D]
 *   npm run -s admin -- revoke-key <plain key>
 *   npm run -s admin -- set-domain-urls <hostname> [--expired-url URL] [--not-found-url URL]
 * Targets the running local stack (.local/stack.json) or, deployed, the table named by
 * TABLE_NAME with the usual AWS credentials (set BASE_URL and EDGE_URL to the stack outputs).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bootstrapTenant } from '@shared/admin/bootstrap';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { hashApiKey } from '@shared/auth/api-keys';
import { localDir } from '@shared/local/paths';
import { httpUrlSchema } from '@shared/schemas/common-schemas';
import { domainRepository } from '@shared/tenancy/domain-repository';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    json: { type: 'boolean', default: false },
    name: { type: 'string' },
    domain: { type: 'string' },
    'app-domain': { type: 'string' },
    'expired-url': { type: 'string' },
    'not-found-url': { type: 'string' },
  },
});

const stackFile = path.join(localDir, 'stack.json');
let baseUrl = process.env.BASE_URL ?? '';
let edgeUrl = process.env.EDGE_URL ?? '';
if (!process.env.TABLE_NAME && existsSync(stackFile)) {
  const stack = JSON.parse(readFileSync(stackFile, 'utf8')) as Record<string, string>;
  process.env.TABLE_NAME = stack.tableName;
  process.env.DYNAMODB_ENDPOINT = stack.dynamoEndpoint;
  baseUrl ||= stack.baseUrl!;
  edgeUrl ||= stack.edgeUrl!;
}
if (!process.env.TABLE_NAME) {
  console.error('No running local stack (start it with `npm start`) and no TABLE_NAME set.');
  process.exit(2);
}

const [command, ...rest] = positionals;
try {
  switch (command) {
    case 'bootstrap': {
      const result = await bootstrapTenant({ baseUrl, edgeUrl, name: values.name, domain: values.domain, appDomain: values['app-domain'] });
      console.log(values.json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
      break;
    }
    case 'revoke-key': {
      const key = rest[0];
      if (!key) throw new Error('usage: admin revoke-key <key>');
      await apiKeyRepository.revoke(hashApiKey(key));
      console.log('revoked');
      break;
    }
    case 'set-domain-urls': {
      // admin set-domain-urls <hostname> [--expired-url URL] [--not-found-url URL] (an omitted one is cleared)
      const hostname = rest[0];
      if (!hostname) throw new Error('usage: admin set-domain-urls <hostname> [--expired-url URL] [--not-found-url URL]');
      const urls = { expiredUrl: values['expired-url'] ?? null, notFoundUrl: values['not-found-url'] ?? null };
      for (const [name, url] of Object.entries(urls)) {
        if (url !== null && !httpUrlSchema.safeParse(url).success) throw new Error(`${name} must be an absolute http(s) URL`);
      }
      const host = await domainRepository.findHost(hostname);
      const domain = host ? await domainRepository.findById(host.workspaceId, host.domainId) : undefined;
      if (!domain) throw new Error(`No domain ${hostname}`);
      await domainRepository.setFallbackUrls(domain, urls);
      console.log(JSON.stringify({ domain: domain.domain, ...urls }));
      break;
    }
    default:
      console.error('usage: admin bootstrap [--json] | admin revoke-key <key> | admin set-domain-urls <hostname> [--expired-url URL] [--not-found-url URL]');
      process.exit(2);
  }
} catch (error) {
  console.error(`admin ${command}: ${(error as Error).message}`);
  process.exit(2);
}
