/** admin revoke-key: revokes one API key by its plain value. */
import type { Command } from 'commander';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { hashApiKey } from '@shared/auth/api-keys';
import { adminTarget } from './admin-target';
import { printResult, type JsonOption } from './output';

export const registerKeyCommands = (program: Command): void => {
  program
    .command('revoke-key')
    .description('revoke an API key (server, mobile, app or publishable) by its plain value')
    .argument('<key>', 'the plain key')
    .option('--json', 'print one line of JSON')
    .action(async (key: string, options: JsonOption) => {
      adminTarget();
      const { indexItemsCleared } = await apiKeyRepository.revoke(hashApiKey(key));
      printResult(
        options,
        { revoked: true, indexItemsCleared },
        () => `revoked (${indexItemsCleared} origin-index items cleared)`,
      );
    });
};
