/** `npm run reset`: wipes the local data (DynamoDB Local files, event lake, demo credentials). */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { localDir } from '@shared/local/paths';

if (existsSync(path.join(localDir, 'stack.json'))) {
  console.error('The local stack seems to be running (.local/stack.json exists): stop it first.');
  process.exit(1);
}
for (const name of ['dynamodb-data', 'lake', 'credentials.json'])
  rmSync(path.join(localDir, name), { recursive: true, force: true });
console.log('Local data wiped. The next `npm start` creates a fresh demo tenant.');
