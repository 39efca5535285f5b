import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { emulatorDir, projectRoot } from './paths';
import { freePort, portInUse, PortInUseError } from './ports';
import { retry } from '@shared/util/retry';

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
      .at(-1);
    if (!packed) throw new Error(`npm pack ${EMULATOR_PACKAGE} named no tarball`);
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

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The JVM's quick compiler only and the single-threaded collector: less CPU for the emulator, at
 * slower answers. For the test suite, which checks behaviour and is CPU-bound on 2 cores (six e2e
 * files: 46 s -> 38 s); not for `npm start` or the bench, whose durations price a click.
 */
const LIGHT_JVM = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

export interface DynamoDbLocalOptions {
  /** Run the emulator's JVM light (LIGHT_JVM): the test suite. */
  lightJvm?: boolean;
  port?: number;
  /** Folder for a persistent database; in-memory when omitted. */
  dbPath?: string;
}

/**
 * Stops the JVM's process group when the process that started it is gone without stopping it
 * (killed with SIGKILL, or a crash the 'exit' hook below cannot see). A shell reads a pipe whose
 * other end only the starting process holds: the kernel closes it when that process dies, the read
 * ends, and the shell sends SIGTERM, then SIGKILL after 5 s. The starting process kills the
 * watchdog once the JVM has exited.
 */
const WATCHDOG = `read _
kill -TERM -"$1" 2>/dev/null || exit 0
i=0
while kill -0 -"$1" 2>/dev/null; do
  i=$((i + 1))
  if [ "$i" -gt 50 ]; then kill -KILL -"$1" 2>/dev/null; exit 0; fi
  sleep 0.1
done`;

/** The JVM's bind failure: Jetty logs it and the JVM stays up, listening on nothing. */
const BIND_FAILED = /Failed to bind|BindException|Address already in use/;

/**
 * Starts DynamoDB Local (it listens on every interface) and waits until it answers. The JVM runs
 * in a process group of its own, so a Ctrl-C in the terminal reaches the process that started it,
 * which stops it after its own servers; that process's exit, however it comes, stops it too.
 */
export const startDynamoDbLocal = async (options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> => {
  if (!javaAvailable()) {
    throw new Error('Java 17 is needed for DynamoDB Local: apt-get install openjdk-17-jre-headless');
  }
  const dir = ensureEmulator();
  // A port given is checked first: another DynamoDB Local there would answer in this one's stead.
  if (options.port !== undefined && (await portInUse(options.port, '0.0.0.0'))) {
    throw new PortInUseError({ port: options.port, setting: 'DYNAMODB_PORT', host: '0.0.0.0' });
  }
  const port = options.port ?? (await freePort());
  const args = [
    '-Xmx512m',
    ...(options.lightJvm ? LIGHT_JVM : []),
    `-Djava.library.path=${path.join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    path.join(dir, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-disableTelemetry',
    ...(options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory']),
  ];
  if (options.dbPath) mkdirSync(options.dbPath, { recursive: true });
  const child = spawn('java', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const pid = child.pid;
  if (pid === undefined) throw new Error('DynamoDB Local did not start: could not run java');
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  const watchdog = spawn('sh', ['-c', WATCHDOG, 'dynamodb-local-watchdog', String(pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  watchdog.unref();
  const killOnExit = () => {
    signalGroup('SIGKILL');
  };
  process.on('exit', killOnExit);
  const running = () => child.exitCode === null && child.signalCode === null;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      process.off('exit', killOnExit);
      watchdog.kill('SIGKILL');
      resolve();
    }),
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const stop = async () => {
    if (!running()) return;
    signalGroup('SIGTERM');
    const timer = setTimeout(() => {
      signalGroup('SIGKILL');
    }, 5000);
    await exited;
    clearTimeout(timer);
  };
  const endpoint = `http://127.0.0.1:${port}`;

  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + 60_000;
  /** The process is gone or its port taken: waiting longer changes nothing. */
  class StartFailed extends Error {}
  try {
    // Until it answers (the one retry helper, every 150 ms, for up to a minute).
    await retry(
      async () => {
        if (!running()) throw new StartFailed(`DynamoDB Local exited: ${stderr}`);
        if (BIND_FAILED.test(stderr)) throw new PortInUseError({ port, setting: 'DYNAMODB_PORT', host: '0.0.0.0' });
        await client.send(new ListTablesCommand({}));
      },
      {
        attempts: Number.POSITIVE_INFINITY,
        retryOn: (error) =>
          !(error instanceof StartFailed || error instanceof PortInUseError) && Date.now() <= deadline,
        pause: () => delay(150),
      },
    ).catch((error: unknown) => {
      if (error instanceof StartFailed || error instanceof PortInUseError) throw error;
      throw new Error(`DynamoDB Local did not start on ${endpoint}: ${stderr}`, { cause: error });
    });
  } catch (error) {
    await stop();
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, port, process: child, stop };
};
