/** admin revoke-key: revokes one API key by its plain value. */
import type { Command } from 'commander';
import { AdminError, invalidInput } from '@shared/admin/admin-error';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { hashApiKey } from '@shared/auth/api-keys';
import { adminTarget } from './admin-target';
import { isConditionalCheckFailure } from './errors';
import { printResult, type JsonOption } from './output';

export const registerKeyCommands = (program: Command): void => {
  program
    .command('revoke-key')
    .description('revoke an API key (server, mobile, app or publishable) by its plain value')
    .argument('<key>', 'the plain key')
    .option('--json', 'print one line of JSON')
    .action(async (key: string, options: JsonOption) => {
      adminTarget();
      const plain = key.trim();
      if (!plain) throw invalidInput('Give the key to revoke (the plain value, as it was shown once)');
      const { indexItemsCleared } = await apiKeyRepository.revoke(hashApiKey(plain)).catch((error: unknown) => {
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
