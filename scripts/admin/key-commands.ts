/** admin keys create|list|revoke|rotate (by public id), keys backfill-ids, and revoke-key (by plain value). */
import type { Command } from 'commander';
import { AdminError, invalidInput, notFound } from '@shared/admin/admin-error';
import {
  backfillKeyIds,
  expiryFrom,
  issueKey,
  listKeys,
  parseDuration,
  parseScopes,
  revokeKeyById,
  rotateKey,
  type KeyView,
} from '@shared/admin/api-key-lifecycle';
import { workspaceRepository } from '@shared/tenancy/workspace-repository';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { hashApiKey } from '@shared/auth/api-keys';
import type { AdminTargetOf } from './admin-target';
import { publicKeyIdOf } from '@shared/auth/key-id';
import { auditPutsFor } from '@shared/audit/audit-repository';
import { cliOrigin } from './operator';
import { isConditionalCheckFailure } from './errors';
import { fieldLines, printResult, progressBar, type JsonOption } from './output';

const keyLines = (v: KeyView) =>
  fieldLines([
    ['id', v.id],
    ['name', v.name],
    ['kind', v.kind],
    ['scopes', v.scopes.join(',') || null],
    ['created', v.createdAt],
    ['expires', v.expiresAt],
  ]);

const shownOnce = (v: KeyView & { key: string }) => `Keep this key now, it is shown once:\n  ${v.key}\n${keyLines(v)}`;

const registerKeysGroup = (program: Command, adminTarget: AdminTargetOf): void => {
  const group = program
    .command('keys')
    .description("a workspace's API keys: create (scoped), list, revoke and rotate by public id (key_...)");

  group
    .command('create')
    .description('create a server key with the given scopes; prints the key once')
    .argument('<workspaceId>', 'the workspace')
    .requiredOption(
      '--scope <scopes>',
      'comma-separated: links:read, links:write, domains:read, analytics:read, audit:read, read, all',
    )
    .requiredOption('--name <name>', 'a label for people (kept by rotate)')
    .option('--expires-in <duration>', 'the key stops working after this long (like 90d; at most 730d)')
    .option('--json', 'print {"id","key","name","kind","scopes","createdAt","expiresAt"}')
    .action(async (workspaceId: string, options: JsonOption & { scope: string; name: string; expiresIn?: string }) => {
      adminTarget();
      const scopes = parseScopes(options.scope);
      const name = options.name.trim();
      if (!name) throw invalidInput('--name must not be empty');
      const now = Date.now();
      const expiresAt =
        options.expiresIn === undefined ? null : expiryFrom(now, parseDuration(options.expiresIn, '--expires-in'));
      if (!(await workspaceRepository.findById(workspaceId))) throw notFound(`No workspace ${workspaceId}`);
      const created = await issueKey({
        workspaceId,
        kind: 'server',
        name,
        scopes,
        expiresAt,
        now,
        origin: cliOrigin(),
      });
      printResult(options, created, shownOnce);
    });

  group
    .command('list')
    .description(
      "a workspace's keys: id, name, kind, scopes, created, last used (day), expires, revoked; never the key",
    )
    .argument('<workspaceId>', 'the workspace')
    .option('--json', 'print a JSON array')
    .action(async (workspaceId: string, options: JsonOption) => {
      adminTarget();
      if (!(await workspaceRepository.findById(workspaceId))) throw notFound(`No workspace ${workspaceId}`);
      const list = await listKeys(workspaceId);
      printResult(options, list, (l) =>
        l.length === 0
          ? `${workspaceId} has no keys with an id (keys made before ids are listed once \`keys backfill-ids\` has run).`
          : l
              .map(
                (k) =>
                  `${k.id}  ${k.kind.padEnd(11)}  ${k.name}  scopes=${k.scopes.join(',') || '-'}  created=${k.createdAt}  lastUsed=${k.lastUsedAt ?? 'never'}  expires=${k.expiresAt ?? 'never'}  revoked=${k.revokedAt ?? 'no'}`,
              )
              .join('\n'),
      );
    });

  group
    .command('revoke')
    .description('revoke a key by its id (no secret needed); it answers 401 from now on')
    .argument('<keyId>', 'the key id (key_...)')
    .option('--json', 'print one line of JSON')
    .action(async (keyId: string, options: JsonOption) => {
      adminTarget();
      printResult(
        options,
        await revokeKeyById(keyId, Date.now(), cliOrigin()),
        (v) => `Key ${v.id} (${v.name}) revoked.`,
      );
    });

  group
    .command('rotate')
    .description('a new key with the same name and scopes; the old one works until the overlap ends')
    .argument('<keyId>', 'the key id (key_...)')
    .option('--overlap <duration>', 'how long the old key keeps working (like 24h, 0s)', '24h')
    .option('--json', 'print {"id","key",...,"previousKeyId","previousExpiresAt"}')
    .action(async (keyId: string, options: JsonOption & { overlap: string }) => {
      adminTarget();
      const rotated = await rotateKey(keyId, parseDuration(options.overlap, '--overlap'), Date.now(), cliOrigin());
      printResult(
        options,
        rotated,
        (v) => `${shownOnce(v)}\nThe previous key ${v.previousKeyId} works until ${v.previousExpiresAt}.`,
      );
    });

  group
    .command('backfill-ids')
    .description(
      'give every key made before ids its public id (key_..., the one its log lines carry); safe to run again',
    )
    .option('--workspace <workspaceId>', "only this workspace's keys (the whole table is still scanned)")
    .option('--json', 'print {"scanned","withoutId","assigned","alreadyHadId","keyIds"}')
    .action(async (options: JsonOption & { workspace?: string }) => {
      adminTarget();
      if (options.workspace !== undefined && !(await workspaceRepository.findById(options.workspace)))
        throw notFound(`No workspace ${options.workspace}`);
      let bar: ReturnType<typeof progressBar> | undefined;
      const report = await backfillKeyIds({
        workspaceId: options.workspace,
        onFound: (found) => {
          if (found > 0) bar = progressBar(options, found, 'giving ids');
        },
        onAssigned: () => bar?.increment(),
      }).finally(() => bar?.stop());
      printResult(options, report, (r) =>
        r.withoutId === 0
          ? `Every key has an id (${r.scanned} items scanned); nothing was written.`
          : `${r.assigned} keys got an id, ${r.alreadyHadId} had one meanwhile (${r.scanned} items scanned):\n${r.keyIds.map((id) => `  ${id}`).join('\n')}`,
      );
    });
};

export const registerKeyCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  registerKeysGroup(program, adminTarget);
  program
    .command('revoke-key')
    .description('revoke an API key (server, mobile, app or publishable) by its plain value')
    .argument('<key>', 'the plain key')
    .option('--json', 'print one line of JSON')
    .action(async (key: string, options: JsonOption) => {
      adminTarget();
      const plain = key.trim();
      if (!plain) throw invalidInput('Give the key to revoke (the plain value, as it was shown once)');
      const keyHash = hashApiKey(plain);
      // Revoking a key that is not revoked yet is a change: its `key.revoked` entry (the key by its
      // public id) joins the revocation's transaction. Revoking it again changes nothing: no entry.
      const record = await apiKeyRepository.findByHash(keyHash);
      const audit =
        record && !record.revoked
          ? auditPutsFor(record.workspaceId, cliOrigin(), {
              action: 'key.revoked',
              resource: { type: 'api_key', id: publicKeyIdOf(record) },
              changedFields: ['revoked'],
            })
          : [];
      const { indexItemsCleared } = await apiKeyRepository
        .revoke(keyHash, undefined, audit)
        .catch(async (error: unknown) => {
          // Another run revoked it between our read and our write (and wrote the one entry): it is
          // revoked, as asked; revoke again without an entry, as for a key found revoked.
          if (audit.length && isConditionalCheckFailure(error)) return apiKeyRepository.revoke(keyHash);
          throw error;
        })
        .catch((error: unknown) => {
          // Only the key's hash is stored: a key that was never issued and a mistyped one look the same.
          if (isConditionalCheckFailure(error))
            throw new AdminError('not_found', 'No such key: nothing was revoked (check that the key is complete)');
          throw error;
        });
      printResult(
        options,
        { revoked: true, indexItemsCleared },
        (v) => `Key revoked (${v.indexItemsCleared} browser-origin index items cleared).`,
      );
    });
};
