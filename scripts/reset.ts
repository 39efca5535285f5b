/** `npm run reset`: wipes the local data (DynamoDB Local files, event lake, demo credentials). */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { localDir } from '@shared/local/paths';

const stackFile = path.join(localDir, 'stack.json');

/**
 * Whether the `npm start` that wrote stack.json still runs. A stack.json whose process is gone
 * (a start killed with SIGKILL leaves one behind) does not count; one that cannot be read does.
 */
const stackRunning = (): boolean => {
  if (!existsSync(stackFile)) return false;
  try {
    const { pid } = JSON.parse(readFileSync(stackFile, 'utf8')) as { pid?: unknown };
    if (typeof pid !== 'number') return true;
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
};

if (stackRunning()) {
  console.error(`The local stack is running (${stackFile}): stop it first (Ctrl-C, or kill -TERM its npm process).`);
  process.exit(1);
}
for (const name of ['stack.json', 'dynamodb-data', 'lake', 'credentials.json'])
  rmSync(path.join(localDir, name), { recursive: true, force: true });
console.log('Local data wiped. The next `npm start` creates a fresh demo tenant.');
