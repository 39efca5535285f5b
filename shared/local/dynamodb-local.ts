import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { emulatorDir, projectRoot } from './paths';

/** The official DynamoDB Local jar, as shipped in this npm package's tarball. */
const EMULATOR_PACKAGE = 'amplify-dynamodb-simulator@2.9.30';

/**
 * Makes sure the DynamoDB Local jar is unpacked under `.local/dynamodb-emulator` (fetching only
 * the package tarball, not its 283 dependencies). Safe to call from parallel processes: each
 * unpacks into its own temp folder and the first rename wins.
 */
export const ensureEmulator = (): string => {
  const jar = path.join(emulatorDir, 'DynamoDBLocal.jar');
  if (existsSync(jar)) return emulatorDir;
  const parent = path.dirname(emulatorDir);
  mkdirSync(parent, { recursive: true });
  const work = mkdtempSync(path.join(parent, 'emulator-download-'));
  try {
    const packed = execFileSync('npm', ['pack', EMULATOR_PACKAGE, '--silent', '--pack-destination', work], {
      cwd: projectRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
      .trim()
      .split('\n')
      .pop()!;
    execFileSync('tar', ['-xzf', path.join(work, packed), '-C', work, 'package/emulator']);
    try {
      renameSync(path.join(work, 'package', 'emulator'), emulatorDir);
    } catch (error) {
      if (!existsSync(jar)) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return emulatorDir;
};

export const javaAvailable = (): boolean => {
  try {
    execFileSync('java', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  port?: number;
  /** Folder for a persistent database; in-memory when omitted. */
  dbPath?: string;
}

/** Starts DynamoDB Local on loopback and waits until it answers. */
export const startDynamoDbLocal = async (options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> => {
  if (!javaAvailable()) {
    throw new Error('Java 17 is needed for DynamoDB Local: apt-get install openjdk-17-jre-headless');
  }
  const dir = ensureEmulator();
  const port = options.port ?? (await freePort());
  const args = [
    '-Xmx512m',
    `-Djava.library.path=${path.join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    path.join(dir, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-disableTelemetry',
    ...(options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory']),
  ];
  if (options.dbPath) mkdirSync(options.dbPath, { recursive: true });
  const child = spawn('java', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited: ${stderr}`);
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`DynamoDB Local did not start on ${endpoint}: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  client.destroy();
  return {
    endpoint,
    port,
    process: child,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
};
