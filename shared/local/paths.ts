import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The project's root folder and its ignored local state folder. */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
export const localDir = process.env.LOCAL_STATE_DIR ?? path.join(projectRoot, '.local');
export const emulatorDir = path.join(projectRoot, '.local', 'dynamodb-emulator');
