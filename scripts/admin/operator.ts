/**
 * Who runs the admin CLI, for the audit log: `--actor <name>` (a global option, before or after
 * the command), else the OS user. Set once per run by admin.ts before the command's action.
 */
import type { ChangeOrigin } from '@shared/audit/audit-entry';
import { operatorOrigin } from '@shared/audit/operator-origin';
import { invalidInput } from '@shared/admin/admin-error';

let actor: string | undefined;

/** Called by admin.ts with the parsed `--actor` (undefined when not given). */
export const setOperatorActor = (name: string | undefined): void => {
  if (name?.trim() === '') throw invalidInput('--actor must not be empty');
  actor = name;
};

/** The origin of the change the running command makes. */
export const cliOrigin = (): ChangeOrigin => operatorOrigin(actor);
